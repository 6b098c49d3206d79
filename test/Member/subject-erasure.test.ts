/**
 * Member.eraseSubjectData over real Redis, the real classes and real HTTP:
 * a member seeded with distinctive values (HR pushes, a staff-id migration,
 * an ID photo, a document, dependants, a held HR push, a password and a
 * session) is erased as DataSubject erases it (FileManager first, the
 * member's own class last), and then: its values are nowhere in its stored
 * state, its lookup keys, its listed document or the blob store; its lookups
 * are released and its suppression markers set; its sessions end; every
 * write is refused while reads answer the tombstone; a second call answers
 * zeros; its dependants' links on their primary member keep ids only; other
 * members are untouched; other identities are refused. Then the person
 * pushed again: with ERASED_MEMBERS_RETURN=refuse (the default) 4.3,
 * registerFromHr and createMember refuse, 4.2 answers 404 10073; with
 * `allow` (the same data, the service restarted) each creates a fresh member.
 *
 * The tests call as DataSubject's identity: its own erasure is tested in
 * test/DataSubject.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ERASED } from '../../classes/_platform/personal-data';
import { markerKeyFrom, markerName, MARKER_VALUE } from '../../classes/Member/erasure-rules';
import { registrationOtpInstance } from '../../classes/Member/use-cases/self-registration';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, TEST_JWT_SECRET, waitFor, type TestRuntime } from '../support/harness';
import {
  eraseBody,
  erasedBy,
  expectClassOwn,
  expectDataSubjectOnly,
  exportedBy,
  ONE_DEACTIVATION_AN_HOUR,
  storedState,
  subjectCall,
} from '../support/subject-data';
import { FakeHr, hrEmployee } from './fake-hr';
import { activeMember, bearer, signIn, startSignInRuntime, type SignInEnv } from './sign-in-support';
import { API_KEY, createMember, dependantRecord, employeeRecord, IMAGES, memberState, uniq } from './support';

const ERASURE_ID = 'erasure-1';
const PDF = Buffer.from('%PDF-1.4\n%erasure test\n').toString('base64');
const KEY = markerKeyFrom({ JWT_SECRET: TEST_JWT_SECRET });

/** the person's distinctive values, as HR sends them */
const PERSON = {
  name: 'Zephyrine',
  middleName: 'Odalys',
  surname: 'Quillfeather',
  email: 'zephyrine.quill@erase.example',
  phone: '+971555000111',
  address: { country: 'AE', address: '9 Quince Lane, Unit 77' },
  gender: 'F',
  maritalStatus: 'widowed',
  coreGrade: 'CQ9',
  grade: 'GQ7',
};
const SPOUSE = {
  name: 'Xanthippe',
  surname: 'Quillfeather',
  email: 'xanthippe.q@erase.example',
  phone: '+971555000222',
};
const CHILD = { name: 'Ptolemy', surname: 'Quillfeather', email: null, phone: '+971555000333', type: 'son' };

let hr: FakeHr;
let env: SignInEnv;
let t: TestRuntime;
let member: { id: string; email: string; password: string };
let session: { accessToken: string; refreshToken: string };
let oldStaffId: string;
let staffId: string;
let spouseId: string;
let childId: string;
let bystander: Record<string, any>;
let bystanderBefore: string;
/** the member's files, as its state named them before the erasure */
let files: string[];

const hrEnv = () => ({
  HR_BASE_URL: hr.url,
  HR_API_KEY: 'hr-secret',
  HR_TIMEOUT_MS: '1000',
  HR_RETRIES: '1',
  HR_RETRY_BASE_MS: '10',
});

/** `classId`'s erasure of the member `id`, as DataSubject asks it after Member answered the member of c-1 */
const erase = (classId: string, id: string) =>
  erasedBy(t, classId, { type: 'member', id }, ERASURE_ID, { subjectCompanyId: 'c-1' });

/** every string a distinctive value of the person or its dependants could leave */
function personalValues(): string[] {
  return [
    PERSON.name,
    PERSON.middleName,
    PERSON.surname,
    PERSON.email,
    PERSON.phone,
    PERSON.address.address,
    PERSON.coreGrade,
    PERSON.grade,
    'widowed',
    oldStaffId,
    staffId,
    SPOUSE.name,
    CHILD.name,
    'contract.pdf',
    'scrypt$',
  ];
}

