/**
 * Otp's pure rules (classes/Otp/rules.ts): config and defaults, instance ids,
 * the issue limit, the retry limit and what a check finds, the bounded
 * history and records, and what callers see.
 */
import {
  additionalDataProblem,
  appendCheck,
  checkDecision,
  countedFailures,
  DEFAULT_OTP_CONFIG,
  HISTORY_CAP,
  issueDecision,
  otpConfigFrom,
  parseInstanceId,
  pruneRecords,
  recordViews,
} from '../../classes/Otp/rules';
import type { OtpCheck, OtpConfig, OtpRecord, ValidationResult } from '../../classes/Otp/types';
import { refusedInput } from '../../classes/Otp/use-cases/common';
import { queryInput, toFieldErrors } from '../../runtime/actor/validation';
import { methodValidator } from '../support/schema-check';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const S = 1000;
const MIN = 60 * S;
const iso = (t: number) => new Date(t).toISOString();
const config: OtpConfig = { ...DEFAULT_OTP_CONFIG }; // 5 per 900 s, valid 300 s, 5 failures per 900 s

let n = 0;
function record(at: number, extra: Partial<OtpRecord> = {}): OtpRecord {
  n += 1;
  return {
    id: `r${n}`,
    otpType: 'login',
    token: 'hmac-sha256:x',
    tokenType: 'numeric',
    createdAt: iso(at),
    expiresAt: iso(at + 300 * S),
    history: [],
    ...extra,
  };
}
function check(at: number, validationResult?: ValidationResult): OtpCheck {
  return {
    timestamp: iso(at),
    isSuccessful: validationResult === undefined,
    ...(validationResult ? { validationResult } : {}),
    requestedBy: 'u',
    requesterDetails: { identity: 'anonymous' },
  };
}
const never = () => false;
const always = () => true;

describe('config', () => {
  test('defaults: 5 OTPs and 5 failed checks per 15 minutes, each OTP valid 5 minutes', () => {
    expect(otpConfigFrom({})).toEqual({
      otpLimit: 5,
      otpExpireTimeInSeconds: 300,
      retryLimit: 5,
      retryExpireTimeInSeconds: 900,
    });
  });

  test('each value from its environment variable; out of bounds stops the start', () => {
    expect(
      otpConfigFrom({
        OTP_LIMIT: '3',
        OTP_EXPIRE_TIME_SECONDS: '120',
        OTP_RETRY_LIMIT: '10',
        OTP_RETRY_EXPIRE_TIME_SECONDS: '3600',
      }),
    ).toEqual({
      otpLimit: 3,
      otpExpireTimeInSeconds: 120,
      retryLimit: 10,
      retryExpireTimeInSeconds: 3600,
    });
    expect(otpConfigFrom({ OTP_LIMIT: '' }).otpLimit).toBe(5);
    for (const [name, value] of [
      ['OTP_LIMIT', '0'],
      ['OTP_LIMIT', '101'],
      ['OTP_RETRY_LIMIT', '2.5'],
      ['OTP_EXPIRE_TIME_SECONDS', 'ten'],
      ['OTP_RETRY_EXPIRE_TIME_SECONDS', '-5'],
    ]) {
      expect(() => otpConfigFrom({ [name!]: value })).toThrow(name);
    }
  });
});

test('instance ids are {classKey}_{entityId}, split at the first underscore', () => {
  expect(parseInstanceId('Member_m-1')).toEqual({ classKey: 'Member', entityId: 'm-1' });
  expect(parseInstanceId('ProgramManagementUser_u_1@x.com')).toEqual({
    classKey: 'ProgramManagementUser',
    entityId: 'u_1@x.com',
  });
  for (const bad of [undefined, '', 'Member', 'Member_', '_m1', '1Member_m', 'Mem-ber_m', 'Member_a b'])
    expect([bad, parseInstanceId(bad)]).toEqual([bad, undefined]);
});

describe('issue limit (otpLimit per window)', () => {
  test('5 issues in 15 minutes; the 6th waits until the oldest leaves the window', () => {
    const records = [0, 1, 2, 3, 4].map((i) => record(T0 + i * MIN));
    expect(issueDecision(records.slice(0, 4), 'login', T0 + 5 * MIN, config)).toEqual({ allowed: true });
    const refused = issueDecision(records, 'login', T0 + 5 * MIN, config);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 600, newest: records[4] });
    // once the first is 15 minutes old it no longer counts
    expect(issueDecision(records, 'login', T0 + 15 * MIN + 1, config)).toEqual({ allowed: true });
  });

  test('other types do not count', () => {
    const records = [0, 1, 2, 3, 4].map((i) => record(T0 + i * S, { otpType: 'invite' }));
    expect(issueDecision(records, 'login', T0 + 10 * S, config)).toEqual({ allowed: true });
    expect(issueDecision(records, 'invite', T0 + 10 * S, config).allowed).toBe(false);
  });
});

