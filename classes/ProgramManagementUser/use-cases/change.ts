/**
 * updateUser (user_update) and updateUserStatus (user_status_update), each
 * an approval-gated change: refused while the user waits for an approval,
 * judged by the privilege rule (rules.ts privilegeRefusal) before the
 * workflow runs (so a refused change leaves no approval record), applied now
 * when the workflow approves it at once, held until approveUser otherwise.
 * Activation (and an email change) checks that no other user holds the email
 * (spec 3.3). A company user's change keeps the user in its company (403
 * 4021 before any approval), and the requester's company is recorded on the
 * change (additionalData.requesterCompanyId) for approveUser to check again.
 */
import { refuseWhilePending, requestGatedChange } from '../../_platform/gated-change';
import { userError } from '../errors';
import { applyUserUpdate, scopeProblems, statusMove } from '../rules';
import { USER_EVENTS, type ProgramManagementUserRecord, type UserEvent, type UserStatus } from '../types';
import type { UpdateUserInput, UpdateUserStatusInput } from '../../../schemas/ProgramManagementUser/inputs';
import {
  activeRoles,
  callerTenant,
  checkCompanyKept,
  checkPrivilege,
  CHANGE_CALLBACK,
  heldRoles,
  st,
  whilePending,
  type UserCtx,
} from './common';
import { applyUser, takesEmail } from './apply';
import { checkCompany, checkEmailFree } from './create';
import { problemsText } from '../../_platform/paging';

async function change(
  ctx: UserCtx<unknown>,
  event: UserEvent,
  requested: ProgramManagementUserRecord,
  changeData: Record<string, unknown>,
) {
  const s = st(ctx);
  const old = s.user;
  // the requester's company goes with the change: approveUser applies it as the approver, and checks it again
  const tenant = callerTenant(ctx);
  const additionalData = { ...changeData, ...(tenant ? { requesterCompanyId: tenant } : {}) };
  const gated = await requestGatedChange(ctx, {
    event,
    entityId: old.id,
    oldEntity: old,
    newEntity: requested,
    pendingApprovalId: s.pendingApproval?.id,
    whilePending: whilePending(old.id),
    approveCallback: CHANGE_CALLBACK,
    rejectCallback: CHANGE_CALLBACK,
    additionalData,
    ...((requested.companyId ?? old.companyId) ? { companyId: (requested.companyId ?? old.companyId)! } : {}),
  });
  if (gated.applied) {
    await applyUser(ctx, old, gated.entity, { event, approvalId: gated.approvalRecord.id, ...additionalData });
    return { user: s.user, pendingApproval: null, approval: gated.approval };
  }
  s.pendingApproval = { id: gated.approvalId, event, requestedStatus: (gated.newStatus ?? old.status) as UserStatus };
  return {
    user: s.user,
    pendingApproval: s.pendingApproval,
    approval: gated.approval,
    requestedUser: gated.workflow.simulatedApprovedState,
  };
}

export async function updateUser(ctx: UserCtx<UpdateUserInput>) {
  const s = st(ctx);
  const old = s.user;
  refuseWhilePending(s.pendingApproval?.id, whilePending(old.id));
  const input = ctx.request.body;
  const { next, changed } = applyUserUpdate(old, input, new Date().toISOString());
  if (!changed.length)
    throw userError('PM_USER_NO_CHANGE', `The update changes nothing on user ${old.id}`, { id: old.id });
  const problems = scopeProblems(next.type, next.companyId);
  if (problems.length) throw userError('PM_USER_INVALID_INPUT', problemsText(problems), { errors: problems });
  // a company user cannot make a user internal nor move it to another company (checkCompany(null) checks nothing)
  checkCompanyKept(ctx, next);
  if (takesEmail(old, next)) await checkEmailFree(ctx, next.email, old.id);
  if (next.companyId !== old.companyId) await checkCompany(ctx, next.companyId);
  // roles added must be active roles; those the user keeps are judged as they are now
  const added = next.roles.filter((r) => !old.roles.includes(r));
  const addedRoles = await activeRoles(ctx, added);
  const kept = await heldRoles(
    ctx,
    next.roles.filter((r) => old.roles.includes(r)),
  );
  const held = await heldRoles(ctx, old.roles);
  await checkPrivilege(ctx, { kind: 'update', old, next, grantedRoles: [...addedRoles, ...kept], heldRoles: held });
  return change(ctx, USER_EVENTS.update, next, { fields: changed });
}

export async function updateUserStatus(ctx: UserCtx<UpdateUserStatusInput>) {
  const s = st(ctx);
  const old = s.user;
  refuseWhilePending(s.pendingApproval?.id, whilePending(old.id));
  const { status, reason } = ctx.request.body;
  const move = statusMove(old.status, status);
  if (!move.ok)
    throw userError('PM_USER_NO_CHANGE', `User ${old.id}: ${move.reason}`, { id: old.id, status: old.status });
  const next: ProgramManagementUserRecord = { ...old, status: move.to, updatedAt: new Date().toISOString() };
  checkCompanyKept(ctx, next);
  const held = await heldRoles(ctx, old.roles);
  await checkPrivilege(ctx, { kind: 'status', old, next, grantedRoles: held, heldRoles: held });
  // activation validates email uniqueness (spec 3.3): an inactive user's address may have been given to another
  if (takesEmail(old, next)) await checkEmailFree(ctx, next.email, old.id);
  return change(ctx, USER_EVENTS.status, next, {
    fromStatus: old.status,
    toStatus: move.to,
    ...(reason ? { reason } : {}),
  });
}
