/**
 * ProgramManagementUser.eraseSubjectData over real Redis and HTTP: a
 * back-office user erased for DataSubject's erasure (its name and email
 * ERASED, its password hash, invitation and waiting change gone, `inactive`,
 * its email released, marked erased), its listing document re-projected
 * without a value, an audit entry of the fact without one; its sessions ended
 * (its access token and refresh token stop working), it cannot sign in and
 * every later write is refused 410 4023; zeros on a second call and for other
 * subjects, 404 4022 for an unknown user; other users untouched; only
 * DataSubject may ask, only this class reaches eraseUser; the company scope of
 * the class applies to a caller limited to a company.
 */
import { seedProgram } from '../Member/support';
import { waitFor } from '../support/harness';
import {
  asClass,
  eraseBody,
  erasedBy,
  erasureAuditEntry,
  expectClassOwn,
  expectDataSubjectOnly,
  expectNoSuchSubject,
  expectValidAnswer,
  exportedBy,
  finishedJob,
  storedState,
  subjectCall,
} from '../support/subject-data';
import {
  acceptInvitation,
  auth,
  call,
  createApprovedUser,
  PASSWORD,
  settled,
  signIn,
  startPmRuntime,
  uid,
  type CreatedUser,
  type PmRuntime,
} from './support';

let p: PmRuntime;
beforeAll(async () => {
  p = await startPmRuntime();
  await seedProgram(p.t);
});
afterAll(() => p.stop());

const COLLECTION = 'programManagementUsers';
const ERASURE_ID = 'erasure-7';

/** eraseSubjectData as DataSubject calls it (its caller's company along when it has one) */
const eraseCall = (type: string, id: string, tenant?: string) =>
  subjectCall(p.t, 'ProgramManagementUser', 'eraseSubjectData', eraseBody({ type, id }, ERASURE_ID), tenant);
const erase = (type: string, id: string, tenant?: string) =>
  erasedBy(p.t, 'ProgramManagementUser', { type, id }, ERASURE_ID, { tenant });
const stored = (id: string) => storedState(p.t, 'ProgramManagementUser', id);
const emailHolder = (address: string) => p.t.rt.store.resolveLookup('ProgramManagementUser', 'email', address);

/** the user's listing document once `ok` holds of it */
function listedWhen(id: string, ok: (doc: Record<string, any>) => boolean, what: string) {
  return waitFor<Record<string, any>>(
    async () => {
      const doc = (await p.t.rt.documents.get(COLLECTION, id)) as Record<string, any> | null;
      return doc && ok(doc) ? doc : null;
    },
    { what: `listing document of ${id}: ${what}` },
  );
}

/** a company user with distinctive values, signed in: its session */
async function signedInUser(name: string, companyId = 'c-1') {
  const u = await createApprovedUser(p, { type: 'company', companyId, name, email: `${uid('zq')}@erasure.example` });
  await acceptInvitation(p, u);
  const session = await signIn(p, u);
  await listedWhen(u.id, (d) => d.lastLoginAt !== null, 'signed in');
  return { u, session };
}