function expectNoneOf(text: string, values = personalValues()) {
  for (const v of values) expect([v, text.includes(v)]).toEqual([v, false]);
}

const stored = (id: string) => storedState(t, 'Member', id);

beforeAll(async () => {
  hr = await new FakeHr().start();
  env = await startSignInRuntime({ ...hrEnv(), ...ONE_DEACTIVATION_AN_HOUR });
  t = env.t;
  // a member who signs in with a password, signed in (a session with a refresh token)
  member = await activeMember(env);
  const signedIn = await signIn(env, member, 2);
  session = { accessToken: signedIn.accessToken, refreshToken: signedIn.refreshToken };
  oldStaffId = (await memberState(t, member.id)).state.private.profile.staffId as string;

  // HR: the person's record under a new staff id (a migration: the old one becomes a previous staff id)
  staffId = uniq('Z');
  const migrated = await t.post(
    '/members/hr/employee',
    employeeRecord(staffId, { ...PERSON, oldStaffId, dependantsExists: 'Y' }),
    API_KEY,
  );
  expect([migrated.status, migrated.body.body?.staffIdMigrated]).toEqual([200, true]);
  const document = await t.post(
    `${env.p}/uploadDocument/${member.id}`,
    { content: PDF, mimeType: 'application/pdf', originalFilename: 'contract.pdf', label: 'Contract' },
    env.pm,
  );
  expect(document.status).toBe(200);
  const photo = await t.post(
    `/${t.projectId}/CALL/Member/updateEmployeePhoto/staffId!${staffId}`,
    { photo: IMAGES.png, fileExtension: 'png' },
    API_KEY,
  );
  expect(photo.status).toBe(200);
  spouseId = uniq('dep');
  childId = uniq('dep');
  expect((await t.post('/members/hr/dependant', dependantRecord(spouseId, staffId, SPOUSE), API_KEY)).status).toBe(201);
  expect((await t.post('/members/hr/dependant', dependantRecord(childId, staffId, CHILD), API_KEY)).status).toBe(201);

  // another member's deactivation takes the company's one of the hour; the member's own is then held
  bystander = await createMember(t, { staffId: uniq('B') });
  const terminate = (s: string, over: Record<string, unknown> = {}) =>
    t.post(
      '/members/hr/employee',
      employeeRecord(s, { status: 'terminated', leavingReason: 'resigned', ...over }),
      API_KEY,
    );
  expect((await terminate(bystander.staffId as string)).status).toBe(200);
  expect((await terminate(staffId, { ...PERSON, leavingReason: 'moved to Quince Lane' })).status).toBe(202);
  bystanderBefore = (await stored(bystander.id as string)).json;

  // a self-registration code mailed to the person's email, which Otp keeps under a digest of it
  const code = await t.rt.call('Otp', 'issueOtp', registrationOtpInstance(PERSON.email), {
    otpType: 'registration',
    tokenType: 'numeric',
    requestedBy: PERSON.email,
    requesterDetails: { identity: PERSON.email, userAgent: 'erasure test', ipAddress: '127.0.0.1' },
  });
  expect(code.status).toBe(200);

  const state = (await memberState(t, member.id)).state.private;
  expect(state.heldHr).toBeTruthy();
  expect(state.credentials.passwordHash).toMatch(/^scrypt\$/);
  files = [state.pendingPhoto.idPhoto, state.documents[0].filename];
  for (const f of files) expect(await t.rt.ports.blobs.get(f)).not.toBeNull();
  await waitFor(async () => (await t.rt.documents.get('members', member.id))?.hrDeactivationHeld === true, {
    what: "the member's listed document up to date",
  });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await env?.sink.close();
  await hr?.stop();
});

