/**
 * Member sign-in by email and password (spec 4.5, 5), and the identity source
 * of `enduser` tokens:
 *
 *   discoverAuthMethod {email, relayState?}  STATIC, public → {email, method: 'sso', loginUrl} for an email of
 *                                             a configured identity provider's domain, else {email, method:
 *                                             'email_password'}: decided by the domain alone, so the answer says
 *                                             nothing of accounts. An invited member who has not accepted yet
 *                                             gets a fresh invitation (restartInvitation, queued); an email of
 *                                             no member starts self-registration (self-registration.ts)
 *   login {email, password}                  STATIC, public → {otpRequired, memberId, token, expiresAt}: the
 *                                             password checked (verifyCredentials, a READ: no instance is held
 *                                             while it is hashed), a code mailed (OTP_MEMBER_LOGIN) and a
 *                                             member_otp token good for checkOtp and resendOtp only; 401 5036 for
 *                                             every refusal (unknown email, wrong password, a member who may not
 *                                             sign in by password), after as long as a match
 *   checkOtp {otp}                           WRITE, member_otp → {memberId, accessToken, expiresAt, refreshToken,
 *                                             member}; 401 5037, 429 6002
 *   resendOtp                                WRITE, member_otp → {sent: true}; 429 6001 past Otp's otpLimit
 *                                             (both: 401 1007 for a step token issued before the password last
 *                                             changed, since member_otp tokens have no identity source)
 *   resolveIdentity                          READ, the runtime's identity source of enduser tokens
 *
 * Every operation is throttled per address and per account (429 5035).
 */
import { ActorError, RuntimeCodes, client } from '../../../runtime';
import { verifyPassword } from '../../_platform/passwords';
import { samlSeen } from '../../_platform/saml';
import { notify } from '../../_platform/notify';
import { otpAccepted, otpInstanceId } from '../../_platform/otp';
import type { Otp } from '../../Otp/Otp.class';
import { memberError } from '../errors';
import {
  emailKey,
  memberIdByLookup,
  memberState,
  profileOf,
  type MemberCtx,
  type MemberReadCtx,
  type MemberStaticCtx,
  type NoBody,
} from '../member-state';
import { maySignIn, mayUsePassword, SAML_REPLAY_COUNTER, type SignInSettings, type SignInView } from '../sign-in-rules';
import { now, reachable } from './common';
import { members } from './self-client';
import type { StartSelfRegistrationBody } from './self-registration';
import {
  CLASS_ID,
  invalidCode,
  LOGIN_OTP,
  LOGIN_TEMPLATE,
  OTP_STEP_METHODS,
  openSession,
  refusedCode,
  requesterDetails,
  signInView,
  throttleAccount,
  throttleAddress,
} from './sign-in-common';
import type {
  VerifyCredentialsInput,
  CheckOtpInput,
  DiscoverAuthMethodInput,
  LoginInput,
} from '../../../schemas/Member/inputs';

/** verifyCredentials's answer: the member only when the password is right and the member may sign in with it */
export type CredentialsAnswer = { valid: true; member: SignInView } | { valid: false };

export async function discoverAuthMethod(ctx: MemberStaticCtx<DiscoverAuthMethodInput>, settings: SignInSettings) {
  await throttleAddress(ctx, 'discoverAuthMethod');
  const email = emailKey(ctx.request.body.email);
  await throttleAccount(ctx, 'discoverAuthMethod', email);
  const saml = settings.saml;
  const idp = saml?.idpForEmail(email) ?? null;
  if (saml && idp) {
    // the AuthnRequest's id is remembered (samlSeen) for singleSignOn to check the response's InResponseTo against
    const loginUrl = await saml.loginUrl(idp, samlSeen(ctx.limits, SAML_REPLAY_COUNTER), ctx.request.body.relayState);
    return { email, method: 'sso' as const, loginUrl };
  }
  // "starts OTP registration when absent": an invited member without a password gets a fresh invitation. Queued
  // for every member the email names (the job decides), so the answer neither waits for it nor tells anything.
  // An email of no member may be an employee's who registers themselves (self-registration.ts): a task asks HR and
  // mails a code only to an active employee. Either way one write to Redis, and the same answer.
  const id = await memberIdByLookup(ctx, 'email', email);
  if (id)
    await ctx.enqueue(CLASS_ID, 'restartInvitation', id, {
      requestedBy: email,
      requesterDetails: requesterDetails(ctx),
    });
  else
    ctx.schedule({
      method: 'startSelfRegistration',
      body: { email, requesterDetails: requesterDetails(ctx) } satisfies StartSelfRegistrationBody,
      delaySeconds: 0,
    });
  return { email, method: 'email_password' as const };
}

/**
 * READ, Member only: is `password` this member's, and may it sign in with it?
 * The hash never leaves the instance. A member without a usable password is
 * checked against a stand-in, as slowly.
 */
export async function verifyCredentials(ctx: MemberReadCtx<VerifyCredentialsInput>): Promise<CredentialsAnswer> {
  const state = memberState(ctx);
  const password = ctx.request.body.password;
  if (!state.profile) {
    await verifyPassword(password, null);
    return { valid: false };
  }
  const view = signInView(state.profile, state);
  const usable = mayUsePassword(view);
  const ok = await verifyPassword(password, usable ? state.credentials?.passwordHash : null);
  return ok && usable ? { valid: true, member: view } : { valid: false };
}

