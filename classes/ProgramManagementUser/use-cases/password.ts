/**
 * The password operations, STATIC and public (spec 4.5): the new password is
 * checked against the policy and hashed here, outside any instance; the
 * user's instance is written only to store the hash (setPassword,
 * completeInvitation: INTERNAL, short).
 *
 *   sendPasswordResetEmail {email}        → 202, the same answer whether or not the email is an
 *                                            account that may reset (an active email/password user,
 *                                            who then gets OTP_PROGRAM_MANAGEMENT_PASSWORD_RESET: the code,
 *                                            and the back office's reset page with email and code in the fragment)
 *   resetPassword {email, otp, password}  → {reset: true}; every session ends (validAfter, refresh
 *                                            tokens revoked)
 *   acceptInvitation {email, otp, password} → {accepted: true}: the invited user is `active` with
 *                                            its first password
 *
 * A wrong code, an unknown email and an account in the wrong state get one
 * answer (401 4014), and too many failed codes for an account the same 429
 * 4015 as too many calls for an unknown one (Otp's 6002 is answered as it),
 * so no answer tells whether an email has an account.
 */
import { client } from '../../../runtime';
import { hashPassword, passwordProblems, verifyPassword } from '../../_platform/passwords';
import { notify } from '../../_platform/notify';
import { isOtpLimit, otpAccepted, otpInstanceId } from '../../_platform/otp';
import type { Otp } from '../../Otp/Otp.class';
import { userError } from '../errors';
import { EMAIL_LOOKUP, mayAcceptInvitation, mayUsePassword, normalizeEmail } from '../rules';
import { BACKOFFICE_ROUTES, backOfficeLink, type UserSettings } from '../settings';
import type { ProgramManagementUserRecord } from '../types';
import type {
  AcceptInvitationInput,
  ResetPasswordInput,
  SendPasswordResetEmailInput,
} from '../../../schemas/ProgramManagementUser/inputs';
import { CLASS_ID, type UserStaticCtx } from './common';
import { INVITATION_OTP } from './invitation';
import {
  requesterDetails,
  throttleAccount,
  throttleAddress,
  tooManyAttempts,
  type ThrottledOperation,
} from './requester';
import { signInUser, TOKEN_TYPE } from './sign-in';

export const RESET_TEMPLATE = 'OTP_PROGRAM_MANAGEMENT_PASSWORD_RESET';
/** the Otp type of password reset codes */
export const RESET_OTP = 'password_reset';

const RESET_ANSWER = {
  message: 'If this email belongs to an account that signs in with a password, a reset code has been sent to it',
};

export async function sendPasswordResetEmail(ctx: UserStaticCtx<SendPasswordResetEmailInput>, settings: UserSettings) {
  await throttleAddress(ctx, 'passwordReset');
  const email = normalizeEmail(ctx.request.body.email);
  await throttleAccount(ctx, 'passwordReset', email);
  const user = await signInUser(ctx, await ctx.lookup.resolve(EMAIL_LOOKUP, email));
  if (mayUsePassword(user)) {
    try {
      const { token } = otpAccepted(
        await client<typeof Otp>(ctx, 'Otp').issueOtp(otpInstanceId(CLASS_ID, user!.id), {
          otpType: RESET_OTP,
          tokenType: 'alphanumeric',
          requestedBy: email,
          requesterDetails: requesterDetails(ctx),
        }),
      );
      const resetUrl = backOfficeLink(settings.backOfficeUrl, BACKOFFICE_ROUTES.passwordReset, {
        email: user!.email,
        code: token,
      });
      await notify(ctx, RESET_TEMPLATE, { to: [user!.email], parameters: { otp: token, resetUrl } });
    } catch (err) {
      // past Otp's otpLimit: the same answer as for anyone, nothing sent
      if (!isOtpLimit(err, 'OTP_LIMIT_EXCEEDED')) throw err;
    }
  }
  ctx.response.status = 202;
  return RESET_ANSWER;
}

