/**
 * What Offer's use cases share: the handlers' context types, the 400s of
 * input the schema cannot judge, and the audit entry of a change.
 */
import type { Ctx, FieldError, ReadCtx, StaticCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { offerError } from '../errors';
import type { OfferClassState, OfferRecord } from '../types';
import { problemsText } from '../../_platform/paging';

/** an Offer write's context: one offer's state, and the method's body `I` */
export type OfferCtx<I = Record<string, never>> = Ctx<OfferClassState, I>;
/** an Offer READ's context */
export type OfferReadCtx<I = Record<string, never>> = ReadCtx<OfferClassState, I>;
/** an Offer STATIC's context */
export type OfferStaticCtx<I = Record<string, never>> = StaticCtx<I>;

/** entity type of the audit entries */
export const ENTITY_TYPE = 'offer';

export const now = (): string => new Date().toISOString();

/** 400 18070 (texts, lists, id) or 18071 (dates) naming each field, when there are problems. */
export function refuseProblems(problems: readonly FieldError[], dateProblems: readonly FieldError[] = []): void {
  if (problems.length)
    throw offerError('OFFER_INVALID_INPUT', `Invalid offer: ${problemsText(problems)}`, { errors: problems });
  if (dateProblems.length)
    throw offerError('OFFER_INVALID_DATES', `Invalid dates: ${problemsText(dateProblems)}`, { errors: dateProblems });
}

/** The audit entry of a change (nothing personal in an offer); `updatedAt` is not logged. */
export async function logOffer(
  ctx: OfferCtx<unknown>,
  before: OfferRecord | null,
  after: OfferRecord,
  additionalData: Record<string, unknown>,
): Promise<void> {
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: after.id,
    before,
    after,
    ignore: ['updatedAt'],
    additionalData,
  });
}
