/**
 * A change of an existing content (content_update, content_status_update)
 * through the platform's approval-gated change: refused while the content
 * waits for an approval, applied now when the workflow approves it at once
 * (and audit-logged), otherwise held until approveContent settles it.
 */
import { requestGatedChange } from '../../_platform/gated-change';
import { fromEntity, toEntity } from '../rules';
import type { ContentManagerState, ContentRecord } from '../types';
import { APPROVAL_CALLBACK, logContent, whilePending, type ContentCtx } from './common';

export async function changeContent(
  ctx: ContentCtx<unknown>,
  state: ContentManagerState,
  event: string,
  old: ContentRecord,
  requested: ContentRecord,
  additionalData: Record<string, unknown> = {},
) {
  const change = await requestGatedChange(ctx, {
    event,
    entityId: old.id,
    oldEntity: toEntity(old),
    newEntity: toEntity(requested),
    pendingApprovalId: old.pendingApprovalId,
    whilePending: whilePending(old.id),
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
    additionalData,
  });
  if (change.applied) {
    const applied = fromEntity(change.entity, {
      pendingApprovalId: null,
      lastSettledApprovalId: old.lastSettledApprovalId,
    });
    state.contents[old.id] = applied;
    await logContent(ctx, old, applied, { event, approvalId: change.approvalRecord.id, ...additionalData });
  } else {
    state.contents[old.id] = { ...old, pendingApprovalId: change.approvalId };
  }
  return { id: old.id, content: state.contents[old.id], approval: change.approval, newStatus: change.newStatus };
}
