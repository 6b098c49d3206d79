/**
 * Venue ids across partners (rules in ../venue-ids.ts, README "Rules that
 * must hold"): the VenueOwner class's handlers, and the claim and
 * confirmation createVenue makes.
 */
import { ActorError, client, isUnknownInstance, type Ctx, type StateOf } from '../../../runtime';
import { PartnerErrors } from '../errors';
import { claimDecision, claimed, confirmedBy, type VenueOwnerState } from '../venue-ids';
import type { VenueRefInput } from '../../../schemas/Partner/inputs';
import type { PartnerCtx, PartnerReadCtx } from './common';

export const VENUE_OWNER_CLASS = 'VenueOwner';

/** the VenueOwner class's state (`@ActorClass<VenueOwnerClassState>`): private holds the claim */
export type VenueOwnerClassState = StateOf<VenueOwnerState>;

/** claim's and confirm's body: the partner making the venue */
export interface VenueOwnerBody {
  partnerId: string;
}

type OwnerCtx<I> = Ctx<VenueOwnerClassState, I>;

/** VenueOwner's own methods and Partner's getVenue, typed from their handlers (the class files import this module) */
type Owners = abstract new () => { claim: typeof claim; confirm: typeof confirm };
type Partners = abstract new () => { getVenue(ctx: PartnerReadCtx<VenueRefInput>): unknown };

/** Does the partner hold the venue? (getVenue answers 404 17007 for a venue it does not have) */
async function partnerHolds(ctx: OwnerCtx<unknown>, partnerId: string, venueId: string): Promise<boolean> {
  try {
    await client<Partners>(ctx, 'Partner').getVenue(partnerId, { venueId });
    return true;
  } catch (err) {
    if (isUnknownInstance(err)) return false;
    if (err instanceof ActorError && err.code === PartnerErrors.VENUE_NOT_FOUND.code) return false;
    throw err;
  }
}

/**
 * VenueOwner.claim (instance id = venue id): the id becomes the partner's
 * unless another partner holds it. Answers whether it did; exclusive per id
 * across processes, so of two partners claiming one id only the first does.
 */
export async function claim(ctx: OwnerCtx<VenueOwnerBody>) {
  const { partnerId } = ctx.request.body;
  const current = ctx.state.private;
  let decision = claimDecision(current, partnerId, Date.now());
  if (decision === 'ask') {
    // a stale claim: the partner behind it committed the venue, or never will
    if (await partnerHolds(ctx, current.partnerId!, ctx.instanceId!)) {
      Object.assign(ctx.state.private, confirmedBy(current, current.partnerId!));
      decision = 'taken';
    } else {
      decision = 'claim';
    }
  }
  if (decision === 'taken') return { claimed: false, partnerId: ctx.state.private.partnerId ?? null };
  Object.assign(ctx.state.private, claimed(current, partnerId, new Date().toISOString()));
  return { claimed: true, partnerId };
}

/** VenueOwner.confirm, the committed effect of createVenue: the partner holds the venue now. */
export function confirm(ctx: OwnerCtx<VenueOwnerBody>) {
  Object.assign(ctx.state.private, confirmedBy(ctx.state.private, ctx.request.body.partnerId));
  return { confirmed: ctx.state.private.partnerId === ctx.request.body.partnerId };
}

/**
 * createVenue's claim of the id before it commits the venue: false when
 * another partner holds it. The confirmation is committed with the venue.
 */
export async function claimVenueId(ctx: PartnerCtx<unknown>, venueId: string, partnerId: string): Promise<boolean> {
  const answer = await client<Owners>(ctx, VENUE_OWNER_CLASS).claim(venueId, { partnerId });
  if (!answer.claimed) return false;
  await ctx.effect({
    classId: VENUE_OWNER_CLASS,
    method: 'confirm',
    instanceId: venueId,
    body: { partnerId } satisfies VenueOwnerBody,
  });
  return true;
}
