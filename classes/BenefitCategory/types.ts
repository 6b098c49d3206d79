/**
 * Benefit (offer) categories (spec 2.9 "Offer category sheet": id, name,
 * subcategories, keywords, createdAt, updatedAt), plus the `status` the
 * homepage section's enums are filled from (spec 2.8: "from active benefit
 * categories"). The spec shows no other field (2.8: "benefit-category
 * records (beyond the migration columns in 2.9): not shown"): the record holds
 * these and nothing else. One actor instance per category (instance id = id).
 */
import type { StateOf } from '../../runtime';

export const CATEGORY_STATUSES = ['active', 'inactive'] as const;
export type CategoryStatus = (typeof CATEGORY_STATUSES)[number];

/** A category as it is stored, answered, streamed and audit-logged. */
export interface BenefitCategoryRecord {
  id: string;
  name: string;
  /** the sheet's comma-separated subcategories as a list: names, each once (case-insensitively), none with a comma */
  subcategories: string[];
  /** the sheet's comma-separated keywords as a list, the same way */
  keywords: string[];
  /** not a sheet column: only `active` categories are offered to the homepage section */
  status: CategoryStatus;
  /** ISO 8601 instants */
  createdAt: string;
  updatedAt: string;
}

/** ctx.state.private of one category's instance. */
export interface BenefitCategoryState {
  category: BenefitCategoryRecord;
}

export type BenefitCategoryClassState = StateOf<BenefitCategoryState>;

/** one entry of listActiveCategories (what the homepage section's category and subcategory enums are filled from) */
export interface ActiveCategory {
  id: string;
  name: string;
  subcategories: string[];
}