/** Mails a new sign-in code (429 6001 past Otp's otpLimit). */
async function mailLoginCode(ctx: MemberStaticCtx<unknown> | MemberCtx<unknown>, member: SignInView): Promise<void> {
  const { token } = otpAccepted(
    await client<typeof Otp>(ctx, 'Otp').issueOtp(otpInstanceId(CLASS_ID, member.id), {
      otpType: LOGIN_OTP,
      tokenType: 'numeric',
      requestedBy: member.id,
      requesterDetails: requesterDetails(ctx),
    }),
  );
  await notify(ctx, LOGIN_TEMPLATE, { to: [member.email!], parameters: { otp: token } });
}

export async function login(ctx: MemberStaticCtx<LoginInput>, settings: SignInSettings) {
  await throttleAddress(ctx, 'login');
  const email = emailKey(ctx.request.body.email);
  await throttleAccount(ctx, 'login', email);
  const password = ctx.request.body.password;
  const id = await memberIdByLookup(ctx, 'email', email);
  let member: SignInView | null = null;
  if (id) {
    const r = await members<{ verifyCredentials: typeof verifyCredentials }>(ctx).verifyCredentials(id, { password });
    if (r.valid) member = r.member;
  } else {
    // as slow as a known email: an unknown one is hashed against a stand-in
    await verifyPassword(password, null);
  }
  if (!member) throw memberError('INVALID_CREDENTIALS', 'The email or password is not correct');
  await mailLoginCode(ctx, member);
  const step = await ctx.tokens.issue({
    sub: member.id,
    type: 'member_otp',
    methods: OTP_STEP_METHODS,
    ttlSeconds: settings.otpStepTtlSeconds,
  });
  return { otpRequired: true, memberId: member.id, token: step.token, expiresAt: step.expiresAt };
}

/** What a signed-in member's answer shows of it (getMemberProfile has the rest). */
function memberSummary(v: SignInView) {
  return { id: v.id, name: v.name, surname: v.surname, email: v.email, status: v.status };
}

/** the session token claim of its issue time in ms (runtime/auth ISSUED_MS_CLAIM); `iat` is whole seconds */
const ISSUED_MS_CLAIM = 'iatMs';

/**
 * 401 1007 (the runtime's answer to an expired or outdated token) when the
 * caller's member_otp step token was issued before the member's password last
 * changed: member_otp has no identity source to apply validAfter, so the step
 * handlers do. A token without an issue time is refused too.
 */
function refuseStepTokenBeforePasswordChange(ctx: MemberCtx<unknown>, passwordChangedAt: string | undefined): void {
  if (!passwordChangedAt) return;
  const claims = ctx.identity.claims ?? {};
  const issuedMs = typeof claims[ISSUED_MS_CLAIM] === 'number' ? claims[ISSUED_MS_CLAIM] : Number(claims.iat) * 1000;
  if (issuedMs >= Date.parse(passwordChangedAt)) return;
  const { status, code } = RuntimeCodes.UNAUTHENTICATED;
  throw new ActorError(status, code, "This token was issued before the member's password changed: sign in again");
}

export async function checkOtp(ctx: MemberCtx<CheckOtpInput>) {
  const p = reachable(ctx);
  await throttleAccount(ctx, 'checkOtp', p.id);
  const state = memberState(ctx);
  refuseStepTokenBeforePasswordChange(ctx, state.credentials?.passwordChangedAt);
  const check = otpAccepted(
    await client<typeof Otp>(ctx, 'Otp').verifyOtp(otpInstanceId(CLASS_ID, p.id), {
      otpType: LOGIN_OTP,
      token: ctx.request.body.otp,
      requestedBy: p.id,
      requesterDetails: requesterDetails(ctx),
    }),
  );
  if (!check.isSuccessful) {
    throw refusedCode(check);
  }
  // the member may have been deactivated (or its password reset) since login
  const view = signInView(p, state);
  if (!mayUsePassword(view)) throw invalidCode();
  state.lastSignInAt = now();
  return { ...(await openSession(ctx, p.id)), member: memberSummary(view) };
}

export async function resendOtp(ctx: MemberCtx<NoBody>) {
  const p = reachable(ctx);
  await throttleAccount(ctx, 'resendOtp', p.id);
  const state = memberState(ctx);
  refuseStepTokenBeforePasswordChange(ctx, state.credentials?.passwordChangedAt);
  const view = signInView(p, state);
  if (!mayUsePassword(view)) throw invalidCode('Sign in with email and password first');
  await mailLoginCode(ctx, view);
  return { sent: true };
}

/**
 * The identity source of enduser tokens (runtime: ClassOptions.identitySource):
 * a member's token works while it may sign in (sign-in-rules SIGN_IN_STATUSES),
 * and only if issued after its last password change. Members hold no roles.
 */
export function resolveIdentity(ctx: MemberReadCtx) {
  const p = profileOf(ctx);
  const changed = memberState(ctx).credentials?.passwordChangedAt;
  return {
    active: maySignIn(p.status),
    roles: [] as string[],
    ...(changed ? { validAfter: changed } : {}),
    name: [p.name, p.surname].filter(Boolean).join(' '),
  };
}