describe('checks', () => {
  test('the newest OTP, unused and unexpired, matched; a match is successful', () => {
    const old = record(T0);
    const newest = record(T0 + MIN);
    const seen: string[] = [];
    const d = checkDecision([old, newest], 'login', T0 + 2 * MIN, config, (r) => (seen.push(r.id), true));
    expect(d).toEqual({ isSuccessful: true, record: newest });
    // only the newest is compared: issuing another supersedes the older one
    expect(seen).toEqual([newest.id]);
  });

  test('no OTP of the type, a used one or an expired one: no_active_otp (written to the newest, when there is one)', () => {
    expect(checkDecision([], 'login', T0, config, always)).toEqual({
      isSuccessful: false,
      validationResult: 'no_active_otp',
      record: undefined,
    });
    const used = record(T0, { usedAt: iso(T0 + S) });
    expect(checkDecision([used], 'login', T0 + 2 * S, config, always)).toEqual({
      isSuccessful: false,
      validationResult: 'no_active_otp',
      record: used,
    });
    const r = record(T0);
    expect(checkDecision([r], 'login', T0 + 300 * S - 1, config, always).isSuccessful).toBe(true);
    expect(checkDecision([r], 'login', T0 + 300 * S, config, always)).toEqual({
      isSuccessful: false,
      validationResult: 'no_active_otp',
      record: r,
    });
  });

  test('a wrong token is invalid_token with the attempts left', () => {
    const r = record(T0);
    expect(checkDecision([r], 'login', T0 + S, config, never)).toEqual({
      isSuccessful: false,
      validationResult: 'invalid_token',
      record: r,
      remainingAttempts: 4,
    });
    r.history.push(check(T0 + S, 'invalid_token'), check(T0 + 2 * S, 'invalid_token'));
    expect(checkDecision([r], 'login', T0 + 3 * S, config, never)).toMatchObject({
      validationResult: 'invalid_token',
      remainingAttempts: 2,
    });
  });

  test('after 5 failed checks in the window every check is refused, the right token too, until the oldest failure leaves it', () => {
    const first = record(T0, { history: [check(T0 + 1 * MIN, 'invalid_token'), check(T0 + 2 * MIN, 'invalid_token')] });
    // failures on an older record of the type count too
    const second = record(T0 + 3 * MIN, { history: [3, 4, 5].map((m) => check(T0 + m * MIN, 'invalid_token')) });
    const records = [first, second];
    expect(countedFailures(records, 'login', T0 + 6 * MIN, config)).toHaveLength(5);
    expect(checkDecision(records, 'login', T0 + 6 * MIN, config, always)).toEqual({
      isSuccessful: false,
      validationResult: 'retry_limit_exceed',
      record: second,
      retryAfterSeconds: 600, // the failure at 1 min leaves the 15-minute window at 16 min
    });
    // the OTP itself has expired by then (valid 5 min from 3 min): no_active_otp
    expect(checkDecision(records, 'login', T0 + 16 * MIN + 1, config, always)).toMatchObject({
      validationResult: 'no_active_otp',
    });
    const longLived = { ...config, otpExpireTimeInSeconds: 3600 };
    second.expiresAt = iso(T0 + 63 * MIN);
    expect(checkDecision(records, 'login', T0 + 16 * MIN + 1, longLived, always).isSuccessful).toBe(true);
  });

  test('refusals, no_active_otp and failures before the last success or outside the window are not counted', () => {
    const r = record(T0, {
      history: [
        check(T0 + 1 * S, 'invalid_token'),
        check(T0 + 2 * S, 'invalid_token'),
        check(T0 + 3 * S), // success
        check(T0 + 4 * S, 'invalid_token'),
        check(T0 + 5 * S, 'retry_limit_exceed'),
        check(T0 + 6 * S, 'no_active_otp'),
        check(T0 + 7 * S, 'otp_limit_exceed'),
      ],
    });
    expect(countedFailures([r], 'login', T0 + 10 * S, config)).toEqual([T0 + 4 * S]);
    expect(countedFailures([r], 'login', T0 + 4 * S + 900 * S, config)).toEqual([]);
    expect(countedFailures([r], 'invite', T0 + 10 * S, config)).toEqual([]);
  });
});

