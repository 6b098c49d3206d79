/**
 * approveContent, the approval callback (approve and reject) of every
 * ContentManager event, settled by the platform's settleGatedChange.
 * Approve: the approved patch is applied (updatedAt = now) and audit-logged
 * under the reviewer. Reject: nothing changes, except that a content whose
 * creation is rejected becomes `inactive`. A patch that no longer fits is not
 * applied: the content stops waiting and the answer says why (18008). The
 * same callback again (a redelivered job) changes nothing.
 */
import { settleGatedChange } from '../../_platform/gated-change';
import { ownEntry } from '../../_platform/records';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { CONTENT_PATCH_CONFLICT, contentError } from '../errors';
import { afterRejection, fromEntity, toEntity } from '../rules';
import type { ContentRecord } from '../types';
import { logContent, now, writable, type ContentCtx } from './common';

export async function approveContent(ctx: ContentCtx<ApprovalCallbackBody>) {
  const state = writable(ctx);
  const body = ctx.request.body;
  const mismatch = (waiting: string | null) =>
    contentError(
      'CONTENT_APPROVAL_MISMATCH',
      `Approval ${body.approvalId} is not the one content '${body.entityId}' waits for`,
      { id: body.entityId, waiting },
    );
  const current = ownEntry(state.contents, body.entityId);
  if (!current) throw mismatch(null);
  const outcome = settleGatedChange(toEntity(current), body, {
    pendingApprovalId: current.pendingApprovalId,
    lastSettledApprovalId: current.lastSettledApprovalId,
    mismatch,
  });
  if (outcome.kind === 'settled')
    return { applied: false, action: body.action, outcome: 'settled', id: current.id, content: current };

  const released: ContentRecord = { ...current, pendingApprovalId: null, lastSettledApprovalId: body.approvalId };
  state.contents[current.id] = released;
  if (outcome.kind === 'conflict') {
    ctx.log.warn(
      { approvalId: body.approvalId, contentId: current.id, problems: outcome.problems },
      'approved content change not applied',
    );
    return {
      applied: false,
      action: body.action,
      outcome: 'conflict',
      code: CONTENT_PATCH_CONFLICT,
      problems: outcome.problems,
      id: current.id,
      content: released,
    };
  }
  const next =
    outcome.kind === 'approved'
      ? fromEntity(outcome.entity, { pendingApprovalId: null, lastSettledApprovalId: body.approvalId })
      : afterRejection(released, body.event, now());
  if (next === released)
    return { applied: false, action: body.action, outcome: 'rejected', id: current.id, content: released };
  state.contents[current.id] = next;
  await logContent(ctx, current, next, { event: body.event, approvalId: body.approvalId, action: body.action });
  return {
    applied: true,
    action: body.action,
    outcome: outcome.kind === 'approved' ? 'applied' : 'rejected',
    id: current.id,
    content: next,
  };
}
