/**
 * Email and password sign-in (spec 5, 4.5), all STATIC: no instance is held
 * while a password is hashed, and one user's sign-in never waits behind
 * another's.
 *
 *   discoverAuthMethod {email}   → {email, method: 'sso', loginUrl} for an email of a configured
 *                                   identity provider's domain, else {email, method: 'email_password'}:
 *                                   decided by the domain alone, so the answer says nothing of accounts
 *   login {email, password}      → 200 {otpRequired, token, expiresAt}: the password checked
 *                                   (verifyCredentials, a READ), a code mailed
 *                                   (OTP_PROGRAM_MANAGEMENT_LOGIN) and a token good for checkOtp and
 *                                   resendOtp only; 401 4013 for every refusal (unknown email, wrong
 *                                   password, inactive, SSO user), after as long as a match
 *   checkOtp {otp}               → {accessToken, expiresAt, refreshToken, user}; 401 4014, 429 6002
 *   resendOtp                    → {sent: true}; 429 6001 past Otp's otpLimit
 *
 * Every operation is throttled per address and per account (requester.ts).
 */
import { isUnknownInstance, client } from '../../../runtime';
import { verifyPassword } from '../../_platform/passwords';
import { SAML_MEMORY_COUNTER, samlSeen } from '../../_platform/saml';
import { notify } from '../../_platform/notify';
import { otpAccepted, otpInstanceId } from '../../_platform/otp';
import type { Otp } from '../../Otp/Otp.class';
import { userError } from '../errors';
import { answeredUser, EMAIL_LOOKUP, mayUsePassword, normalizeEmail } from '../rules';
import type { UserSettings } from '../settings';
import type { ProgramManagementUserRecord } from '../types';
import type {
  CheckOtpInput,
  DiscoverAuthMethodInput,
  LoginInput,
  ResendOtpInput,
} from '../../../schemas/ProgramManagementUser/inputs';
import { CLASS_ID, now, type UserStaticCtx } from './common';
import { requesterDetails, throttleAccount, throttleAddress } from './requester';

export const LOGIN_TEMPLATE = 'OTP_PROGRAM_MANAGEMENT_LOGIN';
/** the Otp type of sign-in codes */
export const LOGIN_OTP = 'login';
/** what the token answered by login may call */
export const OTP_STEP_METHODS = [`${CLASS_ID}.checkOtp`, `${CLASS_ID}.resendOtp`];
export const TOKEN_TYPE = 'program_management_user';

export async function discoverAuthMethod(ctx: UserStaticCtx<DiscoverAuthMethodInput>, settings: UserSettings) {
  await throttleAddress(ctx, 'discover');
  const email = normalizeEmail(ctx.request.body.email);
  const idp = settings.saml?.idpForEmail(email) ?? null;
  // the AuthnRequest's id is remembered (samlSeen) for singleSignOn to check the response's InResponseTo against
  if (idp)
    return {
      email,
      method: 'sso' as const,
      loginUrl: await settings.saml!.loginUrl(idp, samlSeen(ctx.limits, SAML_MEMORY_COUNTER)),
    };
  return { email, method: 'email_password' as const };
}

/** The user an instance id names, as sign-in reads it (null when there is none). */
export async function signInUser(
  ctx: UserStaticCtx<unknown>,
  id: string | undefined,
): Promise<ProgramManagementUserRecord | null> {
  if (!id) return null;
  try {
    const r = await ctx.call(CLASS_ID, 'signInView', id, {});
    return (r.body as { user: ProgramManagementUserRecord }).user ?? null;
  } catch (err) {
    // a token's subject that is no user (a development token's): no user
    if (isUnknownInstance(err)) return null;
    throw err;
  }
}

