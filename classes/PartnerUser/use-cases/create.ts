/**
 * init (INIT, a new instance per user; event user_create): a partner user in
 * status `pending` (spec 3.3), holding its email (the `email` lookup key),
 * with its partners and roles and any venues of those partners. The creation
 * runs the workflow: approved at once (the default rules for developers and
 * the system) the user is `active` now; otherwise it stays `pending` until
 * approveUser.
 */
import { requestGatedChange } from '../../_platform/gated-change';
import { partnerUserError } from '../errors';
import { membershipProblems, newPartnerUser } from '../rules';
import { PARTNER_USER_EVENTS, type PartnerUserStatus } from '../types';
import type { InitInput } from '../../../schemas/PartnerUser/inputs';
import { actorId, applyUser, CALLBACK, checkEmailFree, now, whilePending, type PartnerUserCtx } from './common';
import { checkReferences } from './partners';
import { problemsText } from '../../_platform/paging';

export async function init(ctx: PartnerUserCtx<InitInput>) {
  const id = ctx.instanceId!;
  const user = newPartnerUser(ctx.request.body, actorId(ctx), now(), id);
  const problems = membershipProblems(user.partners, user.venues);
  if (problems.length)
    throw partnerUserError('PARTNER_USER_INVALID_INPUT', problemsText(problems), { errors: problems });
  await checkEmailFree(ctx, user.email, id);
  await checkReferences(ctx, null, user);

  const event = PARTNER_USER_EVENTS.create;
  const change = await requestGatedChange(ctx, {
    event,
    entityId: id,
    oldEntity: null,
    newEntity: user,
    pendingApprovalId: null,
    whilePending: whilePending(id),
    approveCallback: CALLBACK,
    rejectCallback: CALLBACK,
  });
  ctx.state.private = { user, pendingApproval: null, lastSettledApprovalId: null, lastReview: null };
  const stored = change.applied ? change.entity : user;
  await applyUser(ctx, null, stored, {
    event,
    operation: 'init',
    approvalId: change.approvalRecord.id,
    approvalStatus: change.approval.approvalStatus,
  });
  if (!change.applied) {
    ctx.state.private.pendingApproval = {
      id: change.approvalId,
      event,
      requestedStatus: (change.newStatus ?? 'active') as PartnerUserStatus,
      operation: 'init',
    };
  }
  ctx.response.status = 201;
  return {
    user: ctx.state.private.user,
    pendingApproval: ctx.state.private.pendingApproval,
    approval: change.approval,
  };
}