describe('bounded history and records', () => {
  test(`a history keeps ${HISTORY_CAP} entries: refusals go before failures the limit still counts`, () => {
    const r = record(T0);
    for (let i = 0; i < 5; i++) appendCheck(r, check(T0 + i * S, 'invalid_token'), T0 + i * S, config);
    for (let i = 0; i < 200; i++)
      appendCheck(r, check(T0 + (10 + i) * S, 'retry_limit_exceed'), T0 + (10 + i) * S, config);
    expect(r.history).toHaveLength(HISTORY_CAP);
    expect(countedFailures([r], 'login', T0 + 300 * S, config)).toHaveLength(5);
    expect(r.history.filter((h) => h.validationResult === 'retry_limit_exceed')).toHaveLength(HISTORY_CAP - 5);
    // once out of the window, the oldest entries go first
    appendCheck(r, check(T0 + 2000 * S), T0 + 2000 * S, config);
    expect(r.history).toHaveLength(HISTORY_CAP);
    expect(r.history[0]!.timestamp).toBe(iso(T0 + 1 * S));
  });

  test('records kept: the 3 newest of each type, and any the limits still count', () => {
    const late = T0 + 100 * MIN;
    const old = [0, 1, 2, 3, 4].map((i) => record(T0 + i * MIN));
    const checkedLately = record(T0 + 5 * MIN, { history: [check(late - MIN, 'invalid_token')] });
    const recent = [record(late - 3 * MIN), record(late - 2 * MIN), record(late - MIN)];
    const other = record(T0, { otpType: 'invite' });
    const kept = pruneRecords([...old, checkedLately, ...recent, other], late, config);
    expect(kept.map((r) => r.id)).toEqual([checkedLately.id, ...recent.map((r) => r.id), other.id]);
    // within the window everything issued stays (the issue limit counts them)
    const inWindow = [0, 1, 2, 3, 4].map((i) => record(late + i * S));
    expect(pruneRecords(inWindow, late + 10 * S, config)).toHaveLength(5);
  });
});

test('what callers see: newest first, no token hash, a status, one type or all', () => {
  const a = record(T0, { usedAt: iso(T0 + S) });
  const b = record(T0 + S);
  const c = record(T0 + 2 * S);
  const d = record(T0, { otpType: 'invite', expiresAt: iso(T0 + S) });
  const views = recordViews([a, b, c, d], undefined, T0 + 10 * S);
  expect(views.map((v) => [v.id, v.status])).toEqual([
    [d.id, 'expired'],
    [c.id, 'active'],
    [b.id, 'superseded'],
    [a.id, 'used'],
  ]);
  expect(views.every((v) => !('token' in v))).toBe(true);
  expect(recordViews([a, b, c, d], 'invite', T0).map((v) => v.id)).toEqual([d.id]);
});

test("getOtpRecords' filter: the schema takes an otpType of 1-64 letters, digits, _ . or -, from a body or a query", () => {
  const v = methodValidator('Otp', 'getOtpRecords');
  const refused = (input: unknown) => (v(input) ? [] : toFieldErrors(v.errors).map((e) => e.field));
  expect(refused({})).toEqual([]);
  expect(refused({ otpType: 'login' })).toEqual([]);
  expect(refused(queryInput({ otpType: 'invite' }, v))).toEqual([]);
  expect(refused(queryInput({ otpType: ['a', 'b'] }, v))).toEqual(['otpType']);
  expect(refused({ otpType: 'a:b' })).toEqual(['otpType']);
  expect(refused({ otpType: 'x'.repeat(65) })).toEqual(['otpType']);
  expect(refused({ otpType: 'login', colour: 'red' })).toEqual(['colour']);
  expect(refusedInput([{ field: 'otpType', reason: 'must be a string' }])).toMatchObject({
    status: 400,
    code: 15002,
    details: { errors: [{ field: 'otpType', reason: 'must be a string' }] },
  });
});

test('inputs the schema cannot judge', () => {
  expect(additionalDataProblem(undefined)).toBeUndefined();
  expect(additionalDataProblem({ a: 'x'.repeat(100) })).toBeUndefined();
  expect(additionalDataProblem({ a: 'x'.repeat(2000) })).toEqual({
    field: 'additionalData',
    reason: 'must be at most 2000 characters as JSON',
  });
});