describe('who may erase', () => {
  const body = () => eraseBody({ type: 'member', id: member.id }, ERASURE_ID);

  test('DataSubject only: not over HTTP (a back-office super user, the member itself, an anonymous caller), not another class', async () => {
    for (const classId of ['Member', 'FileManager']) {
      await expectDataSubjectOnly(t, classId, 'eraseSubjectData', body(), {
        users: [env.pm, bearer(session.accessToken)],
        classes: ['Tier'],
      });
    }
  });

  test('DataSubject may not call the writes behind the method', async () => {
    await expectClassOwn(
      t,
      'Member',
      'eraseMember',
      member.id,
      { erasureId: ERASURE_ID },
      { classes: ['DataSubject'] },
    );
    await expectClassOwn(
      t,
      'FileManager',
      'eraseSubjectFiles',
      `member_${member.id}`,
      {},
      { classes: ['DataSubject'] },
    );
  });

  test("a company user's erasure of another company's member is refused before anything is erased", async () => {
    const version = (await stored(member.id)).version;
    for (const classId of ['Member', 'FileManager']) {
      await expect(subjectCall(t, classId, 'eraseSubjectData', body(), 'c-2')).rejects.toMatchObject({
        status: 403,
        code: 1023,
      });
    }
    expect((await stored(member.id)).version).toBe(version);
    for (const f of files) expect(await t.rt.ports.blobs.get(f)).not.toBeNull();
  });

  test('another subject type, an unknown member, a lookup instead of an id: nothing to erase, zeros', async () => {
    for (const type of ['program_management_user', 'partner_user']) {
      for (const classId of ['Member', 'FileManager']) {
        expect(await erasedBy(t, classId, { type, id: member.id }, ERASURE_ID)).toEqual({ records: 0, files: 0 });
      }
    }
    for (const id of ['no-such-member', `staffId!${staffId}`]) {
      expect(await erase('Member', id)).toEqual({ records: 0, files: 0 });
      expect(await erase('FileManager', id)).toEqual({ records: 0, files: 0 });
    }
    expect((await memberState(t, member.id)).state.private.erasure).toBeUndefined();
  });
});

