/**
 * Otp.eraseSubjectData over real Redis and HTTP: the subject's OTP records
 * and their checks removed for DataSubject's erasure (counted), who asked
 * (email, IP address, user agent) nowhere in the stored state; zeros on a
 * second call, for a partner user and for an entity never issued one (not
 * created); other entities untouched; only DataSubject may ask; clearRecords
 * is this class's and each entity class's for its own entities (Member clears
 * the self-registration codes its erasure finds by email); a caller limited
 * to a company erases only its company's subjects, by the company DataSubject
 * hands over.
 */
import type { TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';
import {
  asClass,
  eraseBody,
  erasedBy,
  expectClassOwn,
  expectDataSubjectOnly,
  expectOnlyHandedOverCompany,
  exportedBy,
  startSubjectRuntime,
  storedState,
} from '../support/subject-data';

let t: TestRuntime;

beforeAll(async () => {
  t = await startSubjectRuntime({ CLASS_DIRS: 'classes/Otp', OTP_SECRET: 'otp-test-secret-otp-test-secret-0123' });
});
afterAll(() => t.stop());

/** who asked, with values found nowhere else */
const requester = {
  requestedBy: 'wilhelmina.okonkwo@example.com',
  requesterDetails: {
    identity: 'anonymous',
    userAgent: 'QuokkaBrowser/9.1 (erasure-test)',
    ipAddress: '198.51.100.77',
  },
};
const PERSONAL = ['wilhelmina', 'okonkwo', 'QuokkaBrowser', '198.51.100.77', 'invite-campaign-zx81'];

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

/** eraseSubjectData as DataSubject calls it: the caller's company along when it has one, and the subject's */
const erase = (type: string, id: string, tenant?: string, subjectCompanyId?: string | null) =>
  erasedBy(t, 'Otp', { type, id }, 'erasure-1', { tenant, subjectCompanyId });

const stored = (instanceId: string) => storedState(t, 'Otp', instanceId);
const storedRecords = async (instanceId: string): Promise<Record<string, any>[]> =>
  (await stored(instanceId)).private.records ?? [];

describe('eraseSubjectData', () => {
  test("a member's OTPs: every record and its checks removed and counted, who asked nowhere in the state", async () => {
    const member = uniqueProjectId('m');
    const login = await issue('Member', member, { additionalData: { source: 'invite-campaign-zx81' } });
    await verify('Member', member, wrong(login.token));
    await verify('Member', member, login.token);
    await issue('Member', member, { otpType: 'password_reset', tokenType: 'alphanumeric' });
    // a back-office user of the same id, and another member, are someone else
    await issue('ProgramManagementUser', member);
    const other = uniqueProjectId('m');
    await issue('Member', other);
    const before = (await stored(`Member_${member}`)).json;
    for (const value of PERSONAL) expect(before).toContain(value);

    expect(await erase('member', member)).toEqual({ records: 2, files: 0 });

    const after = await stored(`Member_${member}`);
    for (const value of [...PERSONAL, login.otp.id, 'hmac-sha256']) expect(after.json).not.toContain(value);
    expect(after.private).toEqual({ classKey: 'Member', entityId: member, records: [] });
    expect(await storedRecords(`ProgramManagementUser_${member}`)).toHaveLength(1);
    expect(await storedRecords(`Member_${other}`)).toHaveLength(1);

    // nothing left: a second call (a retry) answers zeros and writes nothing
    expect(await erase('member', member)).toEqual({ records: 0, files: 0 });
    expect((await stored(`Member_${member}`)).version).toBe(after.version);
    // the export has nothing more to show
    expect(await exportedBy(t, 'Otp', { type: 'member', id: member })).toEqual({ records: [], files: [] });
  });

  test("a back-office user's OTPs are ProgramManagementUser_<id>", async () => {
    const pm = uniqueProjectId('p');
    const { token } = await issue('ProgramManagementUser', pm);
    await verify('ProgramManagementUser', pm, token);
    await issue('Member', pm);
    expect(await erase('program_management_user', pm)).toEqual({ records: 1, files: 0 });
    expect(await storedRecords(`ProgramManagementUser_${pm}`)).toEqual([]);
    expect(await storedRecords(`Member_${pm}`)).toHaveLength(1);
  });

  test('zeros for a partner user, an entity never issued an OTP (not created), or an id no entity can have', async () => {
    const someone = uniqueProjectId('x');
    await issue('Member', someone);
    expect(await erase('partner_user', someone)).toEqual({ records: 0, files: 0 });
    expect(await erase('member', `id!${someone}`)).toEqual({ records: 0, files: 0 });
    const fresh = uniqueProjectId('m');
    expect(await erase('member', fresh)).toEqual({ records: 0, files: 0 });
    expect(await t.rt.store.read('Otp', `Member_${fresh}`)).toBeUndefined();
    expect(await storedRecords(`Member_${someone}`)).toHaveLength(1);
  });
});

describe('who may call it', () => {
  test('DataSubject only: the classes that issue OTPs, users over HTTP and anonymous callers are refused', async () => {
    const member = uniqueProjectId('m');
    await issue('Member', member);
    const pm = { authorization: `Bearer ${t.token('program_management_user', 'admin', ['super'])}` };
    await expectDataSubjectOnly(t, 'Otp', 'eraseSubjectData', eraseBody({ type: 'member', id: member }, 'e-1'), {
      users: [pm],
      classes: ['Member', 'ProgramManagementUser', 'Otp'],
    });
    expect(await storedRecords(`Member_${member}`)).toHaveLength(1);
  });

  test("clearRecords: Member clears its own entities' codes (a self-registration's), never another class's", async () => {
    // a member's self-registration codes live under Member_reg-<hash of the email>, which Member's erasure finds
    const registration = `reg-${uniqueProjectId('h')}`;
    await issue('Member', registration, { otpType: 'registration' });
    const clear = (instanceId: string) => t.rt.call('Otp', 'clearRecords', instanceId, {}, asClass('Member'));
    expect((await clear(`Member_${registration}`)).body).toEqual({ removed: 1 });
    const json = (await stored(`Member_${registration}`)).json;
    for (const value of PERSONAL.slice(0, 4)) expect(json).not.toContain(value);
    // again: nothing left
    expect((await clear(`Member_${registration}`)).body).toEqual({ removed: 0 });
    // an entity never issued a code is the runtime's unknown instance, and is not created
    const never = `reg-${uniqueProjectId('h')}`;
    await expect(clear(`Member_${never}`)).rejects.toMatchObject({ code: 'UNKNOWN_INSTANCE' });
    expect(await t.rt.store.read('Otp', `Member_${never}`)).toBeUndefined();

    // a back-office user's codes are not Member's to clear
    const pm = uniqueProjectId('p');
    await issue('ProgramManagementUser', pm);
    await expect(clear(`ProgramManagementUser_${pm}`)).rejects.toMatchObject({ status: 403, code: 15001 });
    expect(await storedRecords(`ProgramManagementUser_${pm}`)).toHaveLength(1);
  });

  test('clearRecords is for classes only: not DataSubject, not another class, not a user over HTTP', async () => {
    const member = uniqueProjectId('m');
    await issue('Member', member);
    const pm = { authorization: `Bearer ${t.token('program_management_user', 'admin', ['super'])}` };
    await expectClassOwn(
      t,
      'Otp',
      'clearRecords',
      `Member_${member}`,
      {},
      {
        users: [pm],
        classes: ['DataSubject', 'UserNotification'],
      },
    );
    expect(await storedRecords(`Member_${member}`)).toHaveLength(1);
  });
});

describe('company scope', () => {
  test("a caller limited to a company erases the OTPs of its company's subjects, by the company DataSubject hands over", async () => {
    const member = uniqueProjectId('m');
    await issue('Member', member);
    expect(await erase('member', member, 'c-1', 'c-1')).toEqual({ records: 1, files: 0 });
    expect(await storedRecords(`Member_${member}`)).toEqual([]);
  });

  test("another company's subject, or a call naming no company, is refused 403 1023 and nothing goes", async () => {
    const member = uniqueProjectId('m');
    await issue('Member', member);
    await issue('ProgramManagementUser', member);
    await expectOnlyHandedOverCompany(t, 'Otp', 'eraseSubjectData', member, ['member', 'program_management_user']);
    expect(await storedRecords(`Member_${member}`)).toHaveLength(1);
    expect(await storedRecords(`ProgramManagementUser_${member}`)).toHaveLength(1);
    // a subject of whom the class keeps nothing is no refusal
    expect(await erase('partner_user', member, 'c-1')).toEqual({ records: 0, files: 0 });
  });
});
