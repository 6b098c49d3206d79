/** The overlap rule's index, pure (classes/Tier/schedule.ts): what a tier holds, claims, settlements, stale claims. */
import { normalizeDate } from '../../classes/Tier/rules';
import {
  CLAIM_STALE_MS,
  conflictsWith,
  heldRanges,
  rangesOverlap,
  recordClaim,
  repairEntry,
  sameEntry,
  scheduleEntryOf,
  scheduleInstanceId,
  settleEntry,
  staleConflicts,
  widens,
  type DateRange,
  type ScheduleEntry,
  type TierHolding,
  type TierScheduleState,
} from '../../classes/Tier/schedule';
import type { TierStatus } from '../../classes/Tier/types';

const r = (startDate: string, endDate: string): DateRange => ({
  startDate: normalizeDate(startDate)!,
  endDate: normalizeDate(endDate)!,
});
const YEAR_2030 = r('2030-01-01', '2031-01-01');

function holding(status: TierStatus, extra: Partial<TierHolding> = {}): TierHolding {
  return { tier: { name: 'Gold', status, ...YEAR_2030 }, pendingApproval: null, ...extra };
}

const entry = (ranges: DateRange[], status: TierStatus = 'active', name = 'Gold'): ScheduleEntry => ({
  name,
  status,
  ranges,
});
const at = (ms: number) => new Date(ms).toISOString();
const NOW = Date.parse('2029-06-01T12:00:00.000Z');

describe('rangesOverlap: half-open [startDate, endDate)', () => {
  test.each([
    ['2030-01-01', '2030-07-01', '2030-06-01', '2031-01-01', true],
    ['2030-01-01', '2030-07-01', '2030-07-01', '2031-01-01', false], // touching ranges do not overlap
    ['2030-01-01', '2031-01-01', '2030-03-01', '2030-04-01', true], // contained
    ['2030-01-01', '2030-02-01', '2030-03-01', '2030-04-01', false],
  ])('[%s, %s) and [%s, %s): %s', (a1, a2, b1, b2, overlap) => {
    expect(rangesOverlap(r(a1, a2), r(b1, b2))).toBe(overlap);
    expect(rangesOverlap(r(b1, b2), r(a1, a2))).toBe(overlap);
  });
});

describe('what a tier holds', () => {
  test.each([
    ['pending', null, [YEAR_2030]],
    ['active', null, [YEAR_2030]],
    ['inactive', null, []],
    ['expired', null, []],
    ['inactive', 'active', [YEAR_2030]], // a waiting re-activation holds the range
    ['inactive', 'pending', [YEAR_2030]],
    ['active', 'inactive', [YEAR_2030]], // live until the deactivation is approved
    ['expired', 'active', []], // expired is final
  ] as const)('status %s, approval asking %s: %j', (status, requested, ranges) => {
    const pendingApproval = requested ? { requestedStatus: requested } : null;
    expect(heldRanges(holding(status, { pendingApproval }))).toEqual(ranges);
  });

  test('a pending date change holds the dates asked for as well, only while the approval is pending', () => {
    const asked = r('2030-06-01', '2031-06-01');
    expect(
      heldRanges(holding('active', { pendingApproval: { requestedStatus: 'active' }, requestedRange: asked })),
    ).toEqual([YEAR_2030, asked]);
    expect(heldRanges(holding('active', { pendingApproval: null, requestedRange: asked }))).toEqual([YEAR_2030]);
    expect(
      heldRanges(holding('active', { pendingApproval: { requestedStatus: 'active' }, requestedRange: YEAR_2030 })),
    ).toEqual([YEAR_2030]);
    expect(
      heldRanges(holding('inactive', { pendingApproval: { requestedStatus: 'inactive' }, requestedRange: asked })),
    ).toEqual([]);
  });

  test('the entry names the tier and its status; sameEntry compares all of it', () => {
    const e = scheduleEntryOf(holding('active'));
    expect(e).toEqual({ name: 'Gold', status: 'active', ranges: [YEAR_2030] });
    expect(sameEntry(e, entry([YEAR_2030]))).toBe(true);
    expect(sameEntry(e, entry([YEAR_2030], 'pending'))).toBe(false);
    expect(sameEntry(e, entry([YEAR_2030], 'active', 'Silver'))).toBe(false);
    expect(sameEntry(e, entry([r('2030-01-01', '2030-12-31')]))).toBe(false);
    expect(sameEntry(e, entry([]))).toBe(false);
  });

  test('widens: a change must claim when it holds a moment it did not', () => {
    expect(widens([], [YEAR_2030])).toBe(true);
    expect(widens([YEAR_2030], [YEAR_2030])).toBe(false);
    expect(widens([YEAR_2030], [r('2030-03-01', '2030-04-01')])).toBe(false);
    expect(widens([YEAR_2030], [r('2030-06-01', '2031-06-01')])).toBe(true);
    expect(widens([YEAR_2030], [])).toBe(false);
    expect(
      widens([r('2030-01-01', '2030-07-01'), r('2030-07-01', '2031-01-01')], [r('2030-02-01', '2030-03-01')]),
    ).toBe(false);
  });
});

