/**
 * Passwords (spec 4.5, 5):
 *
 *   sendPasswordResetEmail {email}        STATIC, public → 202 {message}, the same answer whether or not the email
 *                                         names a member who may reset (an email and password member who may sign
 *                                         in); that member gets OTP_MEMBER_PASSWORD_RESET (mailPasswordReset, queued,
 *                                         so the answer does not wait for it either)
 *   resetPassword {token, password}       WRITE, public, on the member → {reset: true}: the password replaced, every
 *                                         session ended (validAfter; refresh tokens revoked); 401 5037 (also for a
 *                                         link issued before the password last changed), 400 5038, 429 6002
 *   changePassword {currentPassword, newPassword}  WRITE, enduser (itself) → {changed: true, ...a new session}:
 *                                         the other sessions end; 400 5039 when currentPassword is wrong
 *
 * The reset mail carries the link token `<memberId>.<secret>` as the template's `otp` (a UUID valid an hour),
 * with `resetUrl` (the member application's `reset-password` route, the token in the fragment) and `name`.
 * A password change is audit-logged as `passwordChangedAt` (never the password or its hash).
 */
import { client } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { hashPassword, verifyPassword } from '../../_platform/passwords';
import { notify } from '../../_platform/notify';
import { isOtpLimit, otpAccepted, otpInstanceId } from '../../_platform/otp';
import type { Otp } from '../../Otp/Otp.class';
import { fieldError, memberError } from '../errors';
import {
  emailKey,
  memberIdByLookup,
  memberState,
  profileOf,
  type MemberCtx,
  type MemberStaticCtx,
} from '../member-state';
import { APP_ROUTES, appLink, linkToken, mayUsePassword, parseLinkToken, type SignInSettings } from '../sign-in-rules';
import type { MemberPrivateState } from '../types';
import { now, reachable } from './common';
import {
  checkContextFreePasswordPolicy,
  checkPasswordPolicy,
  CLASS_ID,
  invalidCode,
  memberActor,
  openSession,
  requesterDetails,
  RESET_OTP,
  RESET_TEMPLATE,
  signInView,
  throttleAccount,
  throttleAddress,
} from './sign-in-common';
import type { Actor } from '../../_platform/actor';
import type {
  ResetPasswordInput,
  ChangePasswordInput,
  MailPasswordResetInput,
  SendPasswordResetEmailInput,
} from '../../../schemas/Member/inputs';

export const RESET_ANSWER = Object.freeze({
  message: 'If this email belongs to a member who signs in with a password, a reset link has been sent to it',
});

export async function sendPasswordResetEmail(ctx: MemberStaticCtx<SendPasswordResetEmailInput>) {
  await throttleAddress(ctx, 'sendPasswordResetEmail');
  const email = emailKey(ctx.request.body.email);
  await throttleAccount(ctx, 'sendPasswordResetEmail', email);
  const id = await memberIdByLookup(ctx, 'email', email);
  // queued for any member the email names (the job decides whether it may reset): the answer waits for nothing
  if (id)
    await ctx.enqueue(CLASS_ID, 'mailPasswordReset', id, {
      requestedBy: email,
      requesterDetails: requesterDetails(ctx),
    });
  ctx.response.status = 202;
  return { ...RESET_ANSWER };
}

/** QUEUED_WRITE (from sendPasswordResetEmail): the reset link, for a member who may reset; nothing otherwise. */
export async function mailPasswordReset(ctx: MemberCtx<MailPasswordResetInput>, settings: SignInSettings) {
  const state = memberState(ctx);
  const p = state.profile;
  if (!p || !mayUsePassword(signInView(p, state))) return { sent: false };
  try {
    const issued = otpAccepted(
      await client<typeof Otp>(ctx, 'Otp').issueOtp(otpInstanceId(CLASS_ID, p.id), {
        otpType: RESET_OTP,
        tokenType: 'uuid',
        expireTimeInSeconds: settings.passwordResetTtlSeconds,
        requestedBy: ctx.request.body.requestedBy,
        requesterDetails: ctx.request.body.requesterDetails,
      }),
    );
    const token = linkToken(p.id, issued.token);
    const resetUrl = appLink(settings.appUrl, APP_ROUTES.passwordReset, { token });
    await notify(ctx, RESET_TEMPLATE, { to: [p.email!], parameters: { otp: token, name: p.name ?? '', resetUrl } });
  } catch (err) {
    // past Otp's otpLimit: nothing sent (the caller had the same answer as anyone)
    if (isOtpLimit(err, 'OTP_LIMIT_EXCEEDED')) return { sent: false, reason: 'otp_limit_exceed' };
    throw err;
  }
  return { sent: true };
}

