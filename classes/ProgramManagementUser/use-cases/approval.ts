/**
 * The approval callbacks (QUEUED_WRITE, ApprovalManager only), settled by the
 * platform's settleGatedChange:
 *  - approveUserCreate (user_create): approve applies the creation's patch
 *    and invites the user; reject leaves it `inactive`, releasing its email;
 *  - approveUser (user_update, user_status_update): approve applies the
 *    change, unless it takes an email another user holds now, the patch
 *    no longer fits, or a company user's change takes the user out of the
 *    requester's company (then the user stops waiting, unchanged, and the
 *    answer says why, code 4020); reject changes nothing.
 * Either way the user stops waiting; the same callback again (a redelivery)
 * changes nothing.
 */
import { settleGatedChange } from '../../_platform/gated-change';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { companyRefusal, EMAIL_LOOKUP } from '../rules';
import { UserErrors, userError } from '../errors';
import type { UserSettings } from '../settings';
import type { LastReview, ProgramManagementUserRecord } from '../types';
import { applyUser, takesEmail } from './apply';
import { now, st, type UserCtx } from './common';
import { sendInvitation } from './invitation';

type Outcome = LastReview['outcome'];

function settle(ctx: UserCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const s = st(ctx);
  return settleGatedChange(s.user, body, {
    pendingApprovalId: s.pendingApproval?.id,
    lastSettledApprovalId: s.lastSettledApprovalId,
    mismatch: (waiting) =>
      userError('PM_USER_APPROVAL_MISMATCH', `Approval ${body.approvalId} is not the one user ${s.user.id} waits for`, {
        waiting,
      }),
  });
}

function review(ctx: UserCtx<ApprovalCallbackBody>, event: string, outcome: Outcome, reason?: string) {
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

function info(ctx: UserCtx<ApprovalCallbackBody>, event: string) {
  const body = ctx.request.body;
  return { event, approvalId: body.approvalId, action: body.action, reviewedBy: body.reviewedBy?.id ?? null };
}

/** Another user holds the email the approved change takes (the commit's unique lookup key would refuse it). */
async function emailTakenBy(
  ctx: UserCtx<ApprovalCallbackBody>,
  before: ProgramManagementUserRecord,
  after: ProgramManagementUserRecord,
): Promise<boolean> {
  if (!takesEmail(before, after)) return false;
  const holder = await ctx.lookup.resolve(EMAIL_LOOKUP, after.email);
  return Boolean(holder && holder !== after.id);
}

export async function approveUserCreate(ctx: UserCtx<ApprovalCallbackBody>, settings: UserSettings) {
  const s = st(ctx);
  const before = s.user;
  const outcome = settle(ctx);
  if (outcome.kind === 'settled') return { applied: false, outcome: 'settled', user: before };
  const event = s.pendingApproval!.event;
  if (outcome.kind === 'conflict') {
    const lastReview = review(ctx, event, 'conflict', outcome.problems.join('; '));
    return { applied: false, code: UserErrors.PM_USER_APPROVAL_CONFLICT.code, lastReview, user: before };
  }
  if (outcome.kind === 'rejected') {
    const lastReview = review(ctx, event, 'rejected');
    await applyUser(ctx, before, { ...before, status: 'inactive', updatedAt: now() }, info(ctx, event));
    return { applied: false, lastReview, user: s.user };
  }
  const invited = await sendInvitation(ctx, outcome.entity, settings);
  const lastReview = review(ctx, event, 'applied');
  await applyUser(ctx, before, invited, info(ctx, event));
  return { applied: true, lastReview, user: s.user };
}

export async function approveUser(ctx: UserCtx<ApprovalCallbackBody>) {
  const s = st(ctx);
  const before = s.user;
  const outcome = settle(ctx);
  if (outcome.kind === 'settled') return { applied: false, outcome: 'settled', user: before };
  const event = s.pendingApproval!.event;
  const conflict = (reason: string) => {
    ctx.log.warn(
      { approvalId: ctx.request.body.approvalId, userId: before.id, reason },
      'approved user change not applied',
    );
    const lastReview = review(ctx, event, 'conflict', reason);
    return { applied: false, code: UserErrors.PM_USER_APPROVAL_CONFLICT.code, reason, lastReview, user: before };
  };
  if (outcome.kind === 'conflict') return conflict(outcome.problems.join('; '));
  if (outcome.kind === 'rejected') return { applied: false, lastReview: review(ctx, event, 'rejected'), user: before };
  if (await emailTakenBy(ctx, before, outcome.entity)) return conflict('another user holds the email now');
  // applied as the approver: a company user's change must still keep the user in the requester's company
  const requesterCompanyId = ctx.request.body.additionalData?.requesterCompanyId;
  if (typeof requesterCompanyId === 'string' && companyRefusal(outcome.entity, requesterCompanyId)) {
    return conflict(`the change takes the user out of company ${requesterCompanyId}, the requester's`);
  }
  const lastReview = review(ctx, event, 'applied');
  await applyUser(ctx, before, outcome.entity, info(ctx, event));
  return { applied: true, lastReview, user: s.user };
}
