/**
 * approveUser (the approval callback of every event; QUEUED_WRITE,
 * ApprovalManager only), settled by the platform's settleGatedChange:
 *  - approve applies the held change (a creation makes the user `active`),
 *    unless it takes an email another partner user holds now, or the patch
 *    no longer fits: then the user stops waiting, unchanged, and the answer
 *    says why (code 17109, lastReview.outcome `conflict`);
 *  - reject changes nothing, except a rejected creation, which leaves the
 *    user `inactive` (its email released).
 * Either way the user stops waiting; the same callback again (a redelivery)
 * changes nothing.
 */
import { settleGatedChange } from '../../_platform/gated-change';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { PartnerUserErrors, partnerUserError } from '../errors';
import { EMAIL_LOOKUP, takesEmail } from '../rules';
import { PARTNER_USER_EVENTS, type LastReview, type PartnerUserRecord } from '../types';
import { applyUser, now, st, type PartnerUserCtx } from './common';

function review(
  ctx: PartnerUserCtx<ApprovalCallbackBody>,
  event: string,
  outcome: LastReview['outcome'],
  reason?: string,
): LastReview {
  const body = ctx.request.body;
  const s = st(ctx);
  s.pendingApproval = null;
  s.lastSettledApprovalId = body.approvalId;
  s.lastReview = {
    approvalId: body.approvalId,
    event,
    action: body.action,
    outcome,
    ...(reason ? { reason } : {}),
    by: body.reviewedBy?.id ?? null,
    at: now(),
  };
  return s.lastReview;
}

export async function approveUser(ctx: PartnerUserCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const s = st(ctx);
  const before = s.user;
  const outcome = settleGatedChange(before, body, {
    pendingApprovalId: s.pendingApproval?.id,
    lastSettledApprovalId: s.lastSettledApprovalId,
    mismatch: (waiting) =>
      partnerUserError(
        'PARTNER_USER_APPROVAL_MISMATCH',
        `Approval ${body.approvalId} is not the one partner user ${before.id} waits for`,
        { waiting },
      ),
  });
  if (outcome.kind === 'settled') return { applied: false, outcome: 'settled', user: before };
  const { event, operation } = s.pendingApproval!;
  const info = {
    event,
    operation,
    approvalId: body.approvalId,
    action: body.action,
    reviewedBy: body.reviewedBy?.id ?? null,
  };
  const conflict = (reason: string) => {
    ctx.log.warn(
      { approvalId: body.approvalId, userId: before.id, reason },
      'approved partner user change not applied',
    );
    const lastReview = review(ctx, event, 'conflict', reason);
    return {
      applied: false,
      code: PartnerUserErrors.PARTNER_USER_APPROVAL_CONFLICT.code,
      reason,
      lastReview,
      user: before,
    };
  };
  if (outcome.kind === 'conflict') return conflict(outcome.problems.join('; '));
  if (outcome.kind === 'rejected') {
    const lastReview = review(ctx, event, 'rejected');
    if (event === PARTNER_USER_EVENTS.create)
      await applyUser(ctx, before, { ...before, status: 'inactive', updatedAt: now() }, info);
    return { applied: false, lastReview, user: s.user };
  }
  // spec 2.6 keeps updatedAt as a number: the time the approved change is applied
  const after: PartnerUserRecord = { ...outcome.entity, updatedAt: now() };
  if (takesEmail(before, after)) {
    const holder = await ctx.lookup.resolve(EMAIL_LOOKUP, after.email);
    if (holder && holder !== after.id) return conflict('another partner user holds the email now');
  }
  const lastReview = review(ctx, event, 'applied');
  await applyUser(ctx, before, after, info);
  return { applied: true, lastReview, user: s.user };
}