/** Stores a new password hash: tokens issued before now stop working (validAfter), refresh tokens are revoked; audit-logged. */
async function storePassword(
  ctx: MemberCtx<unknown>,
  state: MemberPrivateState,
  passwordHash: string,
  source: string,
  actor?: Actor,
): Promise<void> {
  const at = now();
  const previous = state.credentials?.passwordChangedAt ?? null;
  state.credentials = { passwordHash, passwordChangedAt: at };
  // refresh tokens end now; access tokens as soon as the identity source's answer (validAfter) is read again
  await ctx.tokens.revokeAll(state.profile.id, 'enduser');
  await logChange(ctx, {
    entityType: 'member',
    entityId: state.profile.id,
    before: { passwordChangedAt: previous },
    after: { passwordChangedAt: at },
    additionalData: { source },
    ...(actor ? { actor } : {}),
  });
}

export async function resetPassword(ctx: MemberCtx<ResetPasswordInput>) {
  await throttleAddress(ctx, 'resetPassword');
  await throttleAccount(ctx, 'resetPassword', ctx.instanceId!);
  const state = memberState(ctx);
  const p = profileOf(ctx);
  const view = signInView(p, state);
  const { token, password } = ctx.request.body;
  const link = parseLinkToken(token);
  const invalid = () => invalidCode('The password reset link is not valid: ask for a new one');
  if (!link || link.memberId !== p.id || !mayUsePassword(view)) throw invalid();
  // before the token is spent: a password refused by the rules that need no account leaves the link usable
  checkContextFreePasswordPolicy(password);
  const check = otpAccepted(
    await client<typeof Otp>(ctx, 'Otp').verifyOtp(otpInstanceId(CLASS_ID, p.id), {
      otpType: RESET_OTP,
      token: link.secret,
      requestedBy: p.id,
      requesterDetails: requesterDetails(ctx),
    }),
  );
  if (!check.isSuccessful) throw invalid();
  // a link mailed before the password last changed (changePassword, another reset) is no longer good: whoever
  // changed it ended every session, and a link still in a mailbox must not undo that
  const changedAt = state.credentials?.passwordChangedAt;
  if (changedAt && Date.parse(check.otp.createdAt) < Date.parse(changedAt)) throw invalid();
  // the rules with the member's email and names only now: before the token matched, their refusal would confirm
  // a guess of them to anyone with the member's id. The match spent the token: a refusal here means a new link.
  checkPasswordPolicy(password, view);
  // hashed in the member's own WRITE (spec 4.5), only past the throttles, the policy and a live reset token
  await storePassword(ctx, state, await hashPassword(password), 'password_reset', memberActor(p.id));
  return { reset: true };
}

export async function changePassword(ctx: MemberCtx<ChangePasswordInput>) {
  const p = reachable(ctx);
  await throttleAccount(ctx, 'changePassword', p.id);
  const state = memberState(ctx);
  const view = signInView(p, state);
  const hash = state.credentials?.passwordHash;
  if (!hash || p.loginMethod !== 'email_password')
    throw memberError('NO_PASSWORD', 'This member signs in without a password');
  const { currentPassword, newPassword } = ctx.request.body;
  checkPasswordPolicy(newPassword, view, 'newPassword');
  if (newPassword.normalize('NFKC') === currentPassword.normalize('NFKC')) {
    throw fieldError('WEAK_PASSWORD', 'newPassword', 'must differ from the current password');
  }
  if (!(await verifyPassword(currentPassword, hash)))
    throw fieldError('WRONG_CURRENT_PASSWORD', 'currentPassword', 'is not the current password');
  await storePassword(ctx, state, await hashPassword(newPassword), 'change_password');
  // this session's token was issued before the change: the member gets a new one, the others end
  return { changed: true, ...(await openSession(ctx, p.id)) };
}
