/**
 * Venue ids are unique across partners (createVenue's 409 17008), pure. The
 * truth is the VenueOwner class (VenueOwner.class.ts): one instance per venue
 * id, naming the partner that holds it, never a listing.
 *
 * A partner creating a venue claims its id there before it commits (a write,
 * exclusive per id across every process: of two partners claiming one id the
 * second finds the first's claim), and confirms it by a committed effect once
 * the venue is in its state. A claim whose partner never committed the venue
 * (its write failed after claiming, or lost its commit) is taken at its word
 * until it is older than any write can take to commit (CLAIM_STALE_MS);
 * after that the partner is asked whether it holds the venue, and the id goes
 * to the new claimant when it does not.
 */

/** VenueOwner's private state: the partner holding the id (absent: nobody). */
export interface VenueOwnerState {
  partnerId?: string;
  /** when the claim was made (ISO 8601) */
  claimedAt?: string;
  /** the partner committed the venue (its confirmation arrived, or asking it found the venue) */
  confirmed?: boolean;
}

/**
 * Longer than any write takes from its claim to its commit: a handler's
 * budget is at most 30 s, and a commit needs the instance's lease, which
 * lapses LEASE_TTL_MS after its holder stops renewing it.
 */
export const CLAIM_STALE_MS = 5 * 60 * 1000;

/**
 * What a claim by `partnerId` does: `claim` (the id is free, or already the
 * partner's), `taken` (another partner holds it, or its claim is recent), or
 * `ask` (another partner's unconfirmed claim is stale: ask that partner
 * whether it holds the venue).
 */
export function claimDecision(current: VenueOwnerState, partnerId: string, nowMs: number): 'claim' | 'taken' | 'ask' {
  if (!current.partnerId || current.partnerId === partnerId) return 'claim';
  if (current.confirmed) return 'taken';
  const at = current.claimedAt ? Date.parse(current.claimedAt) : NaN;
  return Number.isFinite(at) && nowMs - at <= CLAIM_STALE_MS ? 'taken' : 'ask';
}

/** The state after a claim by `partnerId` at `now` (a confirmed claim of the same partner stays confirmed). */
export function claimed(current: VenueOwnerState, partnerId: string, now: string): VenueOwnerState {
  if (current.partnerId === partnerId && current.confirmed) return { ...current };
  return { partnerId, claimedAt: now, confirmed: false };
}

/** The state after a confirmation by `partnerId`: only that partner's claim is confirmed. */
export function confirmedBy(current: VenueOwnerState, partnerId: string): VenueOwnerState {
  return current.partnerId === partnerId ? { ...current, confirmed: true } : { ...current };
}
