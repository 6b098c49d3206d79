/**
 * BenefitCategory (spec 2.8 homepage section, 2.9 "Offer category sheet";
 * codes 18050-18069): the benefit (offer) categories with their
 * subcategories and keywords, one actor instance per category (instance id =
 * category id). Changes apply at once (spec 6 names no catalogue event) and
 * are audit-logged; categories stream to the `benefitCategories` collection,
 * which both listings read. listActiveCategories answers what the homepage
 * section's category and subcategory enums are filled from.
 *
 * This file declares the methods and delegates: each body lives in
 * use-cases/<use case>.ts, the rules in rules.ts. README.md has the choices.
 */
import { ActorClass, Init, Read, Static, Write } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import type {
  CreateCategoryInput,
  ListCategoriesInput,
  UpdateCategoryInput,
  UpdateCategoryStatusInput,
} from '../../schemas/BenefitCategory/inputs';
import { categoryDocument, CATEGORIES_COLLECTION, invalidCategoryQuery, LIST_CATEGORIES } from './rules';
import type { BenefitCategoryClassState } from './types';
import * as change from './use-cases/change';
import type { CategoryCtx, CategoryReadCtx, CategoryStaticCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as listing from './use-cases/listing';
import * as read from './use-cases/read';

const PM = 'program_management_user';

@ActorClass<BenefitCategoryClassState>({
  id: 'BenefitCategory',
  description: 'Benefit (offer) categories and their subcategories (spec 2.9)',
  // the catalogue is the programme's: company users may read it, never change it
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      [CATEGORIES_COLLECTION]: { listings: [LIST_CATEGORIES] },
    },
    toDocuments: (state, id) =>
      state.private.category
        ? [{ collection: CATEGORIES_COLLECTION, id, doc: categoryDocument(state.private.category) }]
        : [],
  },
})
export class BenefitCategory {
  /** A new category (the path's id, else the body's `id`, else a UUID), `active` unless given `inactive` (201). */
  @Init({ access: [PM], instanceId: create.instanceIdOf })
  createCategory(ctx: CategoryCtx<CreateCategoryInput>) {
    return create.createCategory(ctx);
  }

  /** name, subcategories, keywords (any of them; a list replaces the one held). */
  @Write({ access: [PM] })
  updateCategory(ctx: CategoryCtx<UpdateCategoryInput>) {
    return change.updateCategory(ctx);
  }

  /** active or inactive. */
  @Write({ access: [PM] })
  updateCategoryStatus(ctx: CategoryCtx<UpdateCategoryStatusInput>) {
    return change.updateCategoryStatus(ctx);
  }

  /** The category; Offer asks it for each category an offer names. */
  @Read({ access: [PM, 'class'] })
  getCategory(ctx: CategoryReadCtx) {
    return read.getCategory(ctx);
  }

  /** From the document store: status, search (name, subcategory, keyword); page, limit 1-100 (default 20); by name. */
  @Static({ access: [PM], onValidationError: invalidCategoryQuery })
  listCategories(ctx: CategoryStaticCtx<ListCategoriesInput>) {
    return listing.listCategories(ctx);
  }

  /** Every active category as {id, name, subcategories}, by name: the homepage section's enums (ContentManager). */
  @Static({ access: [PM, 'class'] })
  listActiveCategories(ctx: CategoryStaticCtx) {
    return listing.listActiveCategories(ctx);
  }
}
