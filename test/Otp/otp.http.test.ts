/**
 * Otp on a real runtime (real Redis, BullMQ workers, HTTP): issuing and
 * checking as the calling classes do (the dispatcher's class-to-class path,
 * with a class identity), the history of spec 2.8, the two 429s (6001, 6002)
 * and their windows, the queued spec methods, tokens kept only as HMACs, and
 * who may call it (only ProgramManagementUser and Member, each for its own
 * entities; nobody over HTTP).
 */
import * as path from 'node:path';
import type { CallResult, Identity } from '../../runtime';
import { ActorError, client, projectRoot } from '../../runtime';
import type { Otp } from '../../classes/Otp/Otp.class';
import { isOtpLimit, otpAccepted } from '../../classes/_platform/otp';
import { generateOtpToken } from '../../classes/Otp/token';
import type { JobStatus } from '../../runtime/queue/job-queue';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const root = projectRoot();
const env = (extra: Record<string, string> = {}) => ({
  CLASS_DIRS: path.join(root, 'classes/Otp'),
  SCHEMA_DIRS: path.join(root, 'schemas'),
  OTP_SECRET: 'otp-test-secret-otp-test-secret-0123',
  ...extra,
});

const asClass = (classId: string, tenant?: string): Identity => ({
  type: 'class',
  classId,
  instanceId: 'caller-1',
  ...(tenant ? { tenant } : {}),
});
const MEMBER = asClass('Member');
const requester = {
  requestedBy: 'someone@example.com',
  requesterDetails: { identity: 'anonymous', userAgent: 'jest', ipAddress: '203.0.113.7' },
};
const entity = (classKey = 'Member') => `${classKey}_${uniqueProjectId('e')}`;

let t: TestRuntime;

/** a call's result, its body as the test reads it */
type Answer = Omit<CallResult, 'body'> & { body: any };

async function call(
  method: string,
  instanceId: string,
  body: unknown,
  identity: Identity = MEMBER,
  extra: Record<string, unknown> = {},
): Promise<Answer> {
  return t.rt.call('Otp', method, instanceId, body, { identity, ...extra });
}
const issue = (id: string, extra: Record<string, unknown> = {}, identity?: Identity) =>
  call('issueOtp', id, { otpType: 'login', tokenType: 'numeric', ...requester, ...extra }, identity);
const verify = (id: string, token: string, extra: Record<string, unknown> = {}, identity?: Identity) =>
  call('verifyOtp', id, { otpType: 'login', token, ...requester, ...extra }, identity);
const records = async (id: string, otpType?: string) =>
  (await call('getOtpRecords', id, otpType ? { otpType } : {})).body as { records: any[]; config: any };
/** a token that is not `token` (same format) */
const wrong = (token: string) => String((Number(token) + 1) % 1_000_000).padStart(6, '0');

async function job(jobId: string): Promise<JobStatus> {
  return waitFor<JobStatus | null>(
    async () => {
      const { status } = await t.rt.jobs.status(jobId);
      return status.status === 'completed' || status.status === 'failed' ? status : null;
    },
    { what: `job ${jobId}` },
  ) as Promise<JobStatus>;
}

beforeAll(async () => {
  t = await startTestRuntime({ env: env() });
});
afterAll(() => t.stop());

