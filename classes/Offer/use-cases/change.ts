/**
 * updateOffer and updateOfferStatus: applied at once (spec 6 names no
 * workflow event for the catalogue) and audit-logged.
 */
import { offerError } from '../errors';
import { applyOfferUpdate, offerStatusMove } from '../rules';
import type { UpdateOfferInput, UpdateOfferStatusInput } from '../../../schemas/Offer/inputs';
import type { OfferRecord } from '../types';
import { logOffer, now, refuseProblems, type OfferCtx } from './common';
import { checkReferences } from './references';

/** Any field but id and status; a list replaces the one held; a new partner or category is checked. */
export async function updateOffer(ctx: OfferCtx<UpdateOfferInput>) {
  const s = ctx.state.private;
  const before = s.offer;
  const r = applyOfferUpdate(before, ctx.request.body, now());
  refuseProblems(r.problems, r.dateProblems);
  if (!r.changed.length) throw offerError('OFFER_NO_CHANGES', `The update changes nothing on offer ${before.id}`);
  await checkReferences(ctx, before, r.next);
  s.offer = r.next;
  await logOffer(ctx, before, r.next, { event: 'offer_update', changed: r.changed });
  return { offer: r.next };
}

/** published, unpublished or expired (409 18075 for the status it has). */
export async function updateOfferStatus(ctx: OfferCtx<UpdateOfferStatusInput>) {
  const s = ctx.state.private;
  const before = s.offer;
  const { status } = ctx.request.body;
  const move = offerStatusMove(before.status, status);
  if (!move.ok) throw offerError('OFFER_STATUS_UNCHANGED', `Offer ${before.id}: ${move.reason}`, { status });
  const next: OfferRecord = { ...before, status: move.to, updatedAt: now() };
  s.offer = next;
  await logOffer(ctx, before, next, { event: 'offer_status_update', fromStatus: before.status, toStatus: move.to });
  return { offer: next };
}
