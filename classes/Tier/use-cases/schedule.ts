/**
 * The overlap rule through the TierSchedule class (rules in ../schedule.ts,
 * README "Overlap rule"): what a Tier write publishes, and the handlers of
 * the schedule itself (claim, settle) and of the tier it asks (scheduleEntry).
 */
import { client, isUnknownInstance, type Ctx, type ReadCtx, type StateOf } from '../../../runtime';
import { tierError } from '../errors';
import {
  conflictsWith,
  recordClaim,
  repairEntry,
  sameEntry,
  scheduleEntryOf,
  scheduleInstanceId,
  settleEntry,
  staleConflicts,
  widens,
  type ScheduleEntry,
  type TierScheduleState,
} from '../schedule';
import type { TierClassState } from '../types';
import { st, type TierCtx } from './common';

export const SCHEDULE_CLASS = 'TierSchedule';

/** claim's and settle's body: the tier, the sequence number its change commits under, and its entry */
export interface ScheduleBody {
  tierId: string;
  /** named in a refusal */
  tierTypeId: string;
  seq: number;
  entry: ScheduleEntry;
}

/** the TierSchedule class's state (`@ActorClass<TierScheduleClassState>`): private holds the schedule */
export type TierScheduleClassState = StateOf<TierScheduleState>;

type ScheduleCtx<I> = Ctx<TierScheduleClassState, I>;

/** What a tier answers the schedule: its committed entry and sequence number (0: never published). */
export function scheduleEntry(ctx: ReadCtx<TierClassState, Record<string, never>>) {
  const s = ctx.state.private;
  return { seq: s.scheduleSeq ?? 0, entry: scheduleEntryOf(s) };
}

/** the schedule's own methods and the tier's, typed from their handlers (the class files import this module) */
type Schedules = abstract new () => { claim: typeof claim; settle: typeof settle };
type Tiers = abstract new () => { scheduleEntry: typeof scheduleEntry };

/** What the tier held when the write began (null: no tier yet). */
export function scheduleBefore(ctx: TierCtx<unknown>): ScheduleEntry | null {
  const s = st(ctx);
  return s.tier ? scheduleEntryOf(s) : null;
}

/**
 * After a Tier write: when the tier's entry changed, a change that holds more
 * claims it on the schedule now (409 7003 when another tier holds part of it;
 * nothing of this write commits then), and every change settles it once the
 * tier has committed (a committed effect). A tier that never published (made
 * before the schedule kept the rule) publishes all it holds.
 */
export async function publishSchedule(ctx: TierCtx<unknown>, before: ScheduleEntry | null): Promise<void> {
  const s = st(ctx);
  if (!s.tier) return;
  const after = scheduleEntryOf(s);
  const published = s.scheduleSeq !== undefined && before !== null;
  if (published && sameEntry(before, after)) return;
  const seq = (s.scheduleSeq ?? 0) + 1;
  const instanceId = scheduleInstanceId(s.tier.tierType.id);
  const body: ScheduleBody = { tierId: s.tier.id, tierTypeId: s.tier.tierType.id, seq, entry: after };
  if (widens(published ? before.ranges : [], after.ranges))
    await client<Schedules>(ctx, SCHEDULE_CLASS).claim(instanceId, body);
  s.scheduleSeq = seq;
  await ctx.effect({ classId: SCHEDULE_CLASS, method: 'settle', instanceId, body });
}

/** Runs a Tier write and publishes what it changed of the tier's entry. */
export async function withSchedule<T>(ctx: TierCtx<unknown>, write: () => Promise<T> | T): Promise<T> {
  const before = scheduleBefore(ctx);
  const result = await write();
  await publishSchedule(ctx, before);
  return result;
}

function scheduleOf(ctx: ScheduleCtx<unknown>): TierScheduleState {
  const p = ctx.state.private;
  p.tiers ??= {};
  return p;
}

/** The tier's committed entry, or null when there is no such tier. */
async function holdingOf(
  ctx: ScheduleCtx<unknown>,
  tierId: string,
): Promise<{ seq: number; entry: ScheduleEntry } | null> {
  try {
    const answer = await client<Tiers>(ctx, 'Tier').scheduleEntry(tierId);
    return {
      seq: answer.seq,
      entry: {
        name: answer.entry.name,
        status: answer.entry.status,
        ranges: answer.entry.ranges.map((r) => ({ ...r })),
      },
    };
  } catch (err) {
    if (isUnknownInstance(err)) return null;
    throw err;
  }
}

/**
 * TierSchedule.claim: refuses (409 7003, details `tiers`) when another tier
 * holds part of the entry's ranges, after asking the tiers behind stale
 * claims what they hold; records the claim otherwise. Exclusive per tier type
 * across processes, so of two writes claiming intersecting ranges the second
 * sees the first's claim.
 */
export async function claim(ctx: ScheduleCtx<ScheduleBody>) {
  const { tierId, tierTypeId, seq, entry } = ctx.request.body;
  const schedule = scheduleOf(ctx);
  let conflicts = conflictsWith(schedule, tierId, entry.ranges);
  const stale = staleConflicts(conflicts, Date.now());
  if (stale.length) {
    for (const c of stale) repairEntry(schedule, c.id, await holdingOf(ctx, c.id), Date.now());
    conflicts = conflictsWith(schedule, tierId, entry.ranges);
  }
  if (conflicts.length) {
    const tiers = conflicts.map((c) => ({
      id: c.id,
      name: c.name,
      status: c.status,
      startDate: c.startDate,
      endDate: c.endDate,
    }));
    throw tierError(
      'TIER_OVERLAP',
      `The date range overlaps ${tiers.length} other tier(s) of tier type ${tierTypeId}`,
      { tiers },
    );
  }
  recordClaim(schedule, tierId, { ...entry, seq, at: new Date().toISOString() });
  return { claimed: true };
}

/** TierSchedule.settle, the committed effect of a tier's change: the tier now holds exactly this entry. */
export function settle(ctx: ScheduleCtx<ScheduleBody>) {
  const { tierId, seq, entry } = ctx.request.body;
  settleEntry(scheduleOf(ctx), tierId, seq, entry);
  return { settled: true };
}
