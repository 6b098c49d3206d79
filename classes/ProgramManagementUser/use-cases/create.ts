/**
 * createUser (INIT, a new instance per user; event user_create): a user in
 * status `pending`, holding its email (the `email` lookup key). Once the
 * creation is approved (at once, or by approveUserCreate) the user is
 * invited; it becomes `active` when it accepts the invitation (email and
 * password) or first signs in by SSO.
 */
import { client, type Ctx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { requestGatedChange } from '../../_platform/gated-change';
import type { Company } from '../../Company/Company.class';
import { userError } from '../errors';
import { EMAIL_LOOKUP, newUser, scopeProblems } from '../rules';
import type { UserSettings } from '../settings';
import { USER_EVENTS, type ProgramManagementUserRecord } from '../types';
import type { CreateUserInput } from '../../../schemas/ProgramManagementUser/inputs';
import { activeRoles, checkPrivilege, CREATE_CALLBACK, logUser, now, whilePending, type UserCtx } from './common';
import { sendInvitation } from './invitation';
import { problemsText } from '../../_platform/paging';

/** 409 4001 when a user that is not inactive holds the email (the commit's unique lookup key stands behind it). */
export async function checkEmailFree(ctx: Pick<Ctx, 'lookup'>, email: string, selfId: string): Promise<void> {
  const holder = await ctx.lookup.resolve(EMAIL_LOOKUP, email);
  if (holder && holder !== selfId) {
    throw userError('PM_USER_EMAIL_TAKEN', 'Another user has this email', {
      errors: [{ field: 'email', reason: 'belongs to another user' }],
    });
  }
}

/** 400 4010 when the company of a company user does not exist (a company user of another company is refused by Company, 403). */
export async function checkCompany(ctx: Pick<Ctx, 'call'>, companyId: string | null): Promise<void> {
  if (!companyId) return;
  try {
    await client<typeof Company>(ctx, 'Company').getCompany('default', { id: companyId });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // 6010: no such company; an unknown instance: no Company singleton yet, so no company at all
    if (code === 6010 || code === 'UNKNOWN_INSTANCE') {
      throw userError('PM_USER_UNKNOWN_COMPANY', `No company with id '${companyId}'`, {
        errors: [{ field: 'companyId', reason: 'is not a company' }],
      });
    }
    throw err;
  }
}

export async function createUser(ctx: UserCtx<CreateUserInput>, settings: UserSettings) {
  const body = ctx.request.body;
  const problems = scopeProblems(body.type, body.companyId);
  if (problems.length) throw userError('PM_USER_INVALID_INPUT', problemsText(problems), { errors: problems });
  const id = ctx.instanceId!;
  const user = newUser(body, actorFromIdentity(ctx.identity), now(), id);
  await checkEmailFree(ctx, user.email, id);
  await checkCompany(ctx, user.companyId);
  const granted = await activeRoles(ctx, user.roles);
  await checkPrivilege(ctx, { kind: 'create', old: null, next: user, grantedRoles: granted, heldRoles: [] });

  const change = await requestGatedChange(ctx, {
    event: USER_EVENTS.create,
    entityId: id,
    oldEntity: null,
    newEntity: user,
    pendingApprovalId: null,
    whilePending: whilePending(id),
    approveCallback: CREATE_CALLBACK,
    rejectCallback: CREATE_CALLBACK,
    ...(user.companyId ? { companyId: user.companyId } : {}),
  });
  let stored: ProgramManagementUserRecord;
  if (change.applied) stored = await sendInvitation(ctx, change.entity, settings);
  else stored = user;
  ctx.state.private = {
    user: stored,
    credentials: { passwordHash: null, passwordChangedAt: null },
    pendingApproval: change.applied
      ? null
      : {
          id: change.approvalId,
          event: USER_EVENTS.create,
          requestedStatus: (change.newStatus ?? 'pending') as ProgramManagementUserRecord['status'],
        },
    lastSettledApprovalId: null,
    lastReview: null,
    sessionsValidAfter: null,
  };
  ctx.lookup.set(EMAIL_LOOKUP, stored.email);
  await logUser(ctx, null, stored, {
    event: USER_EVENTS.create,
    approvalId: change.approvalRecord.id,
    approvalStatus: change.approval.approvalStatus,
  });
  ctx.response.status = 201;
  return { user: stored, pendingApproval: ctx.state.private.pendingApproval, approval: change.approval };
}