describe('the schedule of a tier type', () => {
  function schedule(): TierScheduleState {
    return { tiers: {} };
  }

  test('settled and claimed ranges of other tiers conflict; the tier itself and touching ranges do not', () => {
    const s = schedule();
    settleEntry(s, 'a', 1, entry([r('2030-01-01', '2030-07-01')]));
    recordClaim(s, 'b', { ...entry([r('2030-07-01', '2031-01-01')], 'pending', 'Silver'), seq: 1, at: at(NOW) });
    expect(conflictsWith(s, 'a', [r('2030-01-01', '2030-07-01')])).toEqual([]);
    expect(conflictsWith(s, 'c', [r('2029-01-01', '2030-01-01')])).toEqual([]);
    expect(conflictsWith(s, 'c', [r('2030-06-01', '2030-08-01')])).toEqual([
      {
        id: 'a',
        name: 'Gold',
        status: 'active',
        startDate: r('2030-01-01', '2030-07-01').startDate,
        endDate: r('2030-01-01', '2030-07-01').endDate,
        claimed: false,
      },
      {
        id: 'b',
        name: 'Silver',
        status: 'pending',
        ...r('2030-07-01', '2031-01-01'),
        claimed: true,
        claimedAt: at(NOW),
      },
    ]);
    // a tier holding nothing never conflicts
    settleEntry(s, 'a', 2, entry([], 'inactive'));
    expect(conflictsWith(s, 'c', [r('2030-01-01', '2030-02-01')])).toEqual([]);
  });

  test('a settlement replaces what the tier held and closes its claims up to its number; an older one changes nothing', () => {
    const s = schedule();
    recordClaim(s, 'a', { ...entry([YEAR_2030]), seq: 1, at: at(NOW) });
    recordClaim(s, 'a', { ...entry([YEAR_2030, r('2031-01-01', '2032-01-01')]), seq: 2, at: at(NOW) });
    settleEntry(s, 'a', 1, entry([YEAR_2030]));
    // claim 2 is still open: the tier may commit it
    expect(s.tiers.a!.claims.map((c) => c.seq)).toEqual([2]);
    expect(conflictsWith(s, 'x', [r('2031-03-01', '2031-04-01')]).map((c) => c.id)).toEqual(['a']);
    settleEntry(s, 'a', 2, entry([r('2031-01-01', '2032-01-01')]));
    expect(s.tiers.a).toMatchObject({ seq: 2, ranges: [r('2031-01-01', '2032-01-01')], claims: [] });
    settleEntry(s, 'a', 1, entry([YEAR_2030]));
    expect(s.tiers.a).toMatchObject({ seq: 2, ranges: [r('2031-01-01', '2032-01-01')] });
    // the same settlement twice: harmless
    settleEntry(s, 'a', 2, entry([r('2031-01-01', '2032-01-01')]));
    expect(s.tiers.a!.ranges).toHaveLength(1);
  });

  test('a claim under a number already claimed (a write that never committed) replaces that claim', () => {
    const s = schedule();
    recordClaim(s, 'a', { ...entry([YEAR_2030]), seq: 3, at: at(NOW) });
    recordClaim(s, 'a', { ...entry([r('2035-01-01', '2036-01-01')]), seq: 3, at: at(NOW + 1000) });
    expect(s.tiers.a!.claims).toEqual([{ ...entry([r('2035-01-01', '2036-01-01')]), seq: 3, at: at(NOW + 1000) }]);
    expect(conflictsWith(s, 'x', [YEAR_2030])).toEqual([]);
  });

  test('only claims older than CLAIM_STALE_MS are stale', () => {
    const s = schedule();
    recordClaim(s, 'old', { ...entry([r('2030-01-01', '2030-02-01')]), seq: 1, at: at(NOW - CLAIM_STALE_MS - 1) });
    recordClaim(s, 'fresh', { ...entry([r('2030-02-01', '2030-03-01')]), seq: 1, at: at(NOW - CLAIM_STALE_MS + 1000) });
    settleEntry(s, 'settled', 1, entry([r('2030-03-01', '2030-04-01')]));
    const conflicts = conflictsWith(s, 'x', [YEAR_2030]);
    expect(conflicts.map((c) => c.id)).toEqual(['old', 'fresh', 'settled']);
    expect(staleConflicts(conflicts, NOW).map((c) => c.id)).toEqual(['old']);
  });

  test('repair: a stale claim of a tier that does not exist is dropped, and the tier with it', () => {
    const s = schedule();
    recordClaim(s, 'ghost', { ...entry([YEAR_2030]), seq: 1, at: at(NOW - CLAIM_STALE_MS - 1) });
    repairEntry(s, 'ghost', null, NOW);
    expect(s.tiers).toEqual({});
    expect(conflictsWith(s, 'x', [YEAR_2030])).toEqual([]);
  });

  test('repair: the tier settles what it committed; its stale claim past that is dropped, a fresh one stays', () => {
    const s = schedule();
    settleEntry(s, 'a', 1, entry([r('2030-01-01', '2030-02-01')]));
    recordClaim(s, 'a', { ...entry([YEAR_2030]), seq: 2, at: at(NOW - CLAIM_STALE_MS - 1) });
    repairEntry(s, 'a', { seq: 1, entry: entry([r('2030-01-01', '2030-02-01')]) }, NOW);
    expect(s.tiers.a).toMatchObject({ seq: 1, claims: [] });
    expect(conflictsWith(s, 'x', [r('2030-06-01', '2030-07-01')])).toEqual([]);

    // committed, settlement still on its way: the tier's answer settles it
    recordClaim(s, 'a', { ...entry([YEAR_2030]), seq: 2, at: at(NOW - CLAIM_STALE_MS - 1) });
    repairEntry(s, 'a', { seq: 2, entry: entry([YEAR_2030]) }, NOW);
    expect(s.tiers.a).toMatchObject({ seq: 2, ranges: [YEAR_2030], claims: [] });

    recordClaim(s, 'a', { ...entry([YEAR_2030, r('2031-01-01', '2032-01-01')]), seq: 3, at: at(NOW - 1000) });
    repairEntry(s, 'a', { seq: 2, entry: entry([YEAR_2030]) }, NOW);
    expect(s.tiers.a!.claims.map((c) => c.seq)).toEqual([3]);
  });
});

test('scheduleInstanceId: a tier type id as it is when it is a valid instance id, else a stable digest', () => {
  expect(scheduleInstanceId('tt-base_1')).toBe('tt-base_1');
  const odd = scheduleInstanceId('tier type/1');
  expect(odd).toMatch(/^sha256-[0-9a-f]{64}$/);
  expect(scheduleInstanceId('tier type/1')).toBe(odd);
  expect(scheduleInstanceId('tier type/2')).not.toBe(odd);
});
