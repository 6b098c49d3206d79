/**
 * Venues (spec 2.5 PartnerLocation, exposed as venue): createVenue
 * (venue_create), updateVenue (venue_update), updateVenueStatus
 * (venue_status_update), all under the `Venue` workflow rules; getVenue; and
 * listVenues from the streamed `venues` collection. The type is the
 * service's (`venue`): a client that sends one is refused naming the field.
 */
import { randomUUID } from 'node:crypto';
import { actorFromIdentity } from '../../_platform/actor';
import { listedDocument, pageInfo, problemsText } from '../../_platform/paging';
import type {
  CreateVenueInput,
  ListVenuesInput,
  UpdateVenueInput,
  UpdateVenueStatusInput,
  VenueRefInput,
} from '../../../schemas/Partner/inputs';
import { hasEntry } from '../../_platform/records';
import { partnerError } from '../errors';
import {
  applyVenueUpdate,
  buildVenue,
  coordinatesProblems,
  venueListQuery,
  sameEntity,
  SEARCH_FIELD,
  VENUES_COLLECTION,
  venueStatusMove,
  venueTypeProblem,
  venueView,
  withVenueStatus,
  type FieldProblem,
} from '../rules';
import { VENUE_EVENTS, type Venue } from '../types';
import {
  now,
  requestVenueChange,
  st,
  venueAnswer,
  venueOf,
  venuePending,
  type PartnerCtx,
  type PartnerReadCtx,
} from './common';
import { claimVenueId } from './venue-owner';

/** 400: the type given (17009), coordinates out of range (17000) */
function checkVenueInput(body: { type?: unknown; mapCoordinates?: CreateVenueInput['mapCoordinates'] }): void {
  const typeProblem = venueTypeProblem(body);
  if (typeProblem)
    throw partnerError('VENUE_TYPE_NOT_SETTABLE', `type ${typeProblem.reason}`, { errors: [typeProblem] });
  const problems: FieldProblem[] = body.mapCoordinates ? coordinatesProblems(body.mapCoordinates) : [];
  if (problems.length)
    throw partnerError('INVALID_INPUT', `Invalid map coordinates: ${problemsText(problems)}`, { errors: problems });
}

export async function createVenue(ctx: PartnerCtx<CreateVenueInput>) {
  const body = ctx.request.body;
  checkVenueInput(body);
  const s = st(ctx);
  const id = body.id ?? randomUUID();
  const taken = () =>
    partnerError('VENUE_ID_TAKEN', `Venue id '${id}' is taken`, {
      errors: [{ field: 'id', reason: 'is the id of another venue' }],
    });
  if (hasEntry(s.locations, id)) throw taken();
  // venue ids are unique across partners: the id's VenueOwner instance holds which partner has it
  if (!(await claimVenueId(ctx, id, s.partner.id))) throw taken();
  const venue = buildVenue({
    id,
    partnerId: s.partner.id,
    body,
    createdBy: actorFromIdentity(ctx.identity),
    now: now(),
  });
  const change = await requestVenueChange(ctx, VENUE_EVENTS.create, null, venue);
  ctx.response.status = 201;
  return venueAnswer(ctx, id, change);
}

export async function updateVenue(ctx: PartnerCtx<UpdateVenueInput>) {
  const body = ctx.request.body;
  checkVenueInput(body);
  const s = st(ctx);
  const venue = venueOf(s, body.venueId) as Venue;
  const requested = applyVenueUpdate(venue, body, now());
  if (sameEntity(venue, requested))
    throw partnerError('PARTNER_NO_CHANGES', `The update changes nothing on venue ${venue.id}`);
  return venueAnswer(ctx, venue.id, await requestVenueChange(ctx, VENUE_EVENTS.update, venue, requested));
}

export async function updateVenueStatus(ctx: PartnerCtx<UpdateVenueStatusInput>) {
  const { venueId, status } = ctx.request.body;
  const s = st(ctx);
  const venue = venueOf(s, venueId) as Venue;
  const move = venueStatusMove(venue.status, status);
  if (!move.ok)
    throw partnerError(move.error, `Venue ${venue.id}: ${move.message}`, {
      errors: [{ field: 'status', reason: move.message }],
    });
  const change = await requestVenueChange(ctx, VENUE_EVENTS.status, venue, withVenueStatus(venue, move.to, now()), {
    fromStatus: venue.status,
    toStatus: move.to,
  });
  return venueAnswer(ctx, venue.id, change);
}

/** The venue (body or query `venueId`) and the approval it waits for; 404 17007 for a venue the partner does not have. */
export function getVenue(ctx: PartnerReadCtx<VenueRefInput>) {
  const state = ctx.state.private;
  const venue = venueOf(state, ctx.request.body.venueId);
  return { venue: venueView(venue), pendingApproval: venuePending(state, venue.id) };
}

/** The partner's venues from the `venues` collection: filters status and search, paged. */
export async function listVenues(ctx: PartnerReadCtx<ListVenuesInput>) {
  const q = venueListQuery(ctx.request.body, ctx.state.private.partner.id);
  const found = await ctx.documents.find<Record<string, unknown>>(VENUES_COLLECTION, q.filter, {
    sort: q.sort,
    skip: q.skip,
    limit: q.limit,
  });
  return {
    venues: found.items.map((d) => listedDocument(d, [SEARCH_FIELD])),
    ...pageInfo(found.total, q.page, q.limit),
  };
}
