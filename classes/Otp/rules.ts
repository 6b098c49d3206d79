/**
 * Otp's rules, pure (times are passed in): the instance id, the config and its
 * defaults, the two limits (issues and failed checks per entity and type in a
 * sliding window), what a check finds, the bounded history and records, and
 * what callers see of a record. Unit-tested in test/Otp/rules.test.ts.
 */
import type { FieldError } from '../../runtime';
import type { OtpCheck, OtpConfig, OtpRecord, OtpStatus, OtpView, ValidationResult } from './types';

export { DEFAULT_OTP_CONFIG, OTP_CONFIG_ENV, otpConfigFrom, otpInstanceId } from '../_platform/otp';

/** the longest validity one issue may ask for (an invitation link) */
export const MAX_EXPIRE_SECONDS = 30 * 24 * 3600;
/** entries a record's history keeps (see appendCheck for which go first) */
export const HISTORY_CAP = 50;
/** records of one type kept whatever their age (besides those the limits still count) */
export const KEEP_NEWEST = 3;
/** additionalData, as JSON, at most */
export const ADDITIONAL_DATA_MAX_CHARS = 2000;

const CLASS_KEY = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
const ENTITY_ID = /^[A-Za-z0-9_.@+\-=]{1,190}$/;

/** Spec 4.5: `{classKey}_{entityId}`, split at the first `_` (class keys have none). */
export function parseInstanceId(id: string | undefined): { classKey: string; entityId: string } | undefined {
  if (typeof id !== 'string') return undefined;
  const cut = id.indexOf('_');
  if (cut < 1) return undefined;
  const classKey = id.slice(0, cut);
  const entityId = id.slice(cut + 1);
  return CLASS_KEY.test(classKey) && ENTITY_ID.test(entityId) ? { classKey, entityId } : undefined;
}

/** additionalData larger than ADDITIONAL_DATA_MAX_CHARS as JSON (the schema bounds its keys, not its size). */
export function additionalDataProblem(value: unknown, field = 'additionalData'): FieldError | undefined {
  if (value === undefined) return undefined;
  return JSON.stringify(value).length > ADDITIONAL_DATA_MAX_CHARS
    ? { field, reason: `must be at most ${ADDITIONAL_DATA_MAX_CHARS} characters as JSON` }
    : undefined;
}

const ms = (iso: string) => Date.parse(iso);

/** The records of one type, oldest first. */
export function recordsOfType(records: readonly OtpRecord[], otpType: string): OtpRecord[] {
  return records.filter((r) => r.otpType === otpType);
}

/**
 * Seconds until one more event is allowed, given the times (ms) of the events
 * the limit counts, oldest first, `limit` of them allowed per `windowMs`: the
 * event that has to leave the window first is the (n - limit + 1)th oldest.
 */
function secondsUntilRoom(times: number[], limit: number, windowMs: number, nowMs: number): number {
  const leaving = times[times.length - limit];
  return Math.max(1, Math.ceil((leaving + windowMs - nowMs) / 1000));
}

export type IssueDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; newest: OtpRecord };

/** otpLimit: OTPs of the type issued within the window (retryExpireTimeInSeconds), used or not. */
export function issueDecision(
  records: readonly OtpRecord[],
  otpType: string,
  nowMs: number,
  config: OtpConfig,
): IssueDecision {
  const windowMs = config.retryExpireTimeInSeconds * 1000;
  const mine = recordsOfType(records, otpType);
  const times = mine.map((r) => ms(r.createdAt)).filter((t) => t > nowMs - windowMs);
  if (times.length < config.otpLimit) return { allowed: true };
  return {
    allowed: false,
    retryAfterSeconds: secondsUntilRoom(times, config.otpLimit, windowMs, nowMs),
    newest: mine[mine.length - 1],
  };
}

/**
 * The failed checks retryLimit counts: `invalid_token` answers to checks of the
 * type within the window, after its last successful check. Refusals
 * (`retry_limit_exceed`) are not counted, or a caller hammering a closed
 * limit would keep it closed; nor is `no_active_otp` (nothing could be guessed).
 */
export function countedFailures(
  records: readonly OtpRecord[],
  otpType: string,
  nowMs: number,
  config: OtpConfig,
): number[] {
  const windowMs = config.retryExpireTimeInSeconds * 1000;
  let since = nowMs - windowMs;
  const failures: number[] = [];
  for (const r of recordsOfType(records, otpType)) {
    for (const h of r.history) {
      const t = ms(h.timestamp);
      if (h.isSuccessful) since = Math.max(since, t);
      else if (h.validationResult === 'invalid_token') failures.push(t);
    }
  }
  return failures.filter((t) => t > since).sort((a, b) => a - b);
}

