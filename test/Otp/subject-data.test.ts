/**
 * Otp.exportSubjectData over real Redis and HTTP: the subject's OTP records
 * with their checks for DataSubject, without the token HMACs; nothing for a
 * partner user or an entity never issued one; only DataSubject may ask, only
 * this class reads the records through readOtpRecords; a caller limited to a
 * company gets only its company's subjects, by the company DataSubject hands
 * over (Otp keeps none).
 */
import type { TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';
import {
  asClass,
  expectClassOwn,
  expectDataSubjectOnly,
  expectOnlyHandedOverCompany,
  expectValidAnswer,
  exportBody,
  exportedBy,
  startSubjectRuntime,
  storedState,
} from '../support/subject-data';

let t: TestRuntime;

beforeAll(async () => {
  t = await startSubjectRuntime({ CLASS_DIRS: 'classes/Otp', OTP_SECRET: 'otp-test-secret-otp-test-secret-0123' });
});
afterAll(() => t.stop());

const requester = {
  requestedBy: 'ann@example.com',
  requesterDetails: { identity: 'anonymous', userAgent: 'jest', ipAddress: '203.0.113.7' },
};

/** an OTP issued, or a code checked, as the entity's own class does it */
async function otpCall(classKey: string, method: string, entityId: string, body: Record<string, unknown>) {
  const r = await t.rt.call(
    'Otp',
    method,
    `${classKey}_${entityId}`,
    { otpType: 'login', ...requester, ...body },
    asClass(classKey),
  );
  expect(r.status).toBe(200);
  return r.body as Record<string, any>;
}
const issue = (classKey: string, id: string, extra: Record<string, unknown> = {}) =>
  otpCall(classKey, 'issueOtp', id, { tokenType: 'numeric', ...extra });
const verify = (classKey: string, id: string, token: string) => otpCall(classKey, 'verifyOtp', id, { token });
const wrong = (token: string) => String((Number(token) + 1) % 1_000_000).padStart(6, '0');

/** exportSubjectData as DataSubject calls it: the caller's company along when it has one, and the subject's as its own class answered it */
const exportFor = (type: string, id: string, tenant?: string, subjectCompanyId?: string | null) =>
  exportedBy<Record<string, any>>(t, 'Otp', { type, id }, { tenant, subjectCompanyId });

/** the entity's records as stored (their HMACs included) */
const storedRecords = async (instanceId: string): Promise<Record<string, any>[]> =>
  (await storedState(t, 'Otp', instanceId)).private.records ?? [];

describe('exportSubjectData', () => {
  test("a member's OTPs with every check (when, outcome, who asked), without the token HMAC", async () => {
    const member = uniqueProjectId('m');
    const first = await issue('Member', member, { additionalData: { source: 'password' } });
    expect(await verify('Member', member, wrong(first.token))).toMatchObject({ validationResult: 'invalid_token' });
    expect(await verify('Member', member, first.token)).toMatchObject({ isSuccessful: true });
    const second = await issue('Member', member, { otpType: 'password_reset', tokenType: 'alphanumeric' });
    // a back-office user of the same id is someone else
    await issue('ProgramManagementUser', member);

    const answer = await exportFor('member', member);
    const stored = await storedRecords(`Member_${member}`);
    expect(stored).toHaveLength(2);
    expect(answer).toEqual({
      records: stored.map(({ token: _secret, ...record }) => ({
        store: 'otp',
        classId: 'Otp',
        instanceId: `Member_${member}`,
        kind: 'otpRecord',
        data: record,
      })),
      files: [],
    });
    const [login, reset] = answer.records.map((r: any) => r.data);
    expect(login).toMatchObject({ id: first.otp.id, otpType: 'login', additionalData: { source: 'password' } });
    expect(login.usedAt).toEqual(expect.any(String));
    expect(login.history.map((h: any) => [h.isSuccessful, h.validationResult, h.requestedBy])).toEqual([
      [false, 'invalid_token', 'ann@example.com'],
      [true, undefined, 'ann@example.com'],
    ]);
    expect(login.history[0]).toMatchObject({
      timestamp: expect.any(String),
      requesterDetails: requester.requesterDetails,
    });
    expect(reset).toMatchObject({ id: second.otp.id, otpType: 'password_reset', history: [] });

    // no secret: neither the stored HMACs nor the codes themselves
    const json = JSON.stringify(answer);
    for (const record of stored) {
      expect(record.token).toMatch(/^hmac-sha256:/);
      expect(json).not.toContain(record.token.slice('hmac-sha256:'.length));
    }
    expect(json).not.toContain('hmac-sha256');
    expect(json).not.toContain(second.token);
    expect(answer.records.every((r: any) => !('token' in r.data))).toBe(true);
  });

  test("a back-office user's OTPs are ProgramManagementUser_<id>", async () => {
    const pm = uniqueProjectId('p');
    const issued = await issue('ProgramManagementUser', pm);
    const answer = await exportFor('program_management_user', pm);
    expect(answer.records).toHaveLength(1);
    expect(answer.records[0]).toMatchObject({
      store: 'otp',
      instanceId: `ProgramManagementUser_${pm}`,
      kind: 'otpRecord',
      data: { id: issued.otp.id, otpType: 'login', history: [] },
    });
    expect(answer.records[0].data).not.toHaveProperty('token');
  });

  test('nothing for a partner user, an entity never issued an OTP, or an id no entity can have', async () => {
    const someone = uniqueProjectId('x');
    await issue('Member', someone);
    expect(await exportFor('partner_user', someone)).toEqual({ records: [], files: [] });
    const fresh = uniqueProjectId('m');
    expect(await exportFor('member', fresh)).toEqual({ records: [], files: [] });
    expect(await t.rt.store.read('Otp', `Member_${fresh}`)).toBeUndefined();
    expect(await exportFor('member', `id!${someone}`)).toEqual({ records: [], files: [] });
  });
});

describe('who may call it', () => {
  test('DataSubject only: the classes that issue OTPs, users over HTTP and anonymous callers are refused', async () => {
    const member = uniqueProjectId('m');
    await issue('Member', member);
    const pm = { authorization: `Bearer ${t.token('program_management_user', 'admin', ['super'])}` };
    await expectDataSubjectOnly(t, 'Otp', 'exportSubjectData', exportBody({ type: 'member', id: member }), {
      users: [pm],
      classes: ['Member', 'ProgramManagementUser', 'Otp'],
    });
  });

  test('readOtpRecords is this class’s own: not DataSubject, not the entity’s class', async () => {
    const member = uniqueProjectId('m');
    await issue('Member', member);
    await expectClassOwn(t, 'Otp', 'readOtpRecords', `Member_${member}`, {}, { classes: ['DataSubject', 'Member'] });
  });

  test('readOtpRecords answers what its answer schema says', async () => {
    const member = uniqueProjectId('m');
    const { token } = await issue('Member', member, { additionalData: { source: 'password' } });
    await verify('Member', member, wrong(token));
    await verify('Member', member, token);
    const r = await t.rt.call('Otp', 'readOtpRecords', `Member_${member}`, {}, asClass('Otp'));
    expectValidAnswer(t, 'Otp', 'readOtpRecords', r.body);
  });
});

describe('company scope', () => {
  test("a caller limited to a company gets the OTPs of its company's subjects, by the company DataSubject hands over", async () => {
    const member = uniqueProjectId('m');
    await issue('Member', member);
    const mine = await exportFor('member', member, 'c-1', 'c-1');
    expect(mine.records.length).toBeGreaterThan(0);
    expect(mine.records[0].instanceId).toBe(`Member_${member}`);
    // the same subject for a caller limited to no company, whatever company is named
    expect(await exportFor('member', member, undefined, 'c-2')).toEqual(mine);
  });

  test("another company's subject, or a call naming no company, is refused 403 1023 (the class keeps no company of its own)", async () => {
    const member = uniqueProjectId('m');
    await issue('Member', member);
    await expectOnlyHandedOverCompany(t, 'Otp', 'exportSubjectData', member, ['member', 'program_management_user']);
    // a subject of whom the class keeps nothing is no refusal
    expect(await exportFor('partner_user', member, 'c-1')).toEqual({ records: [], files: [] });
  });
});
