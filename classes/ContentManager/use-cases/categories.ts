/**
 * The options of the homepage section's category and subcategory filters
 * (spec 2.8: "filled at request time from active benefit categories"), asked
 * from BenefitCategory.listActiveCategories on every request that needs them:
 *  - benefitCategories: {key: the category's id, value: its name};
 *  - benefitSubcategories: {key: the subcategory's name, value: its name},
 *    each name once (a subcategory has no id of its own: the offer category
 *    sheet holds them as names, spec 2.9).
 * A deployment without BenefitCategory has no categories (empty lists); a
 * catalogue that fails to answer is 502 18016.
 */
import { ActorError, client, isNotDeployed, type BaseCtx } from '../../../runtime';
import type { BenefitCategory } from '../../BenefitCategory/BenefitCategory.class';
import type { EnumOption } from '../content-schemas';
import { contentError } from '../errors';
import type { DynamicOptions } from '../schema-rules';

export const CATEGORY_CLASS = 'BenefitCategory';

/** one entry of BenefitCategory.listActiveCategories */
interface ActiveCategory {
  id: string;
  name: string;
  subcategories: readonly string[];
}

/** Pure: the options of both sources from the active categories. */
export function categoryOptions(categories: readonly ActiveCategory[]): Required<DynamicOptions> {
  const benefitCategories: EnumOption[] = categories.map((c) => ({ key: c.id, value: c.name }));
  const seen = new Set<string>();
  const benefitSubcategories: EnumOption[] = [];
  for (const c of categories) {
    for (const s of c.subcategories) {
      if (seen.has(s)) continue;
      seen.add(s);
      benefitSubcategories.push({ key: s, value: s });
    }
  }
  return { benefitCategories, benefitSubcategories };
}

/** The options filled from the catalogue now. */
export async function activeCategoryOptions(ctx: Pick<BaseCtx, 'call' | 'log'>): Promise<Required<DynamicOptions>> {
  try {
    const { categories } = await client<typeof BenefitCategory>(ctx, CATEGORY_CLASS).listActiveCategories(
      undefined,
      {},
    );
    return categoryOptions(categories);
  } catch (err) {
    if (isNotDeployed(err)) return categoryOptions([]);
    ctx.log.warn({ err }, 'the benefit catalogue did not answer the active categories');
    throw contentError(
      'CONTENT_CATEGORIES_UNAVAILABLE',
      'The active benefit categories could not be read',
      err instanceof ActorError ? { code: err.code, message: err.message } : undefined,
    );
  }
}
