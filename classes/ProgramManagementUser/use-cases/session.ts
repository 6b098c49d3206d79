/**
 * The writes sign-in makes on a user's instance (INTERNAL, this class only):
 * short, no hashing inside (the STATIC operations hash before calling).
 *
 *   recordSignIn {at}                 lastLoginAt (an effect of checkOtp / singleSignOn)
 *   setPassword {passwordHash}        an active email/password user's new password; sessions
 *                                      issued before now are refused (validAfter)
 *   completeInvitation {passwordHash} pending → active with the first password (spec 3.3's
 *                                      status moves without the workflow, as Member's 3.1 rows)
 *   completeSso {at}                  an invited SSO user's first sign-in: pending → active
 *
 * Each answers whether it changed anything: the user may have changed since
 * the STATIC read it (deactivated, its method changed), and then nothing is.
 * The password hash and the credentials are never logged: the audit entry
 * records the record's changes and `additionalData.credentials` only.
 */
import type {
  CompleteInvitationInput,
  RecordSignInInput,
  SetPasswordInput,
} from '../../../schemas/ProgramManagementUser/inputs';
import { logChange } from '../../_platform/audit-log';
import { mayAcceptInvitation, mayUsePassword, mayUseSso } from '../rules';
import { logUser, now, st, type UserCtx } from './common';

export function recordSignIn(ctx: UserCtx<RecordSignInInput>) {
  const s = st(ctx);
  s.user = { ...s.user, lastLoginAt: ctx.request.body.at };
  return { recorded: true };
}

export async function setPassword(ctx: UserCtx<SetPasswordInput>) {
  const s = st(ctx);
  if (!mayUsePassword(s.user)) return { stored: false };
  const at = now();
  s.credentials = { passwordHash: ctx.request.body.passwordHash, passwordChangedAt: at };
  s.sessionsValidAfter = at;
  await logPasswordChange(ctx, ctx.request.body.reason, at);
  return { stored: true };
}

export async function completeInvitation(ctx: UserCtx<CompleteInvitationInput>) {
  const s = st(ctx);
  if (!mayAcceptInvitation(s.user) || s.pendingApproval) return { accepted: false };
  const before = s.user;
  const at = now();
  s.credentials = { passwordHash: ctx.request.body.passwordHash, passwordChangedAt: at };
  s.sessionsValidAfter = at;
  s.user = { ...before, status: 'active', acceptedAt: at, updatedAt: at };
  await logUser(ctx, before, s.user, { event: 'invitation_accepted', credentials: 'password set' });
  return { accepted: true };
}

export async function completeSso(ctx: UserCtx<RecordSignInInput>) {
  const s = st(ctx);
  const before = s.user;
  if (!mayUseSso(before) || s.pendingApproval) return { signedIn: false };
  const at = ctx.request.body.at;
  // only a first sign-in activates (never one after an approved change set the user back to pending)
  const first = before.status === 'pending' && !before.acceptedAt;
  s.user = first
    ? { ...before, status: 'active', acceptedAt: at, updatedAt: at, lastLoginAt: at }
    : { ...before, lastLoginAt: at };
  if (first) await logUser(ctx, before, s.user, { event: 'sso_first_sign_in' });
  return { signedIn: true, user: s.user };
}

/** A password change as an audit entry of its own: the fact and the time, never the hash. */
async function logPasswordChange(ctx: UserCtx<unknown>, reason: string, at: string) {
  await logChange(ctx, {
    entityType: 'programManagementUserCredentials',
    entityId: ctx.instanceId!,
    before: null,
    after: { passwordChangedAt: at },
    additionalData: { reason },
    ...(st(ctx).user.companyId ? { companyId: st(ctx).user.companyId! } : {}),
  });
}
