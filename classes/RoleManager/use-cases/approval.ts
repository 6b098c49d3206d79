/**
 * The approval callback of role_create, role_update and role_status_update
 * (approve and reject), settled with settleGatedChange
 * (classes/_platform/gated-change.ts). 409 9005 for an approval the role does
 * not wait for, 9006 when the approved patch no longer fits, 9001 when an
 * approved rename's name was taken meanwhile (the role keeps waiting).
 */
import { settleGatedChange } from '../../_platform/gated-change';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { entityOf } from '../rules';
import { roleError } from '../errors';
import { checkName, enqueueDeployment, findRole, logRoleChange, writable, type RoleCtx } from './common';

export async function approve(ctx: RoleCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const s = writable(ctx);
  const stored = findRole(Object.values(s.roles), body.entityId);
  const before = entityOf(stored);
  const settled = settleGatedChange(before, body, {
    pendingApprovalId: stored.pendingApprovalId,
    mismatch: (waiting) =>
      roleError('ROLE_APPROVAL_MISMATCH', `Approval ${body.approvalId} is not the one role '${stored.id}' waits for`, {
        pendingApprovalId: waiting,
      }),
  });
  const event = String(body.event);
  if (settled.kind === 'conflict') {
    throw roleError(
      'ROLE_APPROVAL_CONFLICT',
      `The approved change no longer applies to the entity: ${settled.problems.join('; ')}`,
      { problems: settled.problems },
    );
  }
  if (settled.kind !== 'approved') {
    // rejected (settleGatedChange refuses every callback but the pending approval's: no lastSettledApprovalId given)
    s.roles[stored.id] = { ...stored, pendingApprovalId: null };
    ctx.emit(event, { roleId: stored.id, approvalId: body.approvalId, approvalStatus: 'rejected' });
    return { role: s.roles[stored.id], applied: false, deploymentJobId: null };
  }
  const after = settled.entity;
  checkName(s.roles, after.name, stored.id);
  s.roles[stored.id] = { ...after, pendingApprovalId: null };
  await logRoleChange(ctx, stored.id, before, after, {
    event: body.event,
    approvalId: body.approvalId,
    action: body.action,
    reviewedBy: body.reviewedBy,
  });
  const deploymentJobId = await enqueueDeployment(ctx, event);
  ctx.emit(event, { roleId: stored.id, approvalId: body.approvalId, approvalStatus: 'approved' });
  return { role: s.roles[stored.id], applied: true, deploymentJobId };
}
