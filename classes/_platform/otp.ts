/**
 * What every class that hands out one-time codes shares about Otp without
 * importing it: the limits' config (read from the environment by Otp and by
 * the classes that explain the limits to their users), the instance id of an
 * entity's codes, and how a refused issue or check becomes Otp's own error.
 * Otp answers such a refusal with 429 and a body instead of throwing (so the
 * refusal stays in its history); a caller lets it through to its own caller
 * as Otp's 429 6001 or 6002 (with `details.retryAfterSeconds`):
 *
 *   const otps = client<typeof Otp>(ctx, 'Otp');
 *   const { token } = otpAccepted(await otps.issueOtp(otpInstanceId('Member', id), { otpType: 'login', ... }));
 */
import { classError, isClassError, type ActorError } from '../../runtime';

/** Spec 2.8 OTP config (env, README "Configuration"). */
export interface OtpConfig {
  /** OTPs of one type an entity may be issued within the window (retryExpireTimeInSeconds) */
  otpLimit: number;
  /** how long an OTP is valid, unless its issue says otherwise */
  otpExpireTimeInSeconds: number;
  /** failed checks of one type an entity may make within the window; then every check is refused */
  retryLimit: number;
  /** the window of both limits */
  retryExpireTimeInSeconds: number;
}

/** Spec 8 leaves the values open ("not shown"): these are ours (README "Configuration"). */
export const DEFAULT_OTP_CONFIG: Readonly<OtpConfig> = Object.freeze({
  otpLimit: 5,
  otpExpireTimeInSeconds: 300,
  retryLimit: 5,
  retryExpireTimeInSeconds: 900,
});

/** each config value: its environment variable and its bounds */
export const OTP_CONFIG_ENV: Readonly<Record<keyof OtpConfig, { name: string; min: number; max: number }>> =
  Object.freeze({
    otpLimit: { name: 'OTP_LIMIT', min: 1, max: 100 },
    otpExpireTimeInSeconds: { name: 'OTP_EXPIRE_TIME_SECONDS', min: 1, max: 30 * 24 * 3600 },
    retryLimit: { name: 'OTP_RETRY_LIMIT', min: 1, max: 50 },
    retryExpireTimeInSeconds: { name: 'OTP_RETRY_EXPIRE_TIME_SECONDS', min: 1, max: 7 * 24 * 3600 },
  });

/** The config from the environment: defaults for unset values; a value out of bounds stops the start. */
export function otpConfigFrom(env: NodeJS.ProcessEnv): OtpConfig {
  const out = { ...DEFAULT_OTP_CONFIG };
  for (const [field, { name, min, max }] of Object.entries(OTP_CONFIG_ENV) as [
    keyof OtpConfig,
    { name: string; min: number; max: number },
  ][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new Error(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
    out[field] = n;
  }
  return out;
}

/** The instance id of an entity's OTPs (for callers). */
export function otpInstanceId(classKey: string, entityId: string): string {
  return `${classKey}_${entityId}`;
}

/** the body of Otp's 429 for an issue or check past its limit */
interface OtpRefusal {
  isSuccessful: false;
  validationResult: 'otp_limit_exceed' | 'retry_limit_exceed';
  message: string;
  retryAfterSeconds: number;
}

function isRefusal(answer: unknown): answer is OtpRefusal {
  const v = (answer as Partial<OtpRefusal> | null)?.validationResult;
  return v === 'otp_limit_exceed' || v === 'retry_limit_exceed';
}

/** Otp's answer to issueOtp or verifyOtp, with a refusal past a limit thrown as Otp's error. */
export function otpAccepted<A>(answer: A): Exclude<A, { validationResult: OtpRefusal['validationResult'] }> {
  if (!isRefusal(answer)) return answer as Exclude<A, { validationResult: OtpRefusal['validationResult'] }>;
  const name = answer.validationResult === 'otp_limit_exceed' ? 'OTP_LIMIT_EXCEEDED' : 'OTP_RETRY_LIMIT_EXCEEDED';
  throw classError('Otp', name, answer.message, { retryAfterSeconds: answer.retryAfterSeconds });
}

/** Is `err` the error otpAccepted throws for that limit (Otp's 429 6001 or 6002)? */
export function isOtpLimit(err: unknown, name: 'OTP_LIMIT_EXCEEDED' | 'OTP_RETRY_LIMIT_EXCEEDED'): err is ActorError {
  return isClassError(err, 'Otp', name);
}
