/**
 * Member.exportSubjectData over real Redis, the real classes and real HTTP:
 * what DataSubject gathers from Member about one member (its state without
 * secrets, its listed document, its HR ledger entries and held push, its
 * dependants and company), who may ask, and the company scope. FileManager's
 * part of the same member (the content of its photo and document) is read
 * here too, where a real member stored them.
 *
 * The tests call as DataSubject's identity; DataSubject itself is tested in
 * test/DataSubject.
 */
import type { SubjectData, SubjectRecord } from '../../classes/_platform/personal-data';
import { waitFor, type TestRuntime } from '../support/harness';
import {
  expectClassOwn,
  expectDataSubjectOnly,
  expectNoSuchSubject,
  expectValidAnswer,
  exportBody,
  exportedBy,
  ONE_DEACTIVATION_AN_HOUR,
  subjectCall,
} from '../support/subject-data';
import { activeMember, bearer, startSignInRuntime, type SignInEnv } from './sign-in-support';
import { API_KEY, createMember, dependantRecord, employeeRecord, IMAGES, memberState, uniq } from './support';
const PDF = Buffer.from('%PDF-1.4\n%subject data export\n').toString('base64');

let env: SignInEnv;
let t: TestRuntime;
let member: { id: string; email: string; password: string };
let staffId: string;
let dependantId: string;
let bystanderStaffId: string;

/** `classId`'s export as an internal user's request (no tenant) or a company user's (`tenant`) */
const exportOf = (classId: string, subject: { type: string; id: string }, tenant?: string) =>
  exportedBy(t, classId, subject, { tenant });

const ofKind = (data: SubjectData, kind: string): SubjectRecord[] => data.records.filter((r) => r.kind === kind);
const ledgerOf = (data: SubjectData) => ofKind(data, 'hrLedgerEntry').map((r) => r.data as Record<string, any>);

beforeAll(async () => {
  env = await startSignInRuntime(ONE_DEACTIVATION_AN_HOUR);
  t = env.t;
  // a member who signs in with a password (its hash in the state)
  member = await activeMember(env);
  staffId = (await memberState(t, member.id)).state.private.profile.staffId as string;

  const document = await t.post(
    `${env.p}/uploadDocument/${member.id}`,
    { content: PDF, mimeType: 'application/pdf', originalFilename: 'contract.pdf', label: 'Contract' },
    env.pm,
  );
  expect(document.status).toBe(200);
  // HR: the employee record, a photo by staff id, a dependant
  const record = await t.post('/members/hr/employee', employeeRecord(staffId, { grade: 'G7' }), API_KEY);
  expect(record.status).toBe(200);
  const photo = await t.post(
    `/${t.projectId}/CALL/Member/updateEmployeePhoto/staffId!${staffId}`,
    { photo: IMAGES.png, fileExtension: 'png' },
    API_KEY,
  );
  expect(photo.status).toBe(200);
  dependantId = uniq('dep');
  const dependant = await t.post('/members/hr/dependant', dependantRecord(dependantId, staffId), API_KEY);
  expect(dependant.status).toBe(201);

  // another member's deactivation takes the company's one of the hour; the member's own is then held
  bystanderStaffId = uniq('B');
  await createMember(t, { staffId: bystanderStaffId });
  const terminate = (s: string) =>
    t.post('/members/hr/employee', employeeRecord(s, { status: 'terminated', leavingReason: 'resigned' }), API_KEY);
  expect((await terminate(bystanderStaffId)).status).toBe(200);
  expect((await terminate(staffId)).status).toBe(202);

  await waitFor(async () => (await t.rt.documents.get('members', member.id))?.hrDeactivationHeld === true, {
    what: "the member's listed document up to date",
  });
});
afterAll(async () => {
  await t?.stop();
  await env?.sink.close();
});

