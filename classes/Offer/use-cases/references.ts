/**
 * The partner and categories an offer names belong to other classes: the
 * partner is asked from Partner (getPartnerDetails on its instance: spec 2.9,
 * "must match the CRM partner id"), each category from BenefitCategory
 * (getCategory), both through their typed clients and only for what the
 * change adds (newReferences). Existence is what is checked, not status: an
 * inactive partner or category may still be named (README).
 * 400 18072 naming partnerId, 400 18073 naming each categoryIds entry.
 */
import { client, isUnknownInstance, type DeepReadonly, type FieldError } from '../../../runtime';
import type { BenefitCategory } from '../../BenefitCategory/BenefitCategory.class';
import type { Partner } from '../../Partner/Partner.class';
import { offerError } from '../errors';
import { newReferences } from '../rules';
import type { OfferRecord } from '../types';
import type { OfferCtx } from './common';
import { problemsText } from '../../_platform/paging';

/** true when the call answers, false for an instance that does not exist; anything else is thrown */
async function exists(ask: () => Promise<unknown>): Promise<boolean> {
  try {
    await ask();
    return true;
  } catch (err) {
    if (isUnknownInstance(err)) return false;
    throw err;
  }
}

type Refs = DeepReadonly<Pick<OfferRecord, 'partnerId' | 'categoryIds'>>;

/** The partner and categories `next` adds to `current` (null: a new offer), checked with their classes. */
export async function checkReferences(ctx: OfferCtx<unknown>, current: Refs | null, next: Refs): Promise<void> {
  const added = newReferences(current, next);
  const partnerId = added.partnerId;
  const [partnerKnown, categoriesKnown] = await Promise.all([
    partnerId === null ? true : exists(() => client<typeof Partner>(ctx, 'Partner').getPartnerDetails(partnerId, {})),
    Promise.all(
      added.categories.map((c) =>
        exists(() => client<typeof BenefitCategory>(ctx, 'BenefitCategory').getCategory(c.id, {})),
      ),
    ),
  ]);
  if (!partnerKnown) {
    throw offerError('OFFER_UNKNOWN_PARTNER', `Partner ${partnerId} does not exist`, {
      errors: [{ field: 'partnerId', reason: `'${partnerId}' is not a partner` }],
    });
  }
  const errors: FieldError[] = added.categories
    .filter((_, i) => !categoriesKnown[i])
    .map((c) => ({ field: c.field, reason: `'${c.id}' is not a benefit category` }));
  if (errors.length) throw offerError('OFFER_UNKNOWN_CATEGORY', problemsText(errors), { errors });
}
