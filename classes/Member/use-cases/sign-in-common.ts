/**
 * What Member's sign-in use cases share: the Otp types and the token kinds,
 * the requester an OTP's history records, throttling (ctx.limits), the
 * session a signed-in member gets, the password policy's 400, the member as
 * sign-in sees it, and recognising Otp's 429s.
 */
import type { ActorError, BaseCtx, DeepReadonly, TokenIssuer } from '../../../runtime';
import { addressBucket } from '../../_platform/address-bucket';
import { passwordProblems } from '../../_platform/passwords';
import type { Actor } from '../../_platform/actor';
import type { RequesterDetails } from '../../Otp/Otp.class';
import { memberError } from '../errors';
import type { MemberPrivateState, MemberProfile } from '../types';
import { mayClaimWithCode, throttleCounter, type SignInView, type ThrottledOperation } from '../sign-in-rules';

export const CLASS_ID = 'Member';
/** Otp types of a member's codes (one instance per member: `Member_<memberId>`) */
export const LOGIN_OTP = 'login';
export const INVITATION_OTP = 'invitation';
export const RESET_OTP = 'password_reset';
/** what the token login answers may call: the OTP step, nothing else */
export const OTP_STEP_METHODS = [`${CLASS_ID}.checkOtp`, `${CLASS_ID}.resendOtp`];

/** NotificationManager templates (builtins.ts) */
export const LOGIN_TEMPLATE = 'OTP_MEMBER_LOGIN';
export const RESET_TEMPLATE = 'OTP_MEMBER_PASSWORD_RESET';
/** The invitation's template: `name`, `inviteUrl` (inviteRedirect with the token) and `otp` (the link token). */
export const INVITATION_TEMPLATE = 'MEMBER_INVITATION';

/** The caller's address and user agent, as an OTP's history records them (spec 2.8 requesterDetails). */
export function requesterDetails(ctx: Pick<BaseCtx, 'identity' | 'request'>, identity?: string): RequesterDetails {
  const ua = ctx.request.headers?.['user-agent'];
  const userAgent = (Array.isArray(ua) ? ua[0] : ua)?.slice(0, 512);
  const ip = ctx.request.ip?.slice(0, 64);
  return {
    identity: identity ?? ctx.identity.type,
    ...(userAgent ? { userAgent } : {}),
    ...(ip ? { ipAddress: ip } : {}),
  };
}

async function hit(
  ctx: Pick<BaseCtx, 'limits'>,
  counter: { name: string; limit: { max: number; windowSeconds: number } },
  key: string,
): Promise<void> {
  const r = await ctx.limits.hit(counter.name, key, counter.limit);
  if (r.allowed) return;
  throw memberError('TOO_MANY_ATTEMPTS', `Too many attempts: try again in ${r.retryAfterSeconds} s`, {
    retryAfterSeconds: r.retryAfterSeconds,
  });
}

/**
 * One hit on the operation's per-address counter (429 5035 past it), keyed by
 * addressBucket: an IPv4 address, an IPv6 /64 (whose owner has all of it);
 * calls without an address count under `none`.
 */
export async function throttleAddress(ctx: Pick<BaseCtx, 'limits' | 'request'>, op: ThrottledOperation): Promise<void> {
  const counter = throttleCounter(op, 'address');
  if (counter) await hit(ctx, counter, addressBucket(ctx.request.ip));
}

/** One hit on the operation's per-account counter, keyed by the lower-cased email or the member id. */
export async function throttleAccount(
  ctx: Pick<BaseCtx, 'limits'>,
  op: ThrottledOperation,
  account: string,
): Promise<void> {
  const counter = throttleCounter(op, 'account');
  if (counter) await hit(ctx, counter, account);
}

/** The member as sign-in reads it: no hash, only whether there is one. */
export function signInView(profile: DeepReadonly<MemberProfile>, state: DeepReadonly<MemberPrivateState>): SignInView {
  return {
    id: profile.id,
    status: profile.status,
    loginMethod: profile.loginMethod,
    email: profile.email,
    name: profile.name,
    middleName: profile.middleName ?? null,
    surname: profile.surname,
    hasPassword: Boolean(state.credentials?.passwordHash),
  };
}

/** Is the member a dependant that may choose its first password with a registration code? (sign-in-rules mayClaimWithCode) */
export function claimable(profile: DeepReadonly<MemberProfile>, state: DeepReadonly<MemberPrivateState>): boolean {
  return mayClaimWithCode({ ...signInView(profile, state), primaryMemberId: profile.primaryMemberId ?? null });
}

/** The actor of a member's own sign-in step (an anonymous caller proving it is the member). */
export function memberActor(memberId: string): Actor {
  return { id: memberId, type: 'member' };
}

function refuseProblems(problems: ReturnType<typeof passwordProblems>): void {
  if (problems.length)
    throw memberError('WEAK_PASSWORD', `The password is not allowed: ${problems.map((p) => p.reason).join('; ')}`, {
      errors: problems,
    });
}

/**
 * 400 5038 when the policy refuses `password` for this member (its email and
 * names may not be in it); `details.errors` names the field and the reasons.
 * Its answer tells whether a word is the member's email or name: call it only
 * for a caller who proved to be the member (a session, a matched link token).
 */
export function checkPasswordPolicy(
  password: string,
  m: Pick<SignInView, 'email' | 'name' | 'middleName' | 'surname'>,
  field = 'password',
): void {
  refuseProblems(passwordProblems(password, { email: m.email, words: [m.name, m.middleName, m.surname], field }));
}

/**
 * 400 5038 for the policy's rules that need no account (length, common
 * passwords, distinct characters, sequences): what a link token's holder is
 * told before the token is checked, since it says nothing of the member.
 */
export function checkContextFreePasswordPolicy(password: string, field = 'password'): void {
  refuseProblems(passwordProblems(password, { field }));
}

export const invalidCode = (message = 'The code is not valid') => memberError('INVALID_CODE', message);

/** 401 5037 for a code Otp did not accept: how many tries are left for a wrong one, else why (expired, spent) */
export function refusedCode(check: { validationResult?: string; remainingAttempts?: number }): ActorError {
  return memberError(
    'INVALID_CODE',
    'The code is not valid',
    check.validationResult === 'invalid_token'
      ? { remainingAttempts: check.remainingAttempts }
      : { validationResult: check.validationResult },
  );
}

/** A signed-in member's session: a short-lived enduser access token and a refresh token (exchanged at POST /<projectId>/auth/refresh). */
export async function openSession(ctx: { readonly tokens: TokenIssuer }, memberId: string) {
  const s = await ctx.tokens.issue({ sub: memberId, type: 'enduser', refresh: true });
  return {
    memberId,
    accessToken: s.token,
    expiresAt: s.expiresAt,
    ...(s.refreshToken ? { refreshToken: s.refreshToken } : {}),
  };
}
