/**
 * BenefitCategory error codes: 18050-18069 (the spec gives the benefit
 * catalogue no range; docs/error-ranges.md gives it 18050-18099, of which
 * Offer has 18070-18099). Each name has one code and one HTTP status; 400s
 * name the field and the reason (`details.errors: [{field, reason}]`).
 */
import { errorFactory } from '../../runtime';

export const BenefitCategoryErrors = {
  /** what the schema cannot judge: an id that cannot name a category, a list item twice or with a comma, a blank name */
  BENEFIT_CATEGORY_INVALID_INPUT: { code: 18050, status: 400 },
  /** updateCategory that changes nothing */
  BENEFIT_CATEGORY_NO_CHANGES: { code: 18051, status: 400 },
  /** updateCategoryStatus to the status the category has */
  BENEFIT_CATEGORY_STATUS_UNCHANGED: { code: 18052, status: 409 },
  /** listCategories: bad filter or page values */
  BENEFIT_CATEGORY_INVALID_QUERY: { code: 18053, status: 400 },
} as const;

export type BenefitCategoryErrorName = keyof typeof BenefitCategoryErrors;

export const benefitCategoryError = errorFactory('BenefitCategory', BenefitCategoryErrors);
