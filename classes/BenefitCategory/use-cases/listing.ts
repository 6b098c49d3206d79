/**
 * listCategories and listActiveCategories (STATIC), from the streamed
 * `benefitCategories` collection, by name then id.
 *
 * listCategories: filters status and search (name, a subcategory or a
 * keyword: a case-insensitive literal); page from 1, limit 1-100 (default
 * 20); POST body or GET query, checked by its schema.
 *
 * listActiveCategories: every `active` category as {id, name, subcategories}
 * (what ContentManager fills the homepage section's category and
 * subcategory enums from), read in pages of ACTIVE_PAGE up to
 * MAX_ACTIVE_CATEGORIES.
 */
import type { ListCategoriesInput } from '../../../schemas/BenefitCategory/inputs';
import { listedDocument, pageInfo } from '../../_platform/paging';
import {
  activeCategory,
  buildCategoryListFilter,
  CATEGORIES_COLLECTION,
  CATEGORY_HIDDEN_COLUMNS,
  CATEGORY_ORDER,
  categoryListQuery,
} from '../rules';
import type { ActiveCategory } from '../types';
import type { CategoryStaticCtx } from './common';

export async function listCategories(ctx: CategoryStaticCtx<ListCategoriesInput>) {
  const q = categoryListQuery(ctx.request.body);
  const found = await ctx.documents.find<Record<string, unknown>>(CATEGORIES_COLLECTION, buildCategoryListFilter(q), {
    sort: { ...CATEGORY_ORDER },
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  return {
    categories: found.items.map((d) => listedDocument(d, CATEGORY_HIDDEN_COLUMNS)),
    ...pageInfo(found.total, q.page, q.limit),
  };
}

const ACTIVE_PAGE = 500;
/** far more than a programme has; a bound on one answer */
export const MAX_ACTIVE_CATEGORIES = 5000;

export async function listActiveCategories(ctx: CategoryStaticCtx) {
  const categories: ActiveCategory[] = [];
  for (let skip = 0; skip < MAX_ACTIVE_CATEGORIES; skip += ACTIVE_PAGE) {
    const found = await ctx.documents.find<Record<string, unknown>>(
      CATEGORIES_COLLECTION,
      buildCategoryListFilter({ status: 'active' }),
      {
        sort: { ...CATEGORY_ORDER },
        skip,
        limit: ACTIVE_PAGE,
        // a short page is the last: the total is not needed, so none is counted
        total: false,
      },
    );
    categories.push(...found.items.map(activeCategory));
    if (found.items.length < ACTIVE_PAGE) break;
  }
  return { categories };
}