/** Mails a new sign-in code to the user (429 6001 past Otp's otpLimit). */
async function mailLoginCode(ctx: UserStaticCtx<unknown>, user: ProgramManagementUserRecord): Promise<void> {
  const { token } = otpAccepted(
    await client<typeof Otp>(ctx, 'Otp').issueOtp(otpInstanceId(CLASS_ID, user.id), {
      otpType: LOGIN_OTP,
      tokenType: 'numeric',
      requestedBy: user.id,
      requesterDetails: requesterDetails(ctx),
    }),
  );
  await notify(ctx, LOGIN_TEMPLATE, { to: [user.email], parameters: { otp: token } });
}

export async function login(ctx: UserStaticCtx<LoginInput>, settings: UserSettings) {
  await throttleAddress(ctx, 'login');
  const email = normalizeEmail(ctx.request.body.email);
  await throttleAccount(ctx, 'login', email);
  const id = await ctx.lookup.resolve(EMAIL_LOOKUP, email);
  let user: ProgramManagementUserRecord | null = null;
  if (id) {
    const verified = await ctx.call(CLASS_ID, 'verifyCredentials', id, { password: ctx.request.body.password });
    user = answeredUser(verified.body, 'valid');
  } else {
    // as slow as a known email: an unknown one is hashed against a stand-in
    await verifyPassword(ctx.request.body.password, null);
  }
  if (!user) throw userError('PM_USER_INVALID_CREDENTIALS', 'The email or password is not correct');
  await mailLoginCode(ctx, user);
  const step = await ctx.tokens.issue({
    sub: user.id,
    type: TOKEN_TYPE,
    methods: OTP_STEP_METHODS,
    ttlSeconds: settings.otpStepTtlSeconds,
  });
  return { otpRequired: true, token: step.token, expiresAt: step.expiresAt };
}

/** The signed-in user of an OTP-step (or any) back-office token. */
function callerId(ctx: UserStaticCtx<unknown>): string {
  const id = ctx.identity.userId;
  if (ctx.identity.type !== TOKEN_TYPE || !id)
    throw userError('PM_USER_INVALID_CODE', 'Sign in with email and password first');
  return id;
}

export async function checkOtp(ctx: UserStaticCtx<CheckOtpInput>) {
  const id = callerId(ctx);
  await throttleAccount(ctx, 'checkOtp', id);
  const check = otpAccepted(
    await client<typeof Otp>(ctx, 'Otp').verifyOtp(otpInstanceId(CLASS_ID, id), {
      otpType: LOGIN_OTP,
      token: ctx.request.body.otp,
      requestedBy: id,
      requesterDetails: requesterDetails(ctx),
    }),
  );
  if (!check.isSuccessful) {
    throw userError(
      'PM_USER_INVALID_CODE',
      'The code is not valid',
      check.validationResult === 'invalid_token' ? { remainingAttempts: check.remainingAttempts } : undefined,
    );
  }
  const user = await signInUser(ctx, id);
  if (!mayUsePassword(user)) throw userError('PM_USER_INVALID_CODE', 'The code is not valid');
  return signIn(ctx, user!);
}

/** The session of a signed-in user: an access token and a refresh token, and the sign-in recorded (an effect). */
export async function signIn(ctx: UserStaticCtx<unknown>, user: ProgramManagementUserRecord) {
  const session = await ctx.tokens.issue({
    sub: user.id,
    type: TOKEN_TYPE,
    ...(user.type === 'company' && user.companyId ? { tenant: user.companyId } : {}),
    refresh: true,
  });
  await ctx.effect({ classId: CLASS_ID, method: 'recordSignIn', instanceId: user.id, body: { at: now() } });
  return {
    accessToken: session.token,
    expiresAt: session.expiresAt,
    refreshToken: session.refreshToken,
    user: { ...user, lastLoginAt: now() },
  };
}

export async function resendOtp(ctx: UserStaticCtx<ResendOtpInput>) {
  const id = callerId(ctx);
  await throttleAccount(ctx, 'resendOtp', id);
  const user = await signInUser(ctx, id);
  if (!mayUsePassword(user)) throw userError('PM_USER_INVALID_CODE', 'Sign in with email and password first');
  await mailLoginCode(ctx, user!);
  return { sent: true };
}