describe('eraseSubjectData', () => {
  test('a signed-in user: its values nowhere in its state or listing document, its email released, marked erased', async () => {
    const name = 'Theodora Vanterpool-Ashgrove';
    const { u } = await signedInUser(name);
    const before = await stored(u.id);
    expect(before.private.credentials.passwordHash).toEqual(expect.any(String));
    const other = await createApprovedUser(p, { name: 'Ola Unrelated' });

    expect(await erase('program_management_user', u.id)).toEqual({ records: 2, files: 0 });

    const after = await stored(u.id);
    for (const value of ['Theodora', 'Vanterpool', u.email, before.private.credentials.passwordHash])
      expect(after.json).not.toContain(value);
    expect(after.private.user).toEqual({
      ...before.private.user,
      name: '[erased]',
      email: '[erased]',
      status: 'inactive',
      invitedAt: null,
      acceptedAt: null,
      lastLoginAt: null,
      updatedAt: expect.any(String),
      erasedAt: expect.any(String),
      erasureId: ERASURE_ID,
    });
    expect(after.private.credentials).toEqual({ passwordHash: null, passwordChangedAt: null });
    expect(after.private.pendingApproval).toBeNull();
    expect(after.private.sessionsValidAfter).toBe(after.private.user.erasedAt);
    // the email is released: nobody holds it, and a new user may have it
    expect(await emailHolder(u.email)).toBeUndefined();

    // the listing document is re-projected from the erased state: no value, in its search column neither
    const doc = await listedWhen(u.id, (d) => d.status === 'inactive', 'erased');
    expect(doc).toMatchObject({ name: '[erased]', email: '[erased]', search: '[erased] [erased]' });
    expect(doc.erasedAt).toBe(after.private.user.erasedAt);
    for (const value of ['theodora', 'vanterpool', u.email]) expect(JSON.stringify(doc)).not.toContain(value);
    const listed = await call(p.t, 'listUsers', undefined, { search: 'vanterpool' }, p.admin);
    expect(listed.body.totalCount).toBe(0);

    // the erasure's audit entry says what happened and holds no personal value
    const logState = await erasureAuditEntry(p.t, u.id);
    expect(logState).toContain('subject_erasure');
    for (const value of ['Theodora', 'Vanterpool', u.email]) expect(logState).not.toContain(value);

    // a second call (a retry) finds nothing left: zeros, nothing written
    expect(await erase('program_management_user', u.id)).toEqual({ records: 0, files: 0 });
    expect((await stored(u.id)).version).toBe(after.version);

    // the account's facts stay readable; its export has no trace values left
    const got = await call(p.t, 'getUser', u.id, {}, p.admin);
    expect(got.body.user).toMatchObject({ id: u.id, name: '[erased]', erasureId: ERASURE_ID });
    // as its answer schema says, with the erasure's fields
    expectValidAnswer(p.t, 'ProgramManagementUser', 'getUser', got.body);
    const exported = await exportedBy(p.t, 'ProgramManagementUser', { type: 'program_management_user', id: u.id });
    expect(exported.values).toEqual([]);

    // another user is untouched
    expect((await stored(other.id)).private.user).toMatchObject({ name: 'Ola Unrelated', email: other.email });
    expect(await emailHolder(other.email)).toBe(other.id);

    // the freed email may be given to a new user
    const again = await createApprovedUser(p, { email: u.email, name: 'Someone New' });
    expect(await emailHolder(u.email)).toBe(again.id);
  });

  test('its sessions end: its access token and refresh token stop working, and it cannot sign in again', async () => {
    const { u, session } = await signedInUser('Leopold Quixby-Marchetti');
    const permissions = () => call(p.t, 'getPermissions', u.id, {}, auth(session.accessToken));
    expect((await permissions()).status).toBe(200);
    expect(await p.t.rt.sessions.list(u.id, 'program_management_user')).not.toEqual([]);

    await erase('program_management_user', u.id);

    expect((await permissions()).status).toBe(401);
    expect(await p.t.rt.sessions.list(u.id, 'program_management_user')).toEqual([]);
    const refreshed = await p.t.post(`/${p.t.projectId}/auth/refresh`, { refreshToken: session.refreshToken });
    expect(refreshed.status).toBe(401);
    // the email and password no longer sign anyone in, and no code is sent
    const login = await call(p.t, 'login', undefined, { email: u.email, password: PASSWORD });
    expect([login.status, login.body.code]).toEqual([401, 4013]);
    const reset = await call(p.t, 'sendPasswordResetEmail', undefined, { email: u.email });
    expect(reset.status).toBe(202);
    // its identity answers inactive, with no roles
    const identity = await p.t.rt.call(
      'ProgramManagementUser',
      'resolveIdentity',
      u.id,
      {},
      asClass('ProgramManagementUser'),
    );
    expect(identity.body).toMatchObject({ active: false, roles: [] });
  });

  test('every later write is refused 410 4023: changes, approval callbacks, sign-in steps', async () => {
    const u = await createApprovedUser(p, { name: 'Ximena Erasable' });
    // a change waiting for its approval when the erasure comes
    const waiting = await call(p.t, 'updateUser', u.id, { name: 'Ximena Renamed' }, p.admin);
    expect(waiting.status).toBe(200);
    const approvalId = waiting.body.pendingApproval.id as string;

    await erase('program_management_user', u.id);
    const erased = await stored(u.id);
    expect(erased.private.pendingApproval).toBeNull();
    expect(erased.json).not.toContain('Ximena');

    const refused = { status: 410, body: expect.objectContaining({ code: 4023, classId: 'ProgramManagementUser' }) };
    expect(await call(p.t, 'updateUser', u.id, { name: 'Back Again' }, p.admin)).toMatchObject(refused);
    expect(await call(p.t, 'updateUserStatus', u.id, { status: 'active' }, p.admin)).toMatchObject(refused);
    const self = asClass('ProgramManagementUser');
    const writes: [string, Record<string, unknown>][] = [
      ['recordSignIn', { at: new Date().toISOString() }],
      ['setPassword', { passwordHash: 'scrypt$x', reason: 'reset' }],
      ['completeInvitation', { passwordHash: 'scrypt$x' }],
      ['completeSso', { at: new Date().toISOString() }],
    ];
    for (const [method, body] of writes) {
      await expect(p.t.rt.call('ProgramManagementUser', method, u.id, body, self)).rejects.toMatchObject({
        status: 410,
        code: 4023,
      });
    }
    // the approval callback of the change it waited for (a queued job) fails for good
    const queued = await p.t.rt.call(
      'ProgramManagementUser',
      'approveUser',
      u.id,
      { approvalId, action: 'approve', entityId: u.id, event: 'user_update', jsonPatch: [] },
      asClass('ApprovalManager'),
    );
    expect(queued.status).toBe(202);
    const outcome = await finishedJob(p.t, (queued.body as { jobId: string }).jobId);
    expect(outcome).toMatchObject({ status: 'failed', error: { status: 410, body: { code: 4023 } } });
    // nothing of it was written
    expect((await stored(u.id)).version).toBe(erased.version);
  });

  test('a user that holds no email (its creation rejected: inactive) is erased all the same', async () => {
    const address = `${uid('zq')}@erasure.example`;
    const created = await call(
      p.t,
      'createUser',
      undefined,
      { email: address, name: 'Rejected Rosalind', type: 'internal', loginMethod: 'email_password', roles: ['viewer'] },
      p.admin,
    );
    expect(created.status).toBe(201);
    const id = created.body.user.id as string;
    const review = await call(
      p.t,
      'reviewApproval',
      created.body.approval.id,
      { action: 'reject' },
      p.approver,
      'ApprovalManager',
    );
    expect(review.status).toBe(200);
    expect((await settled(p, id)).user.status).toBe('inactive');
    expect(await emailHolder(address)).toBeUndefined();

    expect((await erase('program_management_user', id)).records).toBeGreaterThanOrEqual(1);
    const after = await stored(id);
    expect(after.private.user).toMatchObject({ status: 'inactive', name: '[erased]', erasureId: ERASURE_ID });
    expect(after.json).not.toContain('Rosalind');
    expect(after.json).not.toContain(address);
  });

  test('zeros for a member or a partner user; 404 4022 for an unknown user or a lookup address', async () => {
    const u = await createApprovedUser(p);
    expect(await erase('member', u.id)).toEqual({ records: 0, files: 0 });
    expect(await erase('partner_user', u.id)).toEqual({ records: 0, files: 0 });
    expect((await stored(u.id)).private.user.erasedAt).toBeUndefined();
    const unknown = [uid('nobody'), `email!${u.email}`].map((id) => ({ type: 'program_management_user', id }));
    await expectNoSuchSubject(p.t, 'ProgramManagementUser', 'eraseSubjectData', unknown, 4022);
    expect(await emailHolder(u.email)).toBe(u.id);
  });
});