/** 400 4016 naming the policy's problems. */
function checkPolicy(password: string, context: { email: string; name?: string }): void {
  const problems = passwordProblems(password, {
    email: context.email,
    ...(context.name ? { words: [context.name] } : {}),
  });
  if (problems.length)
    throw userError(
      'PM_USER_WEAK_PASSWORD',
      `The password is not allowed: ${problems.map((p) => p.reason).join('; ')}`,
      { errors: problems },
    );
}

const invalidCode = () => userError('PM_USER_INVALID_CODE', 'The code is not valid for this email');

/**
 * 401 4014 after hashing the password against the stand-in: every refusal
 * (unknown email, wrong state, wrong code) costs the same hash, so a known
 * email with a wrong code answers no sooner than an unknown one.
 */
async function refuseCode(password: string): Promise<never> {
  await verifyPassword(password, null);
  throw invalidCode();
}

/**
 * The user whose code is checked, once the code matched: the email resolved,
 * the user in the state `eligible` asks, the code spent. Every refusal is 401
 * 4014 after one stand-in hash (refuseCode); Otp's 6002 becomes 429 4015.
 */
async function userWithCode(
  ctx: UserStaticCtx<{ email: string; otp: string; password: string }>,
  settings: UserSettings,
  op: ThrottledOperation,
  otpType: string,
  eligible: (u: ProgramManagementUserRecord | null) => boolean,
): Promise<ProgramManagementUserRecord> {
  await throttleAddress(ctx, op);
  const email = normalizeEmail(ctx.request.body.email);
  await throttleAccount(ctx, op, email, settings.codeAttempts);
  checkPolicy(ctx.request.body.password, { email });
  const user = await signInUser(ctx, await ctx.lookup.resolve(EMAIL_LOOKUP, email));
  if (!eligible(user)) await refuseCode(ctx.request.body.password);
  let check;
  try {
    check = otpAccepted(
      await client<typeof Otp>(ctx, 'Otp').verifyOtp(otpInstanceId(CLASS_ID, user!.id), {
        otpType,
        token: ctx.request.body.otp,
        requestedBy: email,
        requesterDetails: requesterDetails(ctx),
      }),
    );
  } catch (err) {
    if (isOtpLimit(err, 'OTP_RETRY_LIMIT_EXCEEDED')) {
      const retryAfterSeconds = (err.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      throw tooManyAttempts(retryAfterSeconds);
    }
    throw err;
  }
  if (!check.isSuccessful) await refuseCode(ctx.request.body.password);
  // the name is known only now: a password holding it is refused after the code, so the refusal says nothing of the account
  checkPolicy(ctx.request.body.password, { email, name: user!.name });
  return user!;
}

export async function resetPassword(ctx: UserStaticCtx<ResetPasswordInput>, settings: UserSettings) {
  const user = await userWithCode(ctx, settings, 'resetPassword', RESET_OTP, mayUsePassword);
  const passwordHash = await hashPassword(ctx.request.body.password);
  const r = await ctx.call(CLASS_ID, 'setPassword', user.id, { passwordHash, reason: 'reset' });
  if ((r.body as { stored: boolean }).stored !== true) throw invalidCode();
  // refresh tokens end now; access tokens as soon as the identity source's answer (validAfter) is read again
  await ctx.tokens.revokeAll(user.id, TOKEN_TYPE);
  return { reset: true };
}

export async function acceptInvitation(ctx: UserStaticCtx<AcceptInvitationInput>, settings: UserSettings) {
  const user = await userWithCode(ctx, settings, 'acceptInvitation', INVITATION_OTP, mayAcceptInvitation);
  const passwordHash = await hashPassword(ctx.request.body.password);
  const r = await ctx.call(CLASS_ID, 'completeInvitation', user.id, { passwordHash });
  if ((r.body as { accepted: boolean }).accepted !== true) throw invalidCode();
  return { accepted: true, status: 'active' };
}