describe('issuing and checking (the sign-in path: WRITE, answered at once)', () => {
  test('issueOtp answers the token once; the state holds only its HMAC', async () => {
    const id = entity();
    const r = await issue(id, { additionalData: { purpose: 'login' } });
    expect(r.status).toBe(200);
    const { otp, token } = r.body as { otp: any; token: string };
    expect(token).toMatch(/^[0-9]{6}$/);
    expect(otp).toMatchObject({
      otpType: 'login',
      tokenType: 'numeric',
      status: 'active',
      additionalData: { purpose: 'login' },
      history: [],
    });
    expect(otp).not.toHaveProperty('token');
    expect(Date.parse(otp.expiresAt) - Date.parse(otp.createdAt)).toBe(300_000);
    const stored = await t.rt.store.read('Otp', id);
    expect(stored!.stateJson).not.toContain(token);
    const state = JSON.parse(stored!.stateJson).private;
    expect(state).toMatchObject({ classKey: 'Member', entityId: id.slice('Member_'.length) });
    expect(state.records[0].token).toMatch(/^hmac-sha256:/);
  });

  test('a wrong token, then the right one as typed, then again: invalid_token, success (spent), no_active_otp; all in the history', async () => {
    const id = entity();
    const { token } = (await issue(id)).body as { token: string };
    const bad = await verify(id, wrong(token));
    expect([bad.status, bad.body]).toEqual([
      200,
      { isSuccessful: false, validationResult: 'invalid_token', remainingAttempts: 4 },
    ]);
    const good = await verify(id, `${token.slice(0, 3)} ${token.slice(3)}`, { additionalData: { step: 2 } });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ isSuccessful: true, otp: { status: 'used' } });
    const again = await verify(id, token);
    expect(again.body).toEqual({ isSuccessful: false, validationResult: 'no_active_otp' });

    const [rec] = (await records(id)).records;
    expect(rec.status).toBe('used');
    expect(rec.usedAt).toBe(good.body.otp.usedAt);
    expect(rec.history.map((h: any) => [h.isSuccessful, h.validationResult])).toEqual([
      [false, 'invalid_token'],
      [true, undefined],
      [false, 'no_active_otp'],
    ]);
    expect(rec.history[1]).toMatchObject({ ...requester, additionalData: { step: 2 } });
    expect(rec).not.toHaveProperty('token');
  });

  test('only the newest OTP of a type is valid; types are separate; alphanumeric and uuid tokens', async () => {
    const id = entity();
    const first = (await issue(id)).body.token as string;
    const second = (await issue(id)).body.token as string;
    const invite = await issue(id, { otpType: 'invite', tokenType: 'uuid', expireTimeInSeconds: 7 * 24 * 3600 });
    expect(invite.body.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(invite.body.otp.expiresAt) - Date.parse(invite.body.otp.createdAt)).toBe(7 * 24 * 3600 * 1000);
    if (first !== second) expect((await verify(id, first)).body.validationResult).toBe('invalid_token');
    expect((await verify(id, second)).body.isSuccessful).toBe(true);
    expect((await verify(id, invite.body.token.toUpperCase(), { otpType: 'invite' })).body.isSuccessful).toBe(true);
    const code = await issue(id, { otpType: 'reset', tokenType: 'alphanumeric' });
    expect(code.body.token).toMatch(/^[A-Z2-9]{8}$/);
    expect((await verify(id, code.body.token.toLowerCase(), { otpType: 'reset' })).body.isSuccessful).toBe(true);
    const listed = await records(id, 'login');
    expect(listed.records.map((r: any) => r.status)).toEqual(['used', 'superseded']);
    expect(listed.config).toEqual({
      otpLimit: 5,
      otpExpireTimeInSeconds: 300,
      retryLimit: 5,
      retryExpireTimeInSeconds: 900,
    });
    // another type (a GET's query is this input too: test/Otp/rules.test.ts)
    const invites = await call('getOtpRecords', id, { otpType: 'invite' });
    expect((invites.body as any).records.map((r: any) => r.otpType)).toEqual(['invite']);
  });

  test('an OTP past its validity is expired: no_active_otp', async () => {
    const id = entity();
    const { token } = (await issue(id, { expireTimeInSeconds: 1 })).body as { token: string };
    await waitFor(async () => (await records(id)).records[0].status === 'expired', { what: 'the OTP to expire' });
    expect((await verify(id, token)).body).toEqual({ isSuccessful: false, validationResult: 'no_active_otp' });
  });

  test('checking an entity that never had an OTP: no_active_otp, nothing recorded', async () => {
    const id = entity();
    expect((await verify(id, '123456')).body).toEqual({ isSuccessful: false, validationResult: 'no_active_otp' });
    expect((await records(id)).records).toEqual([]);
  });
});

