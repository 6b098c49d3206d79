/**
 * The overlap rule's truth, pure (README "Overlap rule"): per tier type, the
 * date ranges its tiers hold, kept by the TierSchedule class (one instance per
 * tier type, TierSchedule.class.ts) and never read from a listing.
 *
 * A tier publishes what it holds (its entry: ranges, name, status) under a
 * sequence number of its own (`scheduleSeq` in its state), which grows with
 * every change of the entry:
 *
 *  - a change that makes the tier hold more (a new tier, a re-activation, a
 *    date change of a live tier) first **claims** the new entry on the
 *    schedule: a WRITE, exclusive per tier type across every process, that
 *    refuses when another tier's held ranges intersect (409 7003), and records
 *    the claim otherwise. Only then does the tier commit.
 *  - every change of the entry is **settled** after the tier's commit, by a
 *    committed effect carrying the entry as committed: the schedule then holds
 *    exactly it.
 *
 * A tier's held ranges on the schedule are its settled ranges plus its claims
 * not settled yet, so between a claim and its settlement the schedule holds
 * more than the tier, never less. A claim whose tier never committed (its
 * handler failed after claiming, or lost its commit) is dropped once it is
 * older than any write can take to commit (CLAIM_STALE_MS), after asking the
 * tier what it holds (repairEntry).
 */
import { createHash } from 'node:crypto';
import { isLive } from './status';
import type { PendingApproval, Tier, TierStatus } from './types';

export interface DateRange {
  /** ISO 8601 instants in toISOString form (they compare as strings) */
  startDate: string;
  endDate: string;
}

/** What one tier holds on its type's schedule; name and status only describe it in a refusal. */
export interface ScheduleEntry {
  name: string;
  status: TierStatus;
  /** empty when the tier holds no range (inactive, expired) */
  ranges: DateRange[];
}

/** A claimed entry not settled yet: `seq` is the tier's sequence number it will commit under. */
export interface ScheduleClaim extends ScheduleEntry {
  seq: number;
  /** when the schedule recorded it (ISO 8601) */
  at: string;
}

/** A tier on the schedule: the entry last settled (seq 0: none yet) and its open claims. */
export interface ScheduledTier extends ScheduleEntry {
  seq: number;
  claims: ScheduleClaim[];
}

export interface TierScheduleState {
  tiers: Record<string, ScheduledTier>;
}

/** A tier's held range that intersects a requested one: the 409's details (`tiers`). */
export interface ScheduleConflict {
  id: string;
  name: string;
  status: TierStatus;
  startDate: string;
  endDate: string;
  /** held by a claim whose tier has not settled it yet */
  claimed: boolean;
  /** the claim's time, when claimed */
  claimedAt?: string;
}

/**
 * How long an unsettled claim is taken at its word. Longer than any write can
 * take from its claim to its commit: a handler's budget is at most 30 s, and
 * a commit needs the instance's lease, which lapses LEASE_TTL_MS after the
 * holder stops renewing it. Past this age a claim whose tier does not hold it
 * was never committed and never will be.
 */
export const CLAIM_STALE_MS = 5 * 60 * 1000;

/** Half-open ranges [startDate, endDate) intersect: a range ending when another starts does not. */
export function rangesOverlap(a: DateRange, b: DateRange): boolean {
  return a.startDate < b.endDate && b.startDate < a.endDate;
}

/** What the overlap rule needs of a tier's state. */
export interface TierHolding {
  readonly tier: Readonly<Pick<Tier, 'name' | 'status' | 'startDate' | 'endDate'>>;
  readonly pendingApproval: Readonly<Pick<PendingApproval, 'requestedStatus'>> | null;
  /** the dates a pending change asks for, when they differ from the tier's */
  readonly requestedRange?: Readonly<DateRange> | null;
}

/**
 * The ranges a tier holds: none once expired; otherwise its range while it is
 * live (pending or active) or an approval pending would make it live, and the
 * range a pending date change asks for, so that an approval never applies
 * dates another tier took meanwhile.
 */
export function heldRanges(s: TierHolding): DateRange[] {
  const t = s.tier;
  if (t.status === 'expired') return [];
  if (!isLive(t.status) && !isLive(s.pendingApproval?.requestedStatus)) return [];
  const ranges: DateRange[] = [{ startDate: t.startDate, endDate: t.endDate }];
  const asked = s.pendingApproval ? s.requestedRange : null;
  if (asked && (asked.startDate !== t.startDate || asked.endDate !== t.endDate))
    ranges.push({ startDate: asked.startDate, endDate: asked.endDate });
  return ranges;
}

/** The tier's entry on its type's schedule. */
export function scheduleEntryOf(s: TierHolding): ScheduleEntry {
  return { name: s.tier.name, status: s.tier.status, ranges: heldRanges(s) };
}

export function sameEntry(a: ScheduleEntry, b: ScheduleEntry): boolean {
  return (
    a.name === b.name &&
    a.status === b.status &&
    a.ranges.length === b.ranges.length &&
    a.ranges.every((r, i) => r.startDate === b.ranges[i].startDate && r.endDate === b.ranges[i].endDate)
  );
}

