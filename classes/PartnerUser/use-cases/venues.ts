/**
 * The user's venues: addVenues and removeVenues change the user (event
 * user_update, like updateUser), listVenues reads them.
 *
 *  - addVenues: only venues of partners the user belongs to (400 17102), each
 *    a venue of the partner given with it (asked from Partner, 400 17107);
 *    duplicates are prevented: a venue the user has, or one given twice, is
 *    added once; when every venue given is assigned already, 409 17105.
 *  - removeVenues: the venues named go; ids the user does not have are
 *    reported (`notAssigned`); when none of them is assigned, 409 17105.
 */
import type { DeepReadonly } from '../../../runtime';
import { partnerUserError } from '../errors';
import { addVenues as addTo, removeVenues as removeFrom } from '../rules';
import { PARTNER_USER_EVENTS, type PartnerUserRecord } from '../types';
import type { AddVenuesInput, RemoveVenuesInput } from '../../../schemas/PartnerUser/inputs';
import { guard, refuseProblems, requestChange } from './change';
import { actorId, now, st, type PartnerUserCtx, type PartnerUserReadCtx } from './common';
import { checkVenues } from './partners';

export async function addVenues(ctx: PartnerUserCtx<AddVenuesInput>) {
  guard(ctx);
  const old = st(ctx).user;
  const { venues, added, alreadyAssigned, problems } = addTo(old, ctx.request.body.venues);
  refuseProblems(problems);
  if (!added.length) {
    throw partnerUserError('PARTNER_USER_NO_CHANGE', `Partner user ${old.id} has every venue given already`, {
      id: old.id,
      alreadyAssigned,
    });
  }
  const requested = ctx.request.body.venues;
  await checkVenues(
    ctx,
    added.map((v) => ({ ...v, field: `venues[${requested.findIndex((r) => r.venueId === v.venueId)}].venueId` })),
  );
  const next: PartnerUserRecord = { ...old, venues, updatedBy: actorId(ctx), updatedAt: now() };
  const answer = await requestChange(ctx, PARTNER_USER_EVENTS.update, 'addVenues', next, { fields: ['venues'], added });
  return { ...answer, added, alreadyAssigned };
}

export async function removeVenues(ctx: PartnerUserCtx<RemoveVenuesInput>) {
  guard(ctx);
  const old = st(ctx).user;
  const { venues, removed, notAssigned } = removeFrom(old, ctx.request.body.venueIds);
  if (!removed.length) {
    throw partnerUserError('PARTNER_USER_NO_CHANGE', `Partner user ${old.id} has none of the venues given`, {
      id: old.id,
      notAssigned,
    });
  }
  const next: PartnerUserRecord = { ...old, venues, updatedBy: actorId(ctx), updatedAt: now() };
  const answer = await requestChange(ctx, PARTNER_USER_EVENTS.update, 'removeVenues', next, {
    fields: ['venues'],
    removed,
  });
  return { ...answer, removed, notAssigned };
}

/** The user's venues, grouped with nothing: `{venues: [{partnerId, venueId}], totalCount}`. */
export function listVenues(ctx: PartnerUserReadCtx) {
  const u: DeepReadonly<PartnerUserRecord> = ctx.state.private.user;
  return { userId: u.id, venues: u.venues, totalCount: u.venues.length };
}