describe('limits (spec 7.1: 429 6001 and 6002)', () => {
  test('the 6th OTP of a type in the window is refused with 429 6001, Retry-After, and the refusal is in the history', async () => {
    const id = entity();
    for (let i = 0; i < 5; i++) expect((await issue(id)).status).toBe(200);
    const refused = await issue(id);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 6001,
      classId: 'Otp',
      isSuccessful: false,
      validationResult: 'otp_limit_exceed',
    });
    expect(refused.body.retryAfterSeconds).toBeGreaterThan(800);
    expect(refused.headers['retry-after']).toBe(String(refused.body.retryAfterSeconds));
    // another type is not limited by this one
    expect((await issue(id, { otpType: 'invite' })).status).toBe(200);
    const login = (await records(id, 'login')).records;
    expect(login).toHaveLength(5);
    expect(login[0].history).toEqual([
      expect.objectContaining({ isSuccessful: false, validationResult: 'otp_limit_exceed', ...requester }),
    ]);
  });

  test('after 5 failed checks every check is refused with 429 6002, the right token too', async () => {
    const id = entity();
    const { token } = (await issue(id)).body as { token: string };
    for (let i = 0; i < 5; i++) expect((await verify(id, wrong(token))).body.remainingAttempts).toBe(4 - i);
    const refused = await verify(id, token);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 6002,
      classId: 'Otp',
      isSuccessful: false,
      validationResult: 'retry_limit_exceed',
    });
    expect(refused.headers['retry-after']).toBe(String(refused.body.retryAfterSeconds));
    // a new OTP does not reopen the limit
    const fresh = (await issue(id)).body.token as string;
    expect((await verify(id, fresh)).status).toBe(429);
    const history = (await records(id)).records.flatMap((r: any) => r.history.map((h: any) => h.validationResult));
    expect(history.filter((v: string) => v === 'invalid_token')).toHaveLength(5);
    expect(history.filter((v: string) => v === 'retry_limit_exceed')).toHaveLength(2);
  });

  test('the calling classes get the 429s as Otp errors through otpAccepted', async () => {
    const ctx = {
      call: (classId: string, method: string, instanceId?: string, body?: unknown) =>
        t.rt.call(classId, method, instanceId, body, { identity: MEMBER }),
    };
    const otps = client<typeof Otp>(ctx, 'Otp');
    const issue = async (id: string) =>
      otpAccepted(await otps.issueOtp(id, { otpType: 'login', tokenType: 'numeric', ...requester }));
    const id = entity();
    const issued = await issue(id);
    expect(issued.token).toMatch(/^[0-9]{6}$/);
    for (let i = 0; i < 4; i++) await issue(id);
    const err = await issue(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ActorError);
    expect([(err as ActorError).status, (err as ActorError).code, (err as ActorError).classId]).toEqual([
      429,
      6001,
      'Otp',
    ]);
    expect((err as ActorError).details).toEqual({ retryAfterSeconds: expect.any(Number) });
    expect([isOtpLimit(err, 'OTP_LIMIT_EXCEEDED'), isOtpLimit(err, 'OTP_RETRY_LIMIT_EXCEEDED')]).toEqual([true, false]);
    const latest = (await otps.getOtpRecords(id, { otpType: 'login' })).records[0];
    expect(latest.status).toBe('active');
    const verify = async (token: string) =>
      otpAccepted(await otps.verifyOtp(id, { otpType: 'login', token, ...requester }));
    for (let i = 0; i < 5; i++) expect((await verify('not-it')).isSuccessful).toBe(false);
    const err2 = await verify('000000').catch((e: unknown) => e);
    expect([(err2 as ActorError).status, (err2 as ActorError).code]).toEqual([429, 6002]);
    expect(isOtpLimit(err2, 'OTP_RETRY_LIMIT_EXCEEDED')).toBe(true);
  });

  test('once the window passes, checks and issues are allowed again', async () => {
    // a 5 s window: the third issue and the third check must land inside the window their first
    // one opened, under load too; the waits for it to pass are on conditions
    const short = await startTestRuntime({
      env: env({ OTP_RETRY_EXPIRE_TIME_SECONDS: '5', OTP_LIMIT: '2', OTP_RETRY_LIMIT: '2' }),
    });
    try {
      const c = (method: string, id: string, body: unknown): Promise<Answer> =>
        short.rt.call('Otp', method, id, body, { identity: MEMBER });
      const id = entity();
      const { token } = (await c('issueOtp', id, { otpType: 'login', tokenType: 'numeric', ...requester })).body as {
        token: string;
      };
      await c('issueOtp', id, { otpType: 'login', tokenType: 'numeric', ...requester });
      expect((await c('issueOtp', id, { otpType: 'login', tokenType: 'numeric', ...requester })).status).toBe(429);
      const fresh = (await waitFor<string | null>(
        async () => {
          const r = await c('issueOtp', id, { otpType: 'login', tokenType: 'numeric', ...requester });
          return r.status === 200 ? (r.body as { token: string }).token : null;
        },
        { what: 'the issue window to pass' },
      )) as string;
      for (let i = 0; i < 2; i++) await c('verifyOtp', id, { otpType: 'login', token: wrong(fresh), ...requester });
      expect((await c('verifyOtp', id, { otpType: 'login', token: fresh, ...requester })).status).toBe(429);
      const ok = await waitFor(
        async () => {
          const r = await c('verifyOtp', id, { otpType: 'login', token: fresh, ...requester });
          return r.status === 200 ? r.body : null;
        },
        { what: 'the retry window to pass' },
      );
      expect(ok).toMatchObject({ isSuccessful: true });
      // the first OTP was superseded by the later ones
      expect((await c('verifyOtp', id, { otpType: 'login', token, ...requester })).body).toMatchObject({
        isSuccessful: false,
      });
    } finally {
      await short.stop();
    }
  });
});