/** Does `after` hold a moment `before` does not? Then the change must claim before it commits. */
export function widens(before: readonly DateRange[], after: readonly DateRange[]): boolean {
  return after.some((r) => !before.some((b) => b.startDate <= r.startDate && r.endDate <= b.endDate));
}

/** Everything the schedule counts a tier as holding: its settled ranges and its open claims'. */
function holdings(t: ScheduledTier): { range: DateRange; claim?: ScheduleClaim }[] {
  return [
    ...t.ranges.map((range) => ({ range })),
    ...t.claims.flatMap((claim) => claim.ranges.map((range) => ({ range, claim }))),
  ];
}

/**
 * The other tiers whose held ranges intersect `ranges` (one conflict per
 * tier: a settled range before a claimed one), by start date.
 */
export function conflictsWith(
  schedule: TierScheduleState,
  tierId: string,
  ranges: readonly DateRange[],
): ScheduleConflict[] {
  const out: ScheduleConflict[] = [];
  for (const [id, t] of Object.entries(schedule.tiers)) {
    if (id === tierId) continue;
    const hit = holdings(t).find((h) => ranges.some((r) => rangesOverlap(h.range, r)));
    if (!hit) continue;
    const by = hit.claim ?? t;
    out.push({
      id,
      name: by.name,
      status: by.status,
      startDate: hit.range.startDate,
      endDate: hit.range.endDate,
      claimed: Boolean(hit.claim),
      ...(hit.claim ? { claimedAt: hit.claim.at } : {}),
    });
  }
  return out.sort((a, b) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id < b.id ? -1 : 1));
}

/**
 * Conflicts that rest on a stale claim alone (older than CLAIM_STALE_MS at
 * `nowMs`): their tiers are asked what they hold before the claim is refused.
 */
export function staleConflicts(conflicts: readonly ScheduleConflict[], nowMs: number): ScheduleConflict[] {
  return conflicts.filter(
    (c) => c.claimed && c.claimedAt !== undefined && nowMs - Date.parse(c.claimedAt) > CLAIM_STALE_MS,
  );
}

function emptyTier(entry: ScheduleEntry): ScheduledTier {
  return { name: entry.name, status: entry.status, ranges: [], seq: 0, claims: [] };
}

/**
 * Records a claim of `tierId` (after conflictsWith found none). A tier claims
 * the sequence number after the one it committed last, so an open claim with
 * the same or a higher number was made by a write of that tier that never
 * committed: it is replaced.
 */
export function recordClaim(schedule: TierScheduleState, tierId: string, claim: ScheduleClaim): void {
  const t = (schedule.tiers[tierId] ??= emptyTier(claim));
  t.claims = [...t.claims.filter((c) => c.seq < claim.seq), claim];
}

/**
 * Settles the entry a tier committed under `seq`: the tier holds exactly it,
 * and its claims up to `seq` are done. An older settlement than the one held
 * changes nothing (settlements of one tier arrive in commit order; this keeps
 * a repeated one harmless too).
 */
export function settleEntry(schedule: TierScheduleState, tierId: string, seq: number, entry: ScheduleEntry): void {
  const t = (schedule.tiers[tierId] ??= emptyTier(entry));
  if (seq < t.seq) return;
  t.seq = seq;
  t.name = entry.name;
  t.status = entry.status;
  t.ranges = entry.ranges.map((r) => ({ startDate: r.startDate, endDate: r.endDate }));
  t.claims = t.claims.filter((c) => c.seq > seq);
}

/**
 * What the tier itself says it holds, applied to its stale claims: `truth` is
 * its committed entry and sequence number, or null when no such tier exists.
 * Its committed entry is settled; a stale claim past it was never committed
 * and is dropped. Fresh claims stay: their writes may still commit. A tier
 * left holding nothing, with nothing settled, leaves the schedule.
 */
export function repairEntry(
  schedule: TierScheduleState,
  tierId: string,
  truth: { seq: number; entry: ScheduleEntry } | null,
  nowMs: number,
): void {
  const t = schedule.tiers[tierId];
  if (!t) return;
  if (truth) settleEntry(schedule, tierId, truth.seq, truth.entry);
  t.claims = t.claims.filter((c) => nowMs - Date.parse(c.at) <= CLAIM_STALE_MS);
  if (t.seq === 0 && !t.claims.length) delete schedule.tiers[tierId];
}

const INSTANCE_ID = /^[A-Za-z0-9_.@+\-=]{1,200}$/;

/** The TierSchedule instance of a tier type: its id (Setting's tier type ids are valid instance ids). */
export function scheduleInstanceId(tierTypeId: string): string {
  if (INSTANCE_ID.test(tierTypeId)) return tierTypeId;
  // an id Setting would refuse now (stored by an older release): a stable name of its own
  return `sha256-${createHash('sha256').update(tierTypeId, 'utf8').digest('hex')}`;
}
