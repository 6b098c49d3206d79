/**
 * Partners and venues are Partner's (spec 2.5): every partner a change gives
 * the user, and every venue it assigns, is asked from Partner through its
 * typed client (getPartnerDetails on the partner's instance; getVenue with
 * the venue id, whose answer must name that partner). Only what the change
 * adds is asked: what the user has was checked when it was added.
 * 400 17106 naming each unknown partner, 400 17107 each venue that is no
 * venue of the partner given with it.
 */
import { client, isClassError, isUnknownInstance, type DeepReadonly, type FieldError } from '../../../runtime';
import type { Partner } from '../../Partner/Partner.class';
import type { PartnerErrorName } from '../../Partner/Partner.class';
import { partnerUserError } from '../errors';
import { newReferences } from '../rules';
import type { PartnerUserRecord } from '../types';
import type { PartnerUserCtx } from './common';
import { problemsText } from '../../_platform/paging';

type Refs = DeepReadonly<Pick<PartnerUserRecord, 'partners' | 'venues'>>;

/** no such partner (no instance), or Partner's "no such venue" (404 17007); anything else is thrown */
function isNotFound(err: unknown): boolean {
  return isUnknownInstance(err) || isClassError<PartnerErrorName>(err, 'Partner', 'VENUE_NOT_FOUND');
}

/** Does partner `partnerId` exist? */
async function partnerExists(ctx: PartnerUserCtx<unknown>, partnerId: string): Promise<boolean> {
  try {
    await client<typeof Partner>(ctx, 'Partner').getPartnerDetails(partnerId, {});
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** Is `venueId` a venue of partner `partnerId`? */
async function isVenueOf(ctx: PartnerUserCtx<unknown>, partnerId: string, venueId: string): Promise<boolean> {
  try {
    const { venue } = await client<typeof Partner>(ctx, 'Partner').getVenue(partnerId, { venueId });
    return venue.partnerId === partnerId;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** A partner to check, and the field that names it. */
export interface PartnerRef {
  partnerId: string;
  field: string;
}

/** A venue to check (of partner `partnerId`), and the field that names it. */
export interface VenueRef {
  partnerId: string;
  venueId: string;
  field: string;
}

/** 400 17106 naming each partner Partner does not know. */
export async function checkPartners(ctx: PartnerUserCtx<unknown>, refs: readonly PartnerRef[]): Promise<void> {
  const answers = await Promise.all(refs.map((p) => partnerExists(ctx, p.partnerId)));
  const errors: FieldError[] = refs
    .filter((_, i) => !answers[i])
    .map((p) => ({ field: p.field, reason: `'${p.partnerId}' is not a partner` }));
  if (errors.length) throw partnerUserError('PARTNER_USER_UNKNOWN_PARTNER', problemsText(errors), { errors });
}

/** 400 17107 naming each venue that is no venue of the partner given with it. */
export async function checkVenues(ctx: PartnerUserCtx<unknown>, refs: readonly VenueRef[]): Promise<void> {
  const answers = await Promise.all(refs.map((v) => isVenueOf(ctx, v.partnerId, v.venueId)));
  const errors: FieldError[] = refs
    .filter((_, i) => !answers[i])
    .map((v) => ({ field: v.field, reason: `'${v.venueId}' is not a venue of partner '${v.partnerId}'` }));
  if (errors.length) throw partnerUserError('PARTNER_USER_UNKNOWN_VENUE', problemsText(errors), { errors });
}

/** The partners and venues `next` adds to `current` (null: a new user), checked with Partner. */
export async function checkReferences(ctx: PartnerUserCtx<unknown>, current: Refs | null, next: Refs): Promise<void> {
  const added = newReferences(current, next);
  await checkPartners(
    ctx,
    added.partners.map((p) => ({ partnerId: p.partnerId, field: `partners[${p.index}].partnerId` })),
  );
  await checkVenues(
    ctx,
    added.venues.map((v) => ({ partnerId: v.partnerId, venueId: v.venueId, field: `venues[${v.index}].venueId` })),
  );
}
