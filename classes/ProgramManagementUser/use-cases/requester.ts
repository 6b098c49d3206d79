/**
 * Who asks (spec 2.8 requestedBy / requesterDetails of an OTP) and the
 * throttling of the public sign-in operations: per address and per account,
 * shared by every process (ctx.limits), 429 4015 with Retry-After.
 */
import type { BaseCtx } from '../../../runtime';
import { addressBucket } from '../../_platform/address-bucket';
import type { RequesterDetails } from '../../Otp/Otp.class';
import { userError } from '../errors';

/** The caller's address and user agent, as an OTP's history records them. */
export function requesterDetails(ctx: Pick<BaseCtx, 'identity' | 'request'>): RequesterDetails {
  const ua = ctx.request.headers?.['user-agent'];
  const userAgent = (Array.isArray(ua) ? ua[0] : ua)?.slice(0, 512);
  const ip = ctx.request.ip?.slice(0, 64);
  return { identity: ctx.identity.type, ...(userAgent ? { userAgent } : {}), ...(ip ? { ipAddress: ip } : {}) };
}

/**
 * The limits of the public sign-in operations (README "Throttling"). Each
 * operation counts one hit per call on its address counter and, once the
 * email (or the signed-in user) is known, one on its account counter; a
 * refused hit is not counted. `perAccount` sits below Otp's own limits where
 * it protects a password (login); codes have Otp's retry limit behind them.
 */
export const THROTTLE = {
  discover: { perAddress: { max: 60, windowSeconds: 60 } },
  login: { perAddress: { max: 20, windowSeconds: 300 }, perAccount: { max: 10, windowSeconds: 900 } },
  checkOtp: { perAccount: { max: 10, windowSeconds: 300 } },
  resendOtp: { perAccount: { max: 5, windowSeconds: 300 } },
  passwordReset: { perAddress: { max: 10, windowSeconds: 900 }, perAccount: { max: 3, windowSeconds: 900 } },
  // per account: Otp's retry limit and window (UserSettings.codeAttempts), so that an account whose codes Otp
  // refuses answers as an unknown email does (README "No user enumeration")
  resetPassword: { perAddress: { max: 20, windowSeconds: 900 } },
  acceptInvitation: { perAddress: { max: 20, windowSeconds: 900 } },
  singleSignOn: { perAddress: { max: 30, windowSeconds: 300 } },
} as const;

export type ThrottledOperation = keyof typeof THROTTLE;

/** 429 4015; one message whatever the counter, when to try again in the details */
export function tooManyAttempts(retryAfterSeconds: number | undefined) {
  return userError('PM_USER_TOO_MANY_ATTEMPTS', 'Too many attempts: try again later', {
    retryAfterSeconds: retryAfterSeconds ?? 60,
  });
}

export type Limit = { max: number; windowSeconds: number };

async function hit(ctx: Pick<BaseCtx, 'limits'>, name: string, key: string, limit: Limit): Promise<void> {
  const r = await ctx.limits.hit(name, key, limit);
  if (r.allowed) return;
  throw tooManyAttempts(r.retryAfterSeconds);
}

/**
 * One hit on the operation's address counter, keyed by addressBucket: an IPv4
 * address, an IPv6 /64 (whose owner has all of it); calls without an address,
 * from classes, count under `none`.
 */
export async function throttleAddress(ctx: Pick<BaseCtx, 'limits' | 'request'>, op: ThrottledOperation): Promise<void> {
  const limits = THROTTLE[op] as { perAddress?: Limit };
  if (!limits.perAddress) return;
  await hit(ctx, `pmu.${op}.ip`, addressBucket(ctx.request.ip), limits.perAddress);
}

/** One hit on the operation's account counter, keyed by the (lower-cased) email or the user id; `limit` when the operation's is not fixed. */
export async function throttleAccount(
  ctx: Pick<BaseCtx, 'limits'>,
  op: ThrottledOperation,
  account: string,
  limit?: Limit,
): Promise<void> {
  const perAccount = limit ?? (THROTTLE[op] as { perAccount?: Limit }).perAccount;
  if (!perAccount) return;
  await hit(ctx, `pmu.${op}.account`, account, perAccount);
}
