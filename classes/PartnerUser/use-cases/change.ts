/**
 * updateUser (user_update), updateStatus (user_status_update), and the
 * approval-gated change every change of an existing user goes through
 * (addVenues and removeVenues are user_update too): refused while the user
 * waits for an approval, judged before the workflow runs (so a refused change
 * leaves no approval record), applied now when the workflow approves it at
 * once, held until approveUser otherwise. A change that takes an email
 * (a new one, or activation of an inactive user) checks nobody holds it.
 */
import { refuseWhilePending, requestGatedChange } from '../../_platform/gated-change';
import { partnerUserError } from '../errors';
import { membershipProblems, replaceUser, statusMove, takesEmail } from '../rules';
import { PARTNER_USER_EVENTS, type PartnerUserEvent, type PartnerUserRecord, type PartnerUserStatus } from '../types';
import type { UpdateStatusInput, UpdateUserInput } from '../../../schemas/PartnerUser/inputs';
import { actorId, applyUser, CALLBACK, checkEmailFree, now, st, whilePending, type PartnerUserCtx } from './common';
import { checkReferences } from './partners';
import { problemsText } from '../../_platform/paging';

/** 409 17103 when the user waits for an approval (before anything else is judged). */
export function guard(ctx: PartnerUserCtx<unknown>): void {
  const s = st(ctx);
  refuseWhilePending(s.pendingApproval?.id, whilePending(s.user.id));
}

/** Runs the workflow of `event` for `requested`; applies it now or holds it. */
export async function requestChange(
  ctx: PartnerUserCtx<unknown>,
  event: PartnerUserEvent,
  operation: string,
  requested: PartnerUserRecord,
  additionalData: Record<string, unknown>,
) {
  const s = st(ctx);
  const old = s.user;
  const gated = await requestGatedChange(ctx, {
    event,
    entityId: old.id,
    oldEntity: old,
    newEntity: requested,
    pendingApprovalId: s.pendingApproval?.id,
    whilePending: whilePending(old.id),
    approveCallback: CALLBACK,
    rejectCallback: CALLBACK,
    additionalData: { operation, ...additionalData },
  });
  if (gated.applied) {
    await applyUser(ctx, old, gated.entity, {
      event,
      operation,
      approvalId: gated.approvalRecord.id,
      ...additionalData,
    });
    return { user: s.user, pendingApproval: null, approval: gated.approval };
  }
  s.pendingApproval = {
    id: gated.approvalId,
    event,
    requestedStatus: (gated.newStatus ?? old.status) as PartnerUserStatus,
    operation,
  };
  return {
    user: s.user,
    pendingApproval: s.pendingApproval,
    approval: gated.approval,
    requestedUser: gated.workflow.simulatedApprovedState,
  };
}

/** 400 17102 with the field problems. */
export function refuseProblems(problems: { field: string; reason: string }[]): void {
  if (problems.length)
    throw partnerUserError('PARTNER_USER_INVALID_INPUT', problemsText(problems), { errors: problems });
}

export async function updateUser(ctx: PartnerUserCtx<UpdateUserInput>) {
  guard(ctx);
  const old = st(ctx).user;
  const { next, changed } = replaceUser(old, ctx.request.body, actorId(ctx), now());
  if (!changed.length)
    throw partnerUserError('PARTNER_USER_NO_CHANGE', `The update changes nothing on partner user ${old.id}`, {
      id: old.id,
    });
  refuseProblems(membershipProblems(next.partners, next.venues));
  if (takesEmail(old, next)) await checkEmailFree(ctx, next.email, old.id);
  await checkReferences(ctx, old, next);
  return requestChange(ctx, PARTNER_USER_EVENTS.update, 'updateUser', next, { fields: changed });
}

export async function updateStatus(ctx: PartnerUserCtx<UpdateStatusInput>) {
  guard(ctx);
  const old = st(ctx).user;
  const { status, statusReason } = ctx.request.body;
  const move = statusMove(old.status, status);
  if (!move.ok)
    throw partnerUserError('PARTNER_USER_NO_CHANGE', `Partner user ${old.id}: ${move.reason}`, {
      id: old.id,
      status: old.status,
    });
  const reason = statusReason?.trim() || null;
  const next: PartnerUserRecord = {
    ...old,
    status: move.to,
    statusReason: reason,
    updatedBy: actorId(ctx),
    updatedAt: now(),
  };
  // activation (from inactive) takes the email again: nobody may have taken it meanwhile
  if (takesEmail(old, next)) await checkEmailFree(ctx, next.email, old.id);
  return requestChange(ctx, PARTNER_USER_EVENTS.status, 'updateStatus', next, {
    fromStatus: old.status,
    toStatus: move.to,
    ...(reason ? { statusReason: reason } : {}),
  });
}