describe('a dependant erased while its primary member is not', () => {
  test("its values go, its primary member's link keeps its id only, the primary member is otherwise untouched", async () => {
    const primaryBefore = (await memberState(t, member.id)).state.private;
    // the dependant's own record (2: state and listing) and its link on the primary member (1)
    expect(await erase('Member', spouseId)).toEqual({ records: 3, files: 0 });
    const dep = await stored(spouseId);
    expectNoneOf(dep.json + JSON.stringify(dep.lookups), [SPOUSE.name, SPOUSE.email, SPOUSE.phone]);
    expect(dep.private.profile).toMatchObject({
      id: spouseId,
      primaryMemberId: member.id,
      name: ERASED,
      surname: ERASED,
      email: null,
      phone: null,
      relation: null,
      status: 'inactive',
    });
    expect(await t.rt.store.resolveLookup('Member', 'email', SPOUSE.email)).toBeUndefined();
    // its markers: its email and its dependant id (HR's id of it), as keyed hashes
    for (const id of [
      { kind: 'email' as const, value: SPOUSE.email },
      { kind: 'dependantId' as const, value: spouseId },
    ]) {
      expect(await t.rt.store.resolveLookup('Member', markerName(KEY, id), MARKER_VALUE)).toBe(spouseId);
    }

    const primary = (await memberState(t, member.id)).state.private;
    const link = primary.profile.familyMembers.find((f: { id: string }) => f.id === spouseId);
    expect(link).toEqual({
      id: spouseId,
      relation: null,
      memberSubType: 'mst-spouse',
      name: ERASED,
      surname: ERASED,
      status: 'inactive',
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(primary)).not.toContain(SPOUSE.name);
    // the rest of the primary member is as it was
    expect({ ...primary.profile, familyMembers: [], updatedAt: '' }).toEqual({
      ...primaryBefore.profile,
      familyMembers: [],
      updatedAt: '',
    });
    expect(primary.profile.familyMembers.find((f: { id: string }) => f.id === childId)).toMatchObject({
      name: CHILD.name,
    });
    expect(primary.erasure).toBeUndefined();

    // a second erasure of the dependant finds nothing left
    expect(await erase('Member', spouseId)).toEqual({ records: 0, files: 0 });
  });
});

describe('the member erased, as DataSubject erases it: FileManager first, Member last', () => {
  beforeAll(async () => {
    // the photo and the document, each with its metadata
    expect(await erase('FileManager', member.id)).toEqual({ records: 2, files: 2 });
    // its state, its listed document, the push the quarantine held and its self-registration code
    expect(await erase('Member', member.id)).toEqual({ records: 4, files: 0 });
  });

  test('its values are nowhere in its stored state or lookup keys: a tombstone of ids, company, types and dates', async () => {
    const s = await stored(member.id);
    expectNoneOf(s.json + JSON.stringify(s.lookups));
    const state = s.private;
    // what the record keeps besides its profile: ids and dates of its approvals and membership tasks
    const kept = ['profile', 'erasure', 'lastApprovalId', 'settledMembershipApprovals', 'membershipTasks'];
    expect(Object.keys(state).filter((k) => !kept.includes(k))).toEqual([]);
    expect(state.erasure).toEqual({ erasureId: ERASURE_ID, erasedAt: expect.any(String), markers: expect.any(Array) });
    expect(state.profile).toMatchObject({
      id: member.id,
      status: 'inactive',
      statusReason: ERASED,
      name: ERASED,
      middleName: null,
      surname: ERASED,
      staffId: null,
      previousStaffIds: [],
      email: null,
      phone: null,
      address: null,
      grade: null,
      idPhoto: null,
      note: null,
      company: { id: 'c-1' },
      memberType: 'mt-perm',
      primaryMemberId: null,
    });
    for (const gone of ['gender', 'maritalStatus', 'coreGrade', 'dependantsExists', 'lastDayOfService'])
      expect(state.profile).not.toHaveProperty(gone);
    // its memberships (ids, tier, dates, statuses) stay
    expect(state.profile.memberships).toEqual([
      expect.objectContaining({ tierId: 'si-gold', status: 'active', startDate: expect.any(String) }),
    ]);
    // its dependants' links: ids and sub types, no names
    expect(state.profile.familyMembers.map((f: { id: string }) => f.id)).toEqual([spouseId, childId]);
    for (const f of state.profile.familyMembers) expect(f).toMatchObject({ name: ERASED, surname: ERASED });
  });

  test('its lookups are released and a keyed-hash marker is set per identifier it had', async () => {
    expect(await t.rt.store.resolveLookup('Member', 'email', PERSON.email)).toBeUndefined();
    expect(await t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBeUndefined();
    expect(await t.rt.store.resolveLookup('Member', 'staffId', oldStaffId)).toBeUndefined();
    const { lookups } = await stored(member.id);
    const markers = [
      markerName(KEY, { kind: 'staffId', value: staffId }),
      markerName(KEY, { kind: 'staffId', value: oldStaffId }),
      markerName(KEY, { kind: 'email', value: PERSON.email }),
    ];
    expect(Object.keys(lookups).sort()).toEqual([...markers].sort());
    for (const m of markers) {
      expect(lookups[m]).toBe(MARKER_VALUE);
      expect(await t.rt.store.resolveLookup('Member', m, MARKER_VALUE)).toBe(member.id);
    }
  });

  test('its listed document is re-projected without a value, and a search by them finds nobody', async () => {
    const doc = await waitFor(
      async () => {
        const d = await t.rt.documents.get('members', member.id);
        return d?.erased === true ? d : undefined;
      },
      { what: 'the listed document re-projected' },
    );
    expectNoneOf(JSON.stringify(doc));
    expect(doc).toMatchObject({
      status: 'inactive',
      name: ERASED,
      email: null,
      emailLower: null,
      staffId: null,
      phone: null,
      fullName: `${ERASED} ${ERASED}`,
      hrDeactivationHeld: false,
      hasWaitingApproval: false,
    });
    // (the child, not erased yet, shares the surname)
    for (const search of [PERSON.name, PERSON.surname, PERSON.email, staffId]) {
      const r = await t.post(`${env.p}/listMembers`, { search }, env.pm);
      expect(r.status).toBe(200);
      const found = r.body.members.map((m: { id: string }) => m.id).filter((id: string) => id !== childId);
      expect([search, found]).toEqual([search, []]);
    }
  });

  test('its files are gone from the blob store and from FileManager', async () => {
    for (const f of files) expect(await t.rt.ports.blobs.get(f)).toBeNull();
    const fm = await storedState(t, 'FileManager', `member_${member.id}`);
    expect(fm.private.files).toEqual([]);
    expectNoneOf(fm.json);
  });

  test('its self-registration codes are gone from Otp', async () => {
    const otp = await storedState(t, 'Otp', registrationOtpInstance(PERSON.email));
    expect(otp.private.records).toEqual([]);
    expectNoneOf(otp.json);
  });

  test('its sessions end: the refresh token and the access token are refused', async () => {
    const refreshed = await t.post(`/${t.projectId}/auth/refresh`, { refreshToken: session.refreshToken });
    expect([refreshed.status, refreshed.body.code]).toEqual([401, 1007]);
    const profile = await t.get(`${env.p}/getMemberProfile/${member.id}`, bearer(session.accessToken));
    expect(profile.status).toBe(401);
    const login = await t.post(`${env.p}/login`, { email: PERSON.email, password: member.password });
    expect(login.status).toBe(401);
  });

  test('reads answer the tombstone', async () => {
    const personal = await t.get(`${env.p}/getMemberPersonal/${member.id}`, env.pm);
    expect(personal.status).toBe(200);
    expectNoneOf(JSON.stringify(personal.body));
    const exported = await exportedBy(t, 'Member', { type: 'member', id: member.id });
    expectNoneOf(JSON.stringify(exported));
    // no trace value: an erased name is nobody's, and forgetting it would remove every mention of an erasure
    expect(exported.values).toEqual([]);
  });

  /** the writes whose own refusal of this id comes first, as for any member's */
  const OWN_REFUSALS: Record<string, { status: number; code: number }> = {
    // a dependant push under an employee's id
    hrApplyDependant: { status: 403, code: 10074 },
    // a seed of an id in use
    seedMember: { status: 409, code: 5026 },
    // an import row on the erased employee's id: the person is not taken back (ERASED_MEMBERS_RETURN=refuse)
    applyImportMember: { status: 409, code: 5049 },
  };

  test('every write is refused, 410 5048, and changes nothing', async () => {
    const before = await stored(member.id);
    const refused = async (r: Promise<{ status: number; body: any }>) => {
      const a = await r;
      expect([a.status, a.body?.code]).toEqual([410, 5048]);
    };
    await refused(t.post(`${env.p}/updateMemberPersonal/${member.id}`, { name: 'Zephyrine' }, env.pm));
    await refused(t.post(`${env.p}/updateMemberContact/${member.id}`, { phone: PERSON.phone }, env.pm));
    await refused(t.post(`${env.p}/updateMemberStatus/${member.id}`, { status: 'active' }, env.pm));
    await refused(
      t.post(`${env.p}/uploadMemberIdPhoto/${member.id}`, { photo: IMAGES.png, fileExtension: 'png' }, env.pm),
    );
    await refused(t.post(`${env.p}/sendInviteEmail/${member.id}`, {}, env.pm));
    await refused(t.post(`${env.p}/streamMember/${member.id}`, {}, env.pm));
    // the HR photo endpoint by member id, in its own error shape
    const photo = await t.post(
      `/${t.projectId}/CALL/Member/updateEmployeePhoto/${member.id}`,
      { photo: IMAGES.png, fileExtension: 'png' },
      API_KEY,
    );
    expect([photo.status, photo.body.code]).toEqual([410, 5048]);

    // every WRITE and INTERNAL method of the class, with its schema's example body, as the system
    const exempt = new Set([
      'eraseMember',
      'forgetFamilyMember',
      'expireMembership',
      'remindMembership',
      'migrateState',
    ]);
    const methods = [...t.rt.registry.get('Member')!.methodsByName.values()].filter(
      (m) => (m.kind === 'WRITE' || m.kind === 'INTERNAL') && !exempt.has(m.name),
    );
    expect(methods.length).toBeGreaterThan(30);
    for (const m of methods) {
      const schema = m.options.schema === false ? null : (m.options.schema ?? m.name);
      const file = schema ? path.join(projectRoot(), 'schemas/Member', `${schema}.json`) : null;
      const example = file
        ? ((JSON.parse(fs.readFileSync(file, 'utf8')) as { examples?: unknown[] }).examples?.[0] ?? {})
        : {};
      const outcome = await t.rt.call('Member', m.name, member.id, example).then(
        (r) => ({ status: r.status, code: undefined as unknown }),
        (err: { status: number; code: unknown }) => ({ status: err.status, code: err.code }),
      );
      expect([m.name, outcome]).toEqual([m.name, OWN_REFUSALS[m.name] ?? { status: 410, code: 5048 }]);
    }
    // the tasks scheduled before the erasure do nothing
    for (const task of ['expireMembership', 'remindMembership']) {
      const r = await t.rt.call('Member', task, member.id, { membershipId: 'x', endDate: '2030-01-01T00:00:00.000Z' });
      expect(r.body).toEqual({ skipped: 'erased' });
    }
    const after = await stored(member.id);
    expect([after.version, after.json, after.lookups]).toEqual([before.version, before.json, before.lookups]);
    // nothing reached the member's files either
    expect((await storedState(t, 'FileManager', `member_${member.id}`)).private.files).toEqual([]);
  });

  test('a second call finds nothing left: zeros', async () => {
    expect(await erase('FileManager', member.id)).toEqual({ records: 0, files: 0 });
    expect(await erase('Member', member.id)).toEqual({ records: 0, files: 0 });
  });

  test('the answers are what the answer schema says', async () => {
    // erase checks every answer against the method's answer schema: here the zeros of a call finding nothing
    expect(await erase('Member', member.id)).toEqual({ records: 0, files: 0 });
  });

  test('other members are untouched', async () => {
    expect((await stored(bystander.id as string)).json).toBe(bystanderBefore);
    expect(await t.rt.store.resolveLookup('Member', 'staffId', bystander.staffId as string)).toBe(bystander.id);
  });

  test('the remaining dependant erased after its primary member: its link on the tombstone only turns inactive', async () => {
    // its own state and listing, and its link's status on the erased primary member
    expect(await erase('Member', childId)).toEqual({ records: 3, files: 0 });
    const dep = await stored(childId);
    expectNoneOf(dep.json, [CHILD.name, CHILD.phone]);
    expect(dep.private.profile).toMatchObject({ relation: null, surname: ERASED });
    const primary = (await memberState(t, member.id)).state.private.profile;
    expect(primary.familyMembers.find((f: { id: string }) => f.id === childId)).toMatchObject({
      name: ERASED,
      status: 'inactive',
    });
    expect(await erase('Member', childId)).toEqual({ records: 0, files: 0 });
  });
});

describe('the person pushed again, ERASED_MEMBERS_RETURN=refuse (the default)', () => {
  test('4.2 of the erased employee: 404 10073, as any unknown employee (it never creates)', async () => {
    for (const record of [
      employeeRecord(staffId, PERSON),
      employeeRecord(uniq('N'), { ...PERSON, oldStaffId: staffId }),
    ]) {
      const r = await t.post('/members/hr/employee', record, API_KEY);
      expect([r.status, r.body]).toEqual([
        404,
        { success: false, error: { code: 10073, message: 'Employee not found' } },
      ]);
    }
  });

  test('4.3 under an erased dependant id, or with an erased email: 409 10077 in the contract error body', async () => {
    // the primary member for the pushes: another employee
    const primary = await createMember(t, { staffId: uniq('P') });
    for (const record of [
      dependantRecord(spouseId, primary.staffId as string, { name: 'Someone', surname: 'Else' }),
      dependantRecord(uniq('dep'), primary.staffId as string, { email: SPOUSE.email.toUpperCase() }),
    ]) {
      const r = await t.post('/members/hr/dependant', record, API_KEY);
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ success: false, error: { code: 10077, message: expect.stringContaining('erased') } });
    }
    // the tombstone is as it was
    expect((await stored(spouseId)).private.erasure).toMatchObject({ erasureId: ERASURE_ID });
  });

  test('registerFromHr (and its dry run) of the erased employee: 409 5049, nothing created', async () => {
    hr.employees.set(PERSON.email, hrEmployee(staffId, { email: PERSON.email, name: PERSON.name }));
    for (const method of ['checkRegistrationFromHr', 'registerFromHr']) {
      const r = await t.post(`${env.p}/${method}`, { email: PERSON.email }, env.pm);
      expect([method, r.status, r.body.code]).toEqual([method, 409, 5049]);
      expect(r.body.details.errors).toEqual([{ field: expect.any(String), reason: expect.any(String) }]);
    }
    // a previous staff id of the person, under another email
    const other = 'someone.new@erase.example';
    hr.employees.set(other, hrEmployee(oldStaffId, { email: other }));
    const r = await t.post(`${env.p}/registerFromHr`, { email: other }, env.pm);
    expect([r.status, r.body.code, r.body.details.errors[0].field]).toEqual([409, 5049, 'employeeId']);
    expect(await t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBeUndefined();
    expect(await t.rt.store.resolveLookup('Member', 'staffId', oldStaffId)).toBeUndefined();
  });

  test('createMember with an erased staff id or email: 409 5049 on that field', async () => {
    const base = {
      name: 'New',
      surname: 'Person',
      company: { id: 'c-1' },
      memberType: 'mt-perm',
      loginMethod: 'email_password',
    };
    for (const [body, field] of [
      [{ ...base, staffId: oldStaffId, email: 'fresh1@erase.example' }, 'staffId'],
      [{ ...base, staffId: uniq('F'), email: PERSON.email }, 'email'],
    ] as const) {
      const r = await t.post(`${env.p}/createMember`, body, env.pm);
      expect([r.status, r.body.code, r.body.details.errors[0].field]).toEqual([409, 5049, field]);
    }
  });
});

describe('ERASED_MEMBERS_RETURN=allow: the same data, the service restarted', () => {
  beforeAll(async () => {
    await t.stop();
    t = await startTestRuntime({
      projectId: t.projectId,
      env: {
        CLASS_DIRS: 'classes',
        SCHEMA_DIRS: 'schemas',
        SMTP_URL: env.sink.url,
        ...hrEnv(),
        ERASED_MEMBERS_RETURN: 'allow',
      },
    });
    env = { ...env, t };
  }, 60_000);

  test('4.3 under the erased dependant id creates a fresh dependant: nothing of the tombstone comes back', async () => {
    const primary = await createMember(t, { staffId: uniq('P') });
    const r = await t.post(
      '/members/hr/dependant',
      dependantRecord(spouseId, primary.staffId as string, { name: 'Renata', surname: 'Fresh' }),
      API_KEY,
    );
    expect([r.status, r.body.body?.dependantId]).toEqual([201, spouseId]);
    const s = await stored(spouseId);
    const state = s.private;
    expect(state.erasure).toBeUndefined();
    expect(state.profile).toMatchObject({ name: 'Renata', surname: 'Fresh', primaryMemberId: primary.id });
    // the tombstone's markers went with it
    expect(Object.keys(s.lookups).filter((k) => k.startsWith('erasedRef_'))).toEqual([]);
  });

  test('registerFromHr of the erased employee registers a new member', async () => {
    const r = await t.post(`${env.p}/registerFromHr`, { email: PERSON.email }, env.pm);
    expect(r.status).toBe(201);
    expect(r.body.member.id).not.toBe(member.id);
    expect(r.body.member).toMatchObject({ staffId, email: PERSON.email, name: PERSON.name });
    expect(await t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBe(r.body.member.id);
    // the old member is still the tombstone
    expect((await stored(member.id)).private.profile.name).toBe(ERASED);
  });

  test('createMember with an erased staff id creates the member', async () => {
    const r = await t.post(
      `${env.p}/createMember`,
      {
        name: 'New',
        surname: 'Person',
        staffId: oldStaffId,
        email: 'fresh2@erase.example',
        company: { id: 'c-1' },
        memberType: 'mt-perm',
        loginMethod: 'email_password',
      },
      env.pm,
    );
    expect(r.status).toBe(200);
    expect(r.body.member).toMatchObject({ staffId: oldStaffId });
  });
});