describe('the queued spec methods (QUEUED_WRITE)', () => {
  test('createOtpRecord with the caller-made token, then createOtpCheckRecord: outcomes in the job results', async () => {
    const id = entity('ProgramManagementUser');
    const pm = asClass('ProgramManagementUser');
    const token = generateOtpToken('alphanumeric');
    const queued = await call(
      'createOtpRecord',
      id,
      { otpType: 'invite', tokenType: 'alphanumeric', token, ...requester },
      pm,
    );
    expect(queued.status).toBe(202);
    const created = await job((queued.body as { jobId: string }).jobId);
    expect(created.status).toBe('completed');
    expect(created.result).toMatchObject({ status: 200, body: { otp: { otpType: 'invite', status: 'active' } } });
    expect(JSON.stringify(created.result)).not.toContain(token);

    const wrongCheck = await job(
      (
        (await call('createOtpCheckRecord', id, { otpType: 'invite', token: 'ZZZZZZZZ', ...requester }, pm)).body as {
          jobId: string;
        }
      ).jobId,
    );
    expect(wrongCheck.result).toEqual({
      status: 200,
      body: { isSuccessful: false, validationResult: 'invalid_token', remainingAttempts: 4 },
    });
    const checked = await job(
      (
        (await call('createOtpCheckRecord', id, { otpType: 'invite', token, ...requester }, pm)).body as {
          jobId: string;
        }
      ).jobId,
    );
    expect(checked.result).toMatchObject({ status: 200, body: { isSuccessful: true, otp: { status: 'used' } } });
    expect((await call('getOtpRecords', id, {}, pm)).body).toMatchObject({
      records: [{ history: [{ validationResult: 'invalid_token' }, { isSuccessful: true }] }],
    });
  });

  test('a caller-made token that does not fit its tokenType fails the job with 400 15002; the 6th is 429 6001', async () => {
    const id = entity();
    const bad = await job(
      (
        (await call('createOtpRecord', id, { otpType: 'login', tokenType: 'numeric', token: 'abcdef', ...requester }))
          .body as { jobId: string }
      ).jobId,
    );
    expect(bad.status).toBe('failed');
    expect(bad.error).toMatchObject({
      status: 400,
      body: {
        code: 15002,
        details: { errors: [{ field: 'token', reason: 'must be 6 to 12 digits for tokenType numeric' }] },
      },
    });
    const jobs = [];
    for (let i = 0; i < 6; i++)
      jobs.push(
        (
          (
            await call('createOtpRecord', id, {
              otpType: 'login',
              tokenType: 'numeric',
              token: generateOtpToken('numeric'),
              ...requester,
            })
          ).body as { jobId: string }
        ).jobId,
      );
    const outcomes = [];
    for (const j of jobs) outcomes.push(await job(j));
    expect(outcomes.map((o) => o.result?.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(outcomes[5]!.result!.body).toMatchObject({ code: 6001, validationResult: 'otp_limit_exceed' });
  });
});

describe('who may call it', () => {
  test('a class reaches only its own entities; a bad instance id is 400 15000; other classes are refused', async () => {
    const id = entity('ProgramManagementUser');
    const mine = await issue(id, {}, asClass('ProgramManagementUser'));
    expect(mine.status).toBe(200);
    for (const [method, body] of [
      ['issueOtp', { otpType: 'login', tokenType: 'numeric', ...requester }],
      ['verifyOtp', { otpType: 'login', token: mine.body.token, ...requester }],
      ['getOtpRecords', {}],
    ] as const) {
      const err = await call(method, id, body, MEMBER).catch((e: ActorError) => e);
      expect([method, (err as ActorError).status, (err as ActorError).code]).toEqual([method, 403, 15001]);
    }
    // the OTP was not spent by the refused check
    expect((await verify(id, mine.body.token, {}, asClass('ProgramManagementUser'))).body.isSuccessful).toBe(true);
    const badId = await issue('no-underscore').catch((e: ActorError) => e);
    expect([(badId as ActorError).status, (badId as ActorError).code]).toEqual([400, 15000]);
    const tier = await issue(entity('Tier'), {}, asClass('Tier')).catch((e: ActorError) => e);
    expect([(tier as ActorError).status, (tier as ActorError).code]).toEqual([403, 1008]);
  });

  test('a class acting for a company user may issue and check (Otp is scoped by its callers)', async () => {
    const id = entity();
    const scoped = asClass('Member', 'c-1');
    const r = await issue(id, {}, scoped);
    expect(r.status).toBe(200);
    expect((await verify(id, r.body.token, {}, scoped)).body.isSuccessful).toBe(true);
  });

  test('over HTTP nobody reaches it: users are refused 403, anonymous callers 401', async () => {
    const id = entity();
    await issue(id);
    for (const identity of ['enduser', 'member_otp', 'program_management_user'] as const) {
      const bearer = { authorization: `Bearer ${t.token(identity, 'u-1', ['super'])}` };
      for (const method of ['issueOtp', 'verifyOtp', 'getOtpRecords', 'createOtpRecord', 'createOtpCheckRecord']) {
        const r = await t.post(`/${t.projectId}/CALL/Otp/${method}/${id}`, {}, bearer);
        expect([identity, method, r.status, r.body.code]).toEqual([identity, method, 403, 1008]);
      }
    }
    expect((await t.post(`/${t.projectId}/CALL/Otp/getOtpRecords/${id}`, {})).status).toBe(401);
  });

  test('inputs: the schema (400 1002) and what it cannot judge (400 15002)', async () => {
    const id = entity();
    const noRequester = await call('issueOtp', id, { otpType: 'login', tokenType: 'numeric' }).catch(
      (e: ActorError) => e,
    );
    expect([(noRequester as ActorError).status, (noRequester as ActorError).code]).toEqual([400, 1002]);
    const badType = await call('issueOtp', id, { otpType: 'login', tokenType: 'emoji', ...requester }).catch(
      (e: ActorError) => e,
    );
    expect((badType as ActorError).status).toBe(400);
    const big = await issue(id, { additionalData: { note: 'x'.repeat(3000) } }).catch((e: ActorError) => e);
    expect([(big as ActorError).status, (big as ActorError).code, (big as ActorError).details]).toEqual([
      400,
      15002,
      { errors: [{ field: 'additionalData', reason: 'must be at most 2000 characters as JSON' }] },
    ]);
    await issue(id);
    const query = await call('getOtpRecords', id, { otpType: 'bad:type' }).catch((e: ActorError) => e);
    expect([(query as ActorError).status, (query as ActorError).code]).toEqual([400, 15002]);
  });
});
