/**
 * The approval callback (approve and reject) of every tier event, settled
 * with settleGatedChange (classes/_platform/gated-change.ts). Approve applies
 * the patch (409 7015 when it no longer fits); reject keeps the tier, except
 * a rejected creation, which leaves the tier `inactive`. On an expired tier
 * the outcome is recorded and ignored. A callback of an approval the tier does
 * not wait for is 409 7014.
 */
import { settleGatedChange } from '../../_platform/gated-change';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { tierError } from '../errors';
import { transition } from '../status';
import type { TierState } from '../types';
import { applyChange, now, st, type TierCtx } from './common';

type Outcome = NonNullable<TierState['lastReview']>['outcome'];

export async function approve(ctx: TierCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const s = st(ctx);
  const before = s.tier;
  const settled = settleGatedChange(before, body, {
    pendingApprovalId: s.pendingApproval?.id,
    mismatch: (waiting) =>
      tierError(
        'TIER_APPROVAL_MISMATCH',
        `Approval ${body.approvalId} is not the one tier ${ctx.instanceId} waits for`,
        { pendingApprovalId: waiting },
      ),
  });
  // settleGatedChange refuses every callback but the pending approval's (no lastSettledApprovalId given)
  const pending = s.pendingApproval!;
  const info = {
    event: pending.event,
    approvalId: body.approvalId,
    action: body.action,
    reviewedBy: body.reviewedBy?.id ?? null,
  };
  let outcome: Outcome;
  if (before.status === 'expired') {
    s.pendingApproval = null;
    s.requestedRange = null;
    outcome = 'ignored_expired';
  } else if (settled.kind === 'conflict') {
    throw tierError(
      'TIER_APPROVAL_CONFLICT',
      `The approved change no longer applies to the entity: ${settled.problems.join('; ')}`,
      { problems: settled.problems },
    );
  } else if (settled.kind === 'approved') {
    await applyChange(ctx, before, settled.entity, info);
    outcome = 'applied';
  } else {
    s.pendingApproval = null;
    s.requestedRange = null;
    const move = pending.event === 'tier_create' ? transition(before.status, { type: 'reject_create' }) : null;
    if (move?.ok) await applyChange(ctx, before, { ...before, status: move.to, updatedAt: now() }, info);
    outcome = 'rejected';
  }
  s.lastReview = {
    approvalId: body.approvalId,
    event: pending.event,
    action: body.action,
    outcome,
    by: body.reviewedBy?.id,
    at: now(),
  };
  return { tier: s.tier, lastReview: s.lastReview };
}
