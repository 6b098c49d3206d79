/** Venue ids across partners, pure (classes/Partner/venue-ids.ts): who may claim an id, and what a claim and a confirmation leave. */
import {
  CLAIM_STALE_MS,
  claimDecision,
  claimed,
  confirmedBy,
  type VenueOwnerState,
} from '../../classes/Partner/venue-ids';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const at = (ms: number) => new Date(ms).toISOString();

describe('claimDecision', () => {
  test('a free id, or one the partner holds already, is claimed', () => {
    expect(claimDecision({}, 'p1', NOW)).toBe('claim');
    expect(claimDecision({ partnerId: 'p1', claimedAt: at(NOW), confirmed: false }, 'p1', NOW)).toBe('claim');
    expect(
      claimDecision({ partnerId: 'p1', claimedAt: at(NOW - 10 * CLAIM_STALE_MS), confirmed: true }, 'p1', NOW),
    ).toBe('claim');
  });

  test("another partner's confirmed id is taken, however old", () => {
    expect(
      claimDecision({ partnerId: 'p1', claimedAt: at(NOW - 10 * CLAIM_STALE_MS), confirmed: true }, 'p2', NOW),
    ).toBe('taken');
  });

  test("another partner's unconfirmed claim is taken while it may still commit, then its partner is asked", () => {
    expect(claimDecision({ partnerId: 'p1', claimedAt: at(NOW), confirmed: false }, 'p2', NOW)).toBe('taken');
    expect(claimDecision({ partnerId: 'p1', claimedAt: at(NOW - CLAIM_STALE_MS), confirmed: false }, 'p2', NOW)).toBe(
      'taken',
    );
    expect(
      claimDecision({ partnerId: 'p1', claimedAt: at(NOW - CLAIM_STALE_MS - 1), confirmed: false }, 'p2', NOW),
    ).toBe('ask');
    // a claim without a readable time cannot be judged recent
    expect(claimDecision({ partnerId: 'p1', confirmed: false }, 'p2', NOW)).toBe('ask');
  });
});

describe('claimed and confirmedBy', () => {
  test('a claim names the partner, unconfirmed; a confirmed claim of the same partner stays confirmed', () => {
    expect(claimed({}, 'p1', at(NOW))).toEqual({ partnerId: 'p1', claimedAt: at(NOW), confirmed: false });
    const held: VenueOwnerState = { partnerId: 'p1', claimedAt: at(NOW - 1000), confirmed: true };
    expect(claimed(held, 'p1', at(NOW))).toEqual(held);
    // a stale claim another partner takes over
    expect(
      claimed({ partnerId: 'p1', claimedAt: at(NOW - 2 * CLAIM_STALE_MS), confirmed: false }, 'p2', at(NOW)),
    ).toEqual({ partnerId: 'p2', claimedAt: at(NOW), confirmed: false });
  });

  test("only the claiming partner's confirmation counts", () => {
    const open: VenueOwnerState = { partnerId: 'p1', claimedAt: at(NOW), confirmed: false };
    expect(confirmedBy(open, 'p1')).toEqual({ ...open, confirmed: true });
    expect(confirmedBy(open, 'p2')).toEqual(open);
    expect(confirmedBy({}, 'p1')).toEqual({});
  });
});
