/**
 * BenefitCategory's pure rules (the id, list and instant rules it shares with
 * Offer are in _platform/catalogue.ts): building and changing a category, its
 * status moves, the streamed document, the listing's query and filter, and
 * the entries of listActiveCategories. No I/O; unit-tested in
 * test/_platform/catalogue-rules.test.ts.
 */
import type { DeepReadonly, FieldError, ListingSpec } from '../../runtime';
import type {
  CreateCategoryInput,
  ListCategoriesInput,
  UpdateCategoryInput,
} from '../../schemas/BenefitCategory/inputs';
import { escapeRegex, listingProblems, MAX_FILTER_TEXT, problemsText } from '../_platform/paging';
import { requiredText, same, textList } from '../_platform/catalogue';
import { CATEGORY_STATUSES, type ActiveCategory, type BenefitCategoryRecord, type CategoryStatus } from './types';
import { benefitCategoryError } from './errors';

// ---------------------------------------------------------------- categories

/** A new category from createCategory's body (`problems`: what the schema cannot judge). */
export function buildCategory(
  input: CreateCategoryInput,
  id: string,
  now: string,
): { category: BenefitCategoryRecord; problems: FieldError[] } {
  const problems: FieldError[] = [];
  const name = requiredText(input.name, 'name', problems);
  const subcategories = textList(input.subcategories ?? [], 'subcategories');
  const keywords = textList(input.keywords ?? [], 'keywords');
  problems.push(...subcategories.problems, ...keywords.problems);
  return {
    category: {
      id,
      name,
      subcategories: subcategories.list,
      keywords: keywords.list,
      status: input.status ?? 'active',
      createdAt: now,
      updatedAt: now,
    },
    problems,
  };
}

const UPDATABLE = ['name', 'subcategories', 'keywords'] as const;

/** The category after updateCategory's body; `changed` lists the fields that differ (none: `next` is the current one). */
export function applyCategoryUpdate(
  current: DeepReadonly<BenefitCategoryRecord>,
  input: UpdateCategoryInput,
  now: string,
): { next: BenefitCategoryRecord; changed: string[]; problems: FieldError[] } {
  const base = JSON.parse(JSON.stringify(current)) as BenefitCategoryRecord;
  const problems: FieldError[] = [];
  const next: BenefitCategoryRecord = { ...base };
  if (input.name !== undefined) next.name = requiredText(input.name, 'name', problems);
  if (input.subcategories !== undefined) {
    const l = textList(input.subcategories, 'subcategories');
    next.subcategories = l.list;
    problems.push(...l.problems);
  }
  if (input.keywords !== undefined) {
    const l = textList(input.keywords, 'keywords');
    next.keywords = l.list;
    problems.push(...l.problems);
  }
  const changed = UPDATABLE.filter((f) => !same(next[f], current[f]));
  if (problems.length || !changed.length) return { next: base, changed: [], problems };
  return { next: { ...next, updatedAt: now }, changed: [...changed], problems };
}

/** updateCategoryStatus: `active` ↔ `inactive`; the same status is no move. */
export function categoryStatusMove(
  from: CategoryStatus,
  to: string,
): { ok: true; to: CategoryStatus } | { ok: false; reason: string } {
  if (!(CATEGORY_STATUSES as readonly string[]).includes(to))
    return { ok: false, reason: `status must be one of ${CATEGORY_STATUSES.join(', ')}` };
  if (from === to) return { ok: false, reason: `the category is already ${to}` };
  return { ok: true, to: to as CategoryStatus };
}

// ---------------------------------------------------------------- stream and listing

export const CATEGORIES_COLLECTION = 'benefitCategories';

/** the streamed document's own columns, never answered */
export const CATEGORY_HIDDEN_COLUMNS = ['search', 'sortName'];

/** The streamed document: the category, its lower-cased name (the order) and a search column (name, subcategories, keywords). */
export function categoryDocument(c: DeepReadonly<BenefitCategoryRecord>): Record<string, unknown> {
  return {
    ...(JSON.parse(JSON.stringify(c)) as BenefitCategoryRecord),
    sortName: c.name.toLowerCase(),
    search: [c.name, ...c.subcategories, ...c.keywords].join('\n').toLowerCase(),
  };
}

export const DEFAULT_PAGE_SIZE = 20;

export interface CategoryListQuery {
  page: number;
  limit: number;
  status?: CategoryStatus;
  search?: string;
}

/** listCategories' schema-checked input as its query: page 1 and 20 a page unless given, the search trimmed. */
export function categoryListQuery(input: ListCategoriesInput): CategoryListQuery {
  const { page = 1, limit = DEFAULT_PAGE_SIZE, status } = input;
  const search = input.search?.trim();
  return { page, limit, ...(status ? { status } : {}), ...(search ? { search } : {}) };
}

/**
 * A refused listing input (the schema's problems), for a GET query as for a
 * POST body: 400 18053 naming each field, one reason a field.
 */
export function invalidCategoryQuery(errors: readonly FieldError[]) {
  const problems = listingProblems(errors);
  return benefitCategoryError('BENEFIT_CATEGORY_INVALID_QUERY', `Invalid listing: ${problemsText(problems)}`, {
    errors: problems,
  });
}

/** MongoDB filter of a listing; search: a case-insensitive literal in the name, a subcategory or a keyword. */
export function buildCategoryListFilter(q: Pick<CategoryListQuery, 'status' | 'search'>): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  if (q.status) and.push({ status: q.status });
  if (q.search) and.push({ search: { $regex: escapeRegex(q.search.toLowerCase().slice(0, MAX_FILTER_TEXT)) } });
  return and.length ? { $and: and } : {};
}

/** the order of every category listing: by name, then id */
export const CATEGORY_ORDER = { sortName: 1, _id: 1 } as const;

/** listCategories and listActiveCategories: all, or by status, off an index in that order */
export const LIST_CATEGORIES: ListingSpec = {
  name: 'listCategories',
  sort: { ...CATEGORY_ORDER },
  filterSets: [[], ['status']],
};

/** One entry of listActiveCategories from a streamed document. */
export function activeCategory(doc: Record<string, unknown>): ActiveCategory {
  return {
    id: String(doc.id),
    name: String(doc.name),
    subcategories: Array.isArray(doc.subcategories) ? doc.subcategories.map(String) : [],
  };
}