describe('who may call it', () => {
  test('DataSubject only: back-office users over HTTP, anonymous callers and other classes are refused', async () => {
    const u = await createApprovedUser(p);
    const body = eraseBody({ type: 'program_management_user', id: u.id }, 'e-1');
    await expectDataSubjectOnly(p.t, 'ProgramManagementUser', 'eraseSubjectData', body, {
      users: [p.admin],
      classes: ['Member', 'ProgramManagementUser'],
    });
    expect((await stored(u.id)).private.user.erasedAt).toBeUndefined();
  });

  test('eraseUser is this class’s own: not DataSubject, not a level-1 user over HTTP', async () => {
    const u = await createApprovedUser(p);
    await expectClassOwn(
      p.t,
      'ProgramManagementUser',
      'eraseUser',
      u.id,
      { erasureId: 'e-1' },
      {
        users: [p.admin],
        classes: ['DataSubject'],
      },
    );
    expect((await stored(u.id)).private.user.erasedAt).toBeUndefined();
  });
});

describe('company scope', () => {
  test("a caller limited to a company erases its company's users; another company's user and an internal user are refused", async () => {
    const mine: CreatedUser = await createApprovedUser(p, { type: 'company', companyId: 'c-1' });
    const theirs = await createApprovedUser(p, { type: 'company', companyId: 'c-2' });
    const internal = await createApprovedUser(p);

    expect(await erase('program_management_user', mine.id, 'c-1')).toMatchObject({ files: 0 });
    expect((await stored(mine.id)).private.user).toMatchObject({ erasureId: ERASURE_ID, companyId: 'c-1' });

    for (const u of [theirs, internal]) {
      await expect(eraseCall('program_management_user', u.id, 'c-1')).rejects.toMatchObject({
        status: 403,
        code: 1023,
      });
      expect((await stored(u.id)).private.user.erasedAt).toBeUndefined();
      expect(await emailHolder(u.email)).toBe(u.id);
    }
  });
});
