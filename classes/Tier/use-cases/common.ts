/**
 * What Tier's use cases share: the handler context, the answer of a change,
 * the guards, the expiry task, applying a change, the approval-gated request
 * (classes/_platform/gated-change.ts) and the checks against Setting. The
 * overlap rule is in schedule.ts (TierSchedule), never a listing.
 */
import type { Ctx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { requestGatedChange, type GatedChange } from '../../_platform/gated-change';
import { delayUntil } from '../rules';
import { conditionsProblems } from '../../_platform/eligibility';
import { tierError } from '../errors';
import { getPaymentPeriods } from '../settings-client';
import type { EligibilityRule, Tier as TierRecord, TierClassState, TierEvent, TierState, TierStatus } from '../types';
import { problemsText } from '../../_platform/paging';

/** a Tier handler's context: the tier's state, and the method's body `I` */
export type TierCtx<I = Record<string, never>> = Ctx<TierClassState, I>;

/** the approve and reject callback of every tier event */
export const APPROVE = 'approve';

export function st(ctx: TierCtx<unknown>): TierState {
  return ctx.state.private;
}

export function now(): string {
  return new Date().toISOString();
}

/** The answer of every change: the tier as it is now, the approval, and (when waiting) what it becomes once approved. */
export function answer(ctx: TierCtx<unknown>, change: GatedChange<TierRecord>, extra: Record<string, unknown> = {}) {
  const s = st(ctx);
  return {
    tier: s.tier,
    pendingApproval: s.pendingApproval,
    approval: change.approval,
    ...(change.applied ? {} : { requestedTier: change.workflow.simulatedApprovedState }),
    ...extra,
  };
}

/** 409 7005: the tier waits for an approval (details: the pending approval). */
function whilePending(s: TierState) {
  return (approvalId: string) =>
    tierError(
      'TIER_APPROVAL_PENDING',
      `Tier ${s.tier.id} waits for approval ${approvalId} (${s.pendingApproval?.event})`,
      {
        pendingApproval: s.pendingApproval,
      },
    );
}

/** Changes are refused once the tier has expired and while an approval is pending. */
export function guard(ctx: TierCtx<unknown>): void {
  const s = st(ctx);
  if (s.tier.status === 'expired')
    throw tierError('TIER_EXPIRED', `Tier ${s.tier.id} has expired; expired tiers cannot change`);
  if (s.pendingApproval) throw whilePending(s)(s.pendingApproval.id);
}

/** The expiry task: one outstanding `expire` runs no later than endDate (README "Expiry"). */
export function ensureExpiry(ctx: TierCtx<unknown>): void {
  const s = st(ctx);
  const t = s.tier;
  if (t.status === 'expired') return;
  if (s.expiryCheckAt && s.expiryCheckAt <= t.endDate) return;
  ctx.schedule({ method: 'expire', delaySeconds: delayUntil(t.endDate, Date.now()), body: {} });
  s.expiryCheckAt = t.endDate;
}

/** The audit entry of a tier change (entity type `tier`). */
export async function logTierChange(
  ctx: TierCtx<unknown>,
  before: TierRecord | null,
  after: TierRecord,
  additionalData: Record<string, unknown>,
): Promise<void> {
  await logChange(ctx, {
    entityType: 'tier',
    entityId: after.id,
    before,
    after,
    additionalData,
  });
}

/** Applies a committed change: state, expiry task, audit log. */
export async function applyChange(
  ctx: TierCtx<unknown>,
  before: TierRecord | null,
  after: TierRecord,
  additionalData: Record<string, unknown>,
): Promise<void> {
  const s = st(ctx);
  s.tier = after;
  s.pendingApproval = null;
  s.requestedRange = null;
  ensureExpiry(ctx);
  await logTierChange(ctx, before, after, additionalData);
}

/**
 * The approval-gated change of an existing tier: refused while an approval is
 * pending; auto approvals apply now, manual ones wait for `approve`.
 */
export async function requestChange(
  ctx: TierCtx<unknown>,
  event: TierEvent,
  requested: TierRecord,
  additionalData: Record<string, unknown> = {},
): Promise<GatedChange<TierRecord>> {
  const s = st(ctx);
  const old = s.tier;
  const change = await requestGatedChange(ctx, {
    event,
    entityId: old.id,
    oldEntity: old,
    newEntity: requested,
    approveCallback: APPROVE,
    rejectCallback: APPROVE,
    additionalData,
    pendingApprovalId: s.pendingApproval?.id,
    whilePending: whilePending(s),
  });
  if (change.applied) {
    await applyChange(ctx, old, change.entity, { event, approvalId: change.approvalRecord.id, ...additionalData });
  } else {
    s.pendingApproval = {
      id: change.approvalId,
      event,
      requestedStatus: (change.newStatus ?? old.status) as TierStatus,
    };
    // the dates asked for are held until the review (README "Overlap rule")
    const moved = requested.startDate !== old.startDate || requested.endDate !== old.endDate;
    s.requestedRange = moved ? { startDate: requested.startDate, endDate: requested.endDate } : null;
  }
  return change;
}

/** The approval-gated creation: the new tier's state and its approval (a tier waiting for approval exists, `pending`). */
export async function requestCreation(
  ctx: TierCtx<unknown>,
  tier: TierRecord,
  additionalData: Record<string, unknown>,
): Promise<GatedChange<TierRecord>> {
  const event: TierEvent = 'tier_create';
  const change = await requestGatedChange(ctx, {
    event,
    entityId: tier.id,
    oldEntity: null,
    newEntity: tier,
    approveCallback: APPROVE,
    rejectCallback: APPROVE,
    additionalData,
    pendingApprovalId: null,
    whilePending: whilePending(st(ctx)),
  });
  const s = st(ctx);
  s.expiryCheckAt = null;
  s.pendingApproval = null;
  if (change.applied) {
    await applyChange(ctx, null, change.entity, { event, approvalId: change.approvalRecord.id, ...additionalData });
  } else {
    await applyChange(ctx, null, tier, {
      event,
      approvalId: change.approvalId,
      approvalStatus: 'pending',
      ...additionalData,
    });
    s.pendingApproval = { id: change.approvalId, event, requestedStatus: (change.newStatus ?? 'active') as TierStatus };
  }
  return change;
}

/** Conditions against the definitions, payment periods against the Setting class. */
export async function validateRules(
  ctx: TierCtx<unknown>,
  rules: { conditions?: EligibilityRule['conditions']; paymentPeriod?: string }[],
  fieldPrefix: (i: number) => string,
): Promise<void> {
  const problems = rules.flatMap((r, i) => conditionsProblems(r.conditions ?? [], `${fieldPrefix(i)}conditions`));
  if (problems.length)
    throw tierError('TIER_INVALID_CONDITION', `Invalid eligibility conditions: ${problemsText(problems)}`, {
      errors: problems,
    });
  const needed = [...new Set(rules.map((r) => r.paymentPeriod).filter((p): p is string => typeof p === 'string'))];
  if (!needed.length) return;
  const periods = await getPaymentPeriods(ctx);
  const known = new Set(periods.map((p) => p.key));
  const unknown = needed.filter((k) => !known.has(k));
  if (unknown.length) {
    throw tierError('TIER_INVALID_PAYMENT_PERIOD', `Payment period(s) ${unknown.join(', ')} are not configured`, {
      unknown,
      allowed: [...known],
    });
  }
}
