/**
 * approve, the approval callback (approve and reject) of both SystemEmail
 * events, settled by the platform's settleGatedChange. Approve: the approved
 * patch is applied (updatedAt = now) and audit-logged under the reviewer.
 * Reject: the template stays as it was. Either way it stops waiting. A patch
 * that no longer fits (it cannot, while the template refuses changes as it
 * waits, but an operator's setState could) is not applied: the template stops
 * waiting and the answer says why. Every settled callback is recorded as
 * `lastReview`; the same callback again (a redelivery of lastReview's
 * approval) changes nothing.
 */
import { settleGatedChange } from '../../_platform/gated-change';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { systemEmailError } from '../errors';
import type { LastReview } from '../types';
import { logTemplate, now, type SystemEmailCtx } from './common';

export async function approve(ctx: SystemEmailCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const s = ctx.state.private;
  const before = s.template;
  const outcome = settleGatedChange(before, body, {
    pendingApprovalId: s.pendingApproval?.id,
    lastSettledApprovalId: s.lastReview?.approvalId,
    mismatch: (waiting) =>
      systemEmailError(
        'SYSTEM_EMAIL_APPROVAL_MISMATCH',
        `Approval ${body.approvalId} is not the one template ${before.templateId} waits for`,
        { waiting },
      ),
  });
  if (outcome.kind === 'settled') return { applied: false, action: body.action, outcome: 'settled', template: before };

  const event = s.pendingApproval!.event;
  s.pendingApproval = null;
  const review = (result: LastReview['outcome']): LastReview => ({
    approvalId: body.approvalId,
    event,
    action: body.action,
    outcome: result,
    by: body.reviewedBy?.id ?? null,
    at: now(),
  });
  if (outcome.kind === 'conflict') {
    ctx.log.warn(
      { approvalId: body.approvalId, templateId: before.templateId, problems: outcome.problems },
      'approved template change not applied',
    );
    s.lastReview = review('conflict');
    return { applied: false, action: body.action, outcome: 'conflict', problems: outcome.problems, template: before };
  }
  if (outcome.kind === 'rejected') {
    s.lastReview = review('rejected');
    return { applied: false, action: body.action, outcome: 'rejected', template: before };
  }
  s.template = outcome.entity;
  s.lastReview = review('applied');
  await logTemplate(ctx, before, outcome.entity, {
    event,
    approvalId: body.approvalId,
    action: body.action,
    reviewedBy: body.reviewedBy?.id ?? null,
  });
  return { applied: true, action: body.action, outcome: 'applied', template: outcome.entity };
}
