/**
 * ProgramManagementUser.exportSubjectData over real Redis and HTTP: a
 * back-office user's state (without its password hash) and listing document,
 * and its company, for DataSubject; nothing for other subjects; 404 4022 for
 * an unknown user; only DataSubject may ask, only this class reads the state
 * through readUserState; the company scope of the class applies to a caller
 * limited to a company.
 */
import { seedProgram } from '../Member/support';
import {
  asClass,
  expectClassOwn,
  expectDataSubjectOnly,
  expectNoSuchSubject,
  expectValidAnswer,
  exportBody,
  exportedBy,
  exportedWhen,
  storedState,
  subjectCall,
} from '../support/subject-data';
import {
  acceptInvitation,
  call,
  createApprovedUser,
  PASSWORD,
  signIn,
  startPmRuntime,
  uid,
  type PmRuntime,
} from './support';

let p: PmRuntime;
beforeAll(async () => {
  p = await startPmRuntime();
  await seedProgram(p.t);
});
afterAll(() => p.stop());

/** exportSubjectData as DataSubject calls it (its caller's company along when it has one) */
const exportCall = (type: string, id: string, tenant?: string) =>
  subjectCall(p.t, 'ProgramManagementUser', 'exportSubjectData', exportBody({ type, id }), tenant);
const exportFor = (type: string, id: string, tenant?: string) =>
  exportedBy<Record<string, any>>(p.t, 'ProgramManagementUser', { type, id }, { tenant });
/** the export once the user's listing document is streamed */
const exportWithListing = (id: string, tenant?: string) =>
  exportedWhen<Record<string, any>>(
    p.t,
    'ProgramManagementUser',
    { type: 'program_management_user', id },
    (answer) => answer.records.some((r: any) => r.store === 'listing'),
    'the listing document',
    { tenant },
  );
const storedUser = async (id: string) => (await storedState(p.t, 'ProgramManagementUser', id)).private;

describe('exportSubjectData', () => {
  test('a signed-in company user: its state without the password hash, its listing document, its company', async () => {
    const u = await createApprovedUser(p, { type: 'company', companyId: 'c-1', name: 'Cora Company' });
    await acceptInvitation(p, u);
    await signIn(p, u);
    const stored = await storedUser(u.id);
    expect(stored.credentials.passwordHash).toEqual(expect.any(String));
    expect(stored.user.lastLoginAt).toEqual(expect.any(String));

    const answer = await exportWithListing(u.id);
    expect(answer.companyId).toBe('c-1');
    // the values by which DataSubject finds the user's traces outside the records (mails sent to it)
    expect(answer.values).toEqual(['Cora Company', u.email]);
    expect(answer.files).toEqual([]);
    expect(answer.records.map((r: any) => [r.store, r.classId, r.instanceId, r.kind])).toEqual([
      ['state', 'ProgramManagementUser', u.id, 'user'],
      ['listing', 'ProgramManagementUser', u.id, 'userDocument'],
    ]);
    const [state, listing] = answer.records.map((r: any) => r.data);
    const { passwordHash: _secret, ...credentials } = stored.credentials;
    expect(state).toEqual({ ...stored, credentials });
    expect(state.user).toEqual((await call(p.t, 'getUser', u.id, {}, p.admin)).body.user);
    expect(state.credentials.passwordChangedAt).toEqual(expect.any(String));
    expect(listing).toMatchObject({ id: u.id, email: u.email, name: 'Cora Company', companyId: 'c-1' });
    expect(Object.keys(listing).filter((k) => k.startsWith('_'))).toEqual([]);

    // no secret anywhere in the answer: not the hash, not the password
    const json = JSON.stringify(answer);
    expect(json).not.toContain(stored.credentials.passwordHash);
    expect(json).not.toContain('passwordHash');
    expect(json).not.toContain(PASSWORD);
  });

  test('an internal user belongs to no company; a user never given a password exports none', async () => {
    const u = await createApprovedUser(p);
    const answer = await exportFor('program_management_user', u.id);
    expect(answer.companyId).toBeNull();
    expect(answer.records[0].data.credentials).toEqual({ passwordChangedAt: null });
  });

  test('nothing for a member or a partner user; 404 4022 for an unknown user or a lookup address', async () => {
    const u = await createApprovedUser(p);
    expect(await exportFor('member', u.id)).toEqual({ records: [], files: [] });
    expect(await exportFor('partner_user', u.id)).toEqual({ records: [], files: [] });
    const unknown = [uid('nobody'), `email!${u.email}`].map((id) => ({ type: 'program_management_user', id }));
    await expectNoSuchSubject(p.t, 'ProgramManagementUser', 'exportSubjectData', unknown, 4022);
  });
});

describe('who may call it', () => {
  test('DataSubject only: back-office users over HTTP, anonymous callers and other classes are refused', async () => {
    const u = await createApprovedUser(p);
    const body = exportBody({ type: 'program_management_user', id: u.id });
    await expectDataSubjectOnly(p.t, 'ProgramManagementUser', 'exportSubjectData', body, {
      users: [p.admin],
      classes: ['Member', 'ProgramManagementUser'],
    });
  });

  test('readUserState is this class’s own: not DataSubject, not a level-1 user over HTTP', async () => {
    const u = await createApprovedUser(p);
    await expectClassOwn(
      p.t,
      'ProgramManagementUser',
      'readUserState',
      u.id,
      {},
      {
        users: [p.admin],
        classes: ['DataSubject'],
      },
    );
  });

  test('readUserState answers what its answer schema says', async () => {
    const u = await createApprovedUser(p, { type: 'company', companyId: 'c-1' });
    await acceptInvitation(p, u);
    const r = await p.t.rt.call('ProgramManagementUser', 'readUserState', u.id, {}, asClass('ProgramManagementUser'));
    expectValidAnswer(p.t, 'ProgramManagementUser', 'readUserState', r.body);
  });
});

describe('company scope', () => {
  test("a caller limited to a company gets its company's users; another company's user and an internal user are refused", async () => {
    const mine = await createApprovedUser(p, { type: 'company', companyId: 'c-1' });
    const theirs = await createApprovedUser(p, { type: 'company', companyId: 'c-2' });
    const internal = await createApprovedUser(p);

    const answer = await exportWithListing(mine.id, 'c-1');
    expect(answer.companyId).toBe('c-1');
    expect(answer.records.map((r: any) => r.store)).toEqual(['state', 'listing']);

    for (const id of [theirs.id, internal.id]) {
      await expect(exportCall('program_management_user', id, 'c-1')).rejects.toMatchObject({
        status: 403,
        code: 1023,
      });
    }
    // the same users for a caller limited to no company
    expect((await exportFor('program_management_user', theirs.id)).companyId).toBe('c-2');
  });
});