describe('what Member exports about a member', () => {
  test('its state without the password hash, its listed document, its HR records, its dependants and company', async () => {
    const subject = { type: 'member', id: member.id };
    // the ledger's entries are appended as the HR endpoints answer
    await waitFor(async () => ledgerOf(await exportOf('Member', subject)).length === 3, {
      what: "the member's three HR pushes in the ledger",
    });
    const data = await exportOf('Member', subject);
    const stored = (await memberState(t, member.id)).state.private;
    const hash = stored.credentials.passwordHash as string;
    expect(hash).toMatch(/^scrypt\$/);

    // the state: everything the instance keeps, the hash apart; the held push is a record of its own
    const [state] = ofKind(data, 'member');
    expect(state).toMatchObject({ store: 'state', classId: 'Member', instanceId: member.id });
    const kept = state!.data as Record<string, any>;
    expect(kept.profile).toEqual(stored.profile);
    expect(kept.documents).toEqual(stored.documents);
    expect(kept.documents[0]).toMatchObject({ originalFilename: 'contract.pdf', label: 'Contract' });
    expect(kept.pendingPhoto).toEqual(stored.pendingPhoto);
    expect(kept.credentials).toEqual({ passwordChangedAt: stored.credentials.passwordChangedAt });
    expect(kept).not.toHaveProperty('heldHr');
    const { credentials: _c, heldHr: _h, ...rest } = stored;
    expect({ ...kept, credentials: undefined }).toEqual({ ...rest, credentials: undefined });

    // the secret is nowhere in the answer
    const json = JSON.stringify(data);
    expect(json).not.toContain(hash);
    expect(json).not.toContain('passwordHash');

    // the push the quarantine holds: the record HR sent, as held
    const [held] = ofKind(data, 'heldHrPush');
    expect(held).toMatchObject({ store: 'hr', classId: 'Member', instanceId: member.id });
    expect(held!.data).toEqual(stored.heldHr);
    expect(held!.data).toMatchObject({
      kind: 'employee',
      body: { record: { employeeId: staffId, status: 'terminated' } },
    });

    // the document the store lists it by
    const [listed] = ofKind(data, 'members');
    expect(listed).toMatchObject({ store: 'listing', classId: 'Member', instanceId: member.id });
    expect(listed!.data).toEqual(await t.rt.documents.get('members', member.id));

    // the HR ledger: its own pushes (record, photo, the held termination), newest first; not its dependant's
    const ledger = ledgerOf(data);
    expect(ledger.map((e) => e.data.endpoint)).toEqual(['employee', 'photo', 'employee']);
    expect(ledger.map((e) => e.status)).toEqual([202, 200, 200]);
    for (const e of ledger) expect(e.data.employeeId).toBe(staffId);
    for (const r of ofKind(data, 'hrLedgerEntry')) expect(r).toMatchObject({ store: 'hr', instanceId: member.id });

    expect(data.related).toEqual([{ type: 'member', id: dependantId }]);
    expect(data.companyId).toBe('c-1');
    // what DataSubject looks for traces of the member by (mails, SMS, kept answers)
    expect(data.values).toEqual(expect.arrayContaining([member.email, staffId, 'Ada Lovelace', stored.profile.phone]));
    expect(data.files).toEqual([]);
    expect(data.records).toHaveLength(1 + 1 + 1 + 3);
  });

  test("a dependant: its own state, the dependant push naming it (under its employee's staff id), no dependants of its own", async () => {
    const data = await exportOf('Member', { type: 'member', id: dependantId });
    const [state] = ofKind(data, 'member');
    expect((state!.data as any).profile).toMatchObject({ id: dependantId, primaryMemberId: member.id });
    const ledger = ledgerOf(data);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]!.data).toMatchObject({ endpoint: 'dependant', employeeId: staffId, dependantId });
    expect(ofKind(data, 'hrLedgerEntry')[0]).toMatchObject({ store: 'hr', instanceId: dependantId });
    expect(data.related).toEqual([]);
    expect(data.companyId).toBe('c-1');
  });

  test('FileManager has the content of the photo and the document, as uploaded', async () => {
    const stored = (await memberState(t, member.id)).state.private;
    const data = await exportOf('FileManager', { type: 'member', id: member.id });
    expect(data.files.map((f) => f.name).sort()).toEqual(
      [stored.pendingPhoto.idPhoto, stored.documents[0].filename].sort(),
    );
    const photo = data.files.find((f) => f.name === stored.pendingPhoto.idPhoto)!;
    expect(photo).toMatchObject({
      classId: 'FileManager',
      instanceId: `member_${member.id}`,
      kind: 'file',
      contentType: 'image/png',
    });
    expect(photo.contentBase64).toBe(IMAGES.png);
    const pdf = data.files.find((f) => f.name === stored.documents[0].filename)!;
    expect(pdf).toMatchObject({ contentType: 'application/pdf' });
    expect(pdf.contentBase64).toBe(PDF);
    expect(ofKind(data, 'fileMetadata')).toHaveLength(2);
  });

  test('the answers are what their answer schemas say: the method and the READ behind it', async () => {
    // exportOf checks the method's answer
    await exportOf('Member', { type: 'member', id: member.id });
    const read = (await t.rt.call('Member', 'subjectRecordsOf', member.id, {})).body;
    expectValidAnswer(t, 'Member', 'subjectRecordsOf', read);
  });

  test('no such member: 404 5000; a lookup instead of an id is no member id either', async () => {
    const unknown = ['no-such-member', `staffId!${staffId}`, 'bad id/with slash'].map((id) => ({ type: 'member', id }));
    await expectNoSuchSubject(t, 'Member', 'exportSubjectData', unknown, 5000);
  });

  test('a back-office or partner user: nothing here, no error', async () => {
    for (const type of ['program_management_user', 'partner_user']) {
      expect(await exportOf('Member', { type, id: member.id })).toEqual({ records: [], files: [] });
      expect(await exportOf('FileManager', { type, id: member.id })).toEqual({ records: [], files: [] });
    }
  });
});

describe('who may ask', () => {
  const body = () => exportBody({ type: 'member', id: member.id });

  test('DataSubject only: not over HTTP (a back-office super user, the member itself, an anonymous caller), not another class', async () => {
    for (const classId of ['Member', 'FileManager']) {
      await expectDataSubjectOnly(t, classId, 'exportSubjectData', body(), {
        users: [env.pm, bearer(t.token('enduser', member.id))],
        classes: ['Tier'],
      });
    }
  });

  test('DataSubject may not call the instance reads behind the method', async () => {
    await expectClassOwn(t, 'Member', 'subjectRecordsOf', member.id, {}, { classes: ['DataSubject'] });
    await expectClassOwn(t, 'FileManager', 'subjectFilesOf', `member_${member.id}`, {}, { classes: ['DataSubject'] });
  });

  test("a company user's export: another company's member is refused, its own company's has no HR ledger", async () => {
    for (const classId of ['Member', 'FileManager']) {
      await expect(subjectCall(t, classId, 'exportSubjectData', body(), 'c-2')).rejects.toMatchObject({
        status: 403,
        code: 1023,
      });
    }
    const own = await exportOf('Member', { type: 'member', id: member.id }, 'c-1');
    expect(ofKind(own, 'member')).toHaveLength(1);
    expect(ofKind(own, 'heldHrPush')).toHaveLength(1);
    expect(ofKind(own, 'members')).toHaveLength(1);
    // the ledger spans every company and is not kept per company: a company-bound reader gets none of it
    expect(ledgerOf(own)).toEqual([]);
    const files = await exportOf('FileManager', { type: 'member', id: member.id }, 'c-1');
    expect(files.files).toHaveLength(2);
  });
});