export type CheckDecision =
  | { isSuccessful: true; record: OtpRecord }
  | { isSuccessful: false; validationResult: 'retry_limit_exceed'; record: OtpRecord; retryAfterSeconds: number }
  | { isSuccessful: false; validationResult: 'no_active_otp'; record?: OtpRecord }
  | { isSuccessful: false; validationResult: 'invalid_token'; record: OtpRecord; remainingAttempts: number };

/**
 * What a check of a token of `otpType` finds, in this order: the retry limit
 * (refused whatever the token, or guessing would go on), then the newest OTP
 * of the type (only the newest is valid: issuing another supersedes it),
 * unused and unexpired, then the token (`matches`, a constant-time compare).
 * `record` is the record the check is written to (the newest of the type; none
 * when the entity never had an OTP of the type).
 */
export function checkDecision(
  records: readonly OtpRecord[],
  otpType: string,
  nowMs: number,
  config: OtpConfig,
  matches: (record: OtpRecord) => boolean,
): CheckDecision {
  const mine = recordsOfType(records, otpType);
  const newest = mine[mine.length - 1];
  const failures = countedFailures(records, otpType, nowMs, config);
  if (failures.length >= config.retryLimit && newest) {
    const retryAfterSeconds = secondsUntilRoom(
      failures,
      config.retryLimit,
      config.retryExpireTimeInSeconds * 1000,
      nowMs,
    );
    return { isSuccessful: false, validationResult: 'retry_limit_exceed', record: newest, retryAfterSeconds };
  }
  if (!newest || newest.usedAt !== undefined || ms(newest.expiresAt) <= nowMs)
    return { isSuccessful: false, validationResult: 'no_active_otp', record: newest };
  if (!matches(newest))
    return {
      isSuccessful: false,
      validationResult: 'invalid_token',
      record: newest,
      remainingAttempts: config.retryLimit - failures.length - 1,
    };
  return { isSuccessful: true, record: newest };
}

const REFUSALS: ReadonlySet<ValidationResult | undefined> = new Set<ValidationResult | undefined>([
  'retry_limit_exceed',
  'otp_limit_exceed',
]);

/**
 * Adds an entry to a record's history, keeping at most HISTORY_CAP: the first
 * to go is the oldest entry outside the window, then the oldest refusal
 * (`retry_limit_exceed`, `otp_limit_exceed`), then the oldest entry. Failures
 * the retry limit still counts are never dropped for refusals, so hammering a
 * closed limit cannot push them out and reopen it.
 */
export function appendCheck(record: OtpRecord, entry: OtpCheck, nowMs: number, config: OtpConfig): void {
  record.history.push(entry);
  const since = nowMs - config.retryExpireTimeInSeconds * 1000;
  while (record.history.length > HISTORY_CAP) {
    let drop = record.history.findIndex((h) => ms(h.timestamp) <= since);
    if (drop < 0) drop = record.history.findIndex((h) => REFUSALS.has(h.validationResult));
    record.history.splice(Math.max(drop, 0), 1);
  }
}

/**
 * The records worth keeping: per type, the KEEP_NEWEST newest, and any the
 * limits still count (issued within the window, or with a check in it).
 * Everything else is past use: superseded or expired, and out of the window.
 * At most otpLimit + KEEP_NEWEST + 1 records per type stay.
 */
export function pruneRecords(records: readonly OtpRecord[], nowMs: number, config: OtpConfig): OtpRecord[] {
  const since = nowMs - config.retryExpireTimeInSeconds * 1000;
  const rank = new Map<OtpRecord, number>();
  const seen = new Map<string, number>();
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    const n = seen.get(r.otpType) ?? 0;
    rank.set(r, n);
    seen.set(r.otpType, n + 1);
  }
  return records.filter(
    (r) => rank.get(r)! < KEEP_NEWEST || ms(r.createdAt) > since || r.history.some((h) => ms(h.timestamp) > since),
  );
}

/** A record's status now: only the newest of its type can be active. */
export function statusOf(record: OtpRecord, isNewestOfType: boolean, nowMs: number): OtpStatus {
  if (record.usedAt !== undefined) return 'used';
  if (!isNewestOfType) return 'superseded';
  return ms(record.expiresAt) <= nowMs ? 'expired' : 'active';
}

/** What callers see of the records (of one type, or all): newest first, no token hash, with their status. */
export function recordViews(records: readonly OtpRecord[], otpType: string | undefined, nowMs: number): OtpView[] {
  const newest = new Map<string, OtpRecord>();
  for (const r of records) newest.set(r.otpType, r);
  const out: OtpView[] = [];
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (otpType !== undefined && r.otpType !== otpType) continue;
    const { token: _hash, ...rest } = r;
    out.push({
      ...rest,
      history: r.history.map((h) => ({ ...h })),
      status: statusOf(r, newest.get(r.otpType) === r, nowMs),
    });
  }
  return out;
}
