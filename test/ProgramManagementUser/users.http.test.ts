/**
 * Managing back-office users over HTTP: what createUser refuses, no privilege
 * beyond your own, email uniqueness (creation, rejection, activation), the
 * listing, company users, and what the audit log keeps.
 */
import { seedProgram } from '../Member/support';
import { findLogs } from '../support/logs';
import { waitFor } from '../support/harness';
import {
  acceptInvitation,
  auth,
  bearer,
  call,
  createApprovedUser,
  email,
  settled,
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

const create = (body: Record<string, unknown>, headers = p.admin) =>
  call(
    p.t,
    'createUser',
    undefined,
    { email: email(), name: 'Bo Example', type: 'internal', loginMethod: 'email_password', roles: ['viewer'], ...body },
    headers,
  );
const review = (approvalId: string, action: 'approve' | 'reject') =>
  call(p.t, 'reviewApproval', approvalId, { action }, p.approver, 'ApprovalManager');

describe('createUser refuses', () => {
  test('a company user without its company, an internal one with one, an unknown company, an unknown role', async () => {
    const noCompany = await create({ type: 'company' });
    expect([noCompany.status, noCompany.body.code, noCompany.body.details.errors]).toEqual([
      400,
      4002,
      [{ field: 'companyId', reason: 'is required for a company user' }],
    ]);
    expect((await create({ type: 'internal', companyId: 'c-1' })).body.code).toBe(4002);
    const ghostCompany = await create({ type: 'company', companyId: 'c-none' });
    expect([ghostCompany.status, ghostCompany.body.code]).toEqual([400, 4010]);
    const ghostRole = await create({ roles: ['viewer', 'ghost'] });
    expect([ghostRole.status, ghostRole.body.code, ghostRole.body.details.errors]).toEqual([
      400,
      4009,
      [{ field: 'roles', reason: "'ghost' is not an active role" }],
    ]);
    const schema = await create({ email: 'not-an-email' });
    expect([schema.status, schema.body.code]).toEqual([400, 1002]);
  });

  test('an email another user holds, whatever its case', async () => {
    const address = email();
    expect((await create({ email: address })).status).toBe(201);
    const twice = await create({ email: address.toUpperCase() });
    expect([twice.status, twice.body.code]).toEqual([409, 4001]);
  });
});

describe('no privilege beyond your own', () => {
  const useradmin = () => bearer(p.t, 'pm-useradmin', ['useradmin']);

  test('a level-10 user gives roles whose permissions it holds, never a level-1 role nor one that can do more', async () => {
    expect((await create({ roles: ['viewer'] }, useradmin())).status).toBe(201);
    const levelOne = await create({ roles: ['super'] }, useradmin());
    expect([levelOne.status, levelOne.body.code]).toEqual([403, 4019]);
    const more = await create({ roles: ['approver'] }, useradmin());
    expect([more.status, more.body.code]).toEqual([403, 4006]);
    expect(more.body.details.notHeld).toEqual([
      'ApprovalManager.getApproval',
      'ApprovalManager.listApprovals',
      'ApprovalManager.reviewApproval',
    ]);
  });

  test('only a developer makes a developer; a developer user is changed by developers only', async () => {
    const byAdmin = await create({ developer: true });
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 4007]);
    const developer = bearer(p.t, 'pm-dev', ['super'], { developer: true });
    const made = await create({ developer: true }, developer);
    expect(made.status).toBe(201);
    // a developer's change is approved at once (the platform's developer bypass)
    expect(made.body.approval.approvalStatus).toBe('approved');
    const rename = await call(p.t, 'updateUser', made.body.user.id, { name: 'Renamed' }, p.admin);
    expect([rename.status, rename.body.code]).toEqual([403, 4007]);
  });

  test('nobody changes its own roles or status; its name it may', async () => {
    const u = await createApprovedUser(p, { roles: ['useradmin'] });
    const self = bearer(p.t, u.id, ['useradmin']);
    const roles = await call(p.t, 'updateUser', u.id, { roles: ['useradmin', 'viewer'] }, self);
    expect([roles.status, roles.body.code, roles.body.details.fields]).toEqual([403, 4008, ['roles']]);
    const status = await call(p.t, 'updateUserStatus', u.id, { status: 'inactive' }, self);
    expect([status.status, status.body.code]).toEqual([403, 4008]);
    const name = await call(p.t, 'updateUser', u.id, { name: 'My New Name' }, self);
    expect(name.status).toBe(200);
  });
});

describe('email uniqueness', () => {
  test('a rejected creation leaves the user inactive and its email free', async () => {
    const address = email();
    const first = await create({ email: address });
    expect((await review(first.body.approval.id, 'reject')).status).toBe(200);
    expect((await settled(p, first.body.user.id)).user.status).toBe('inactive');
    expect((await create({ email: address })).status).toBe(201);
  });

  test('activation checks that nobody took the email of an inactive user meanwhile', async () => {
    const a = await createApprovedUser(p);
    const off = await call(p.t, 'updateUserStatus', a.id, { status: 'inactive' }, p.admin);
    await review(off.body.approval.id, 'approve');
    expect((await settled(p, a.id)).user.status).toBe('inactive');
    const b = await create({ email: a.email });
    expect(b.status).toBe(201);
    const back = await call(p.t, 'updateUserStatus', a.id, { status: 'active' }, p.admin);
    expect([back.status, back.body.code]).toEqual([409, 4001]);
  });

  test('an email change waits for its approval and moves the sign-in to the new address', async () => {
    const u = await createApprovedUser(p);
    await acceptInvitation(p, u);
    const newEmail = email('moved');
    const change = await call(p.t, 'updateUser', u.id, { email: newEmail }, p.admin);
    expect(change.body).toMatchObject({ pendingApproval: { event: 'user_update' }, user: { email: u.email } });
    const waiting = await call(p.t, 'updateUser', u.id, { name: 'Other' }, p.admin);
    expect([waiting.status, waiting.body.code]).toEqual([409, 4003]);
    await review(change.body.approval.id, 'approve');
    expect((await settled(p, u.id)).user.email).toBe(newEmail);
    const s = await signIn(p, { id: u.id, email: newEmail });
    expect(s.accessToken).toEqual(expect.any(String));
    expect((await call(p.t, 'login', undefined, { email: u.email, password: 'mauve-otter-lantern-42' })).status).toBe(
      401,
    );
  });
});

describe('listing and company users', () => {
  test('listUsers filters by status, type, company and search; the document holds no secret', async () => {
    const tag = email('list').split('@')[0]!;
    const u = await createApprovedUser(p, {
      email: `${tag}@example.com`,
      name: `Listed ${tag}`,
      type: 'company',
      companyId: 'c-2',
    });
    await waitFor(
      async () => (await call(p.t, 'listUsers', undefined, { search: tag }, p.admin)).body.totalCount === 1,
      { what: 'listed' },
    );
    const r = await call(
      p.t,
      'listUsers',
      undefined,
      { search: tag.toUpperCase(), type: 'company', companyId: 'c-2', status: 'pending' },
      p.admin,
    );
    expect(r.body).toMatchObject({
      totalCount: 1,
      page: 1,
      limit: 20,
      totalPages: 1,
      users: [{ id: u.id, email: u.email, companyId: 'c-2' }],
    });
    expect(Object.keys(r.body.users[0])).not.toEqual(expect.arrayContaining(['search']));
    expect(JSON.stringify(r.body)).not.toMatch(/passwordHash|credentials/);
    expect((await call(p.t, 'listUsers', undefined, { search: tag, status: 'active' }, p.admin)).body.totalCount).toBe(
      0,
    );
    const bad = await call(p.t, 'listUsers', undefined, { limit: 500 }, p.admin);
    expect([bad.status, bad.body.code, bad.body.details.errors[0].field]).toEqual([400, 4011, 'limit']);
  });

  test("a company user's session is limited to its company, taken from the stored user", async () => {
    const mine = await createApprovedUser(p, { type: 'company', companyId: 'c-1', roles: ['useradmin'] });
    await acceptInvitation(p, mine);
    const colleague = await createApprovedUser(p, { type: 'company', companyId: 'c-1' });
    const internal = await createApprovedUser(p);
    const s = await signIn(p, mine);
    const h = auth(s.accessToken);
    expect((await call(p.t, 'getUser', colleague.id, {}, h)).status).toBe(200);
    const out = await call(p.t, 'getUser', internal.id, {}, h);
    expect([out.status, out.body.code]).toEqual([403, 1023]);
    await waitFor(
      async () =>
        (await call(p.t, 'listUsers', undefined, { companyId: 'c-1', limit: 100 }, p.admin)).body.users.some(
          (x: { id: string }) => x.id === colleague.id,
        ),
      { what: 'colleague listed' },
    );
    const listed = await call(p.t, 'listUsers', undefined, { limit: 100 }, h);
    expect(listed.status).toBe(200);
    expect(new Set(listed.body.users.map((x: { companyId: string }) => x.companyId))).toEqual(new Set(['c-1']));
    // it cannot create a user of another company, nor an internal one
    const elsewhere = await create({ type: 'company', companyId: 'c-2', roles: [] }, h);
    expect(elsewhere.status).toBe(403);
    const inside = await create({ type: 'internal', roles: [] }, h);
    expect(inside.status).toBe(403);
    expect((await create({ type: 'company', companyId: 'c-1', roles: [] }, h)).status).toBe(201);
  });
});

describe('a company user keeps users in its company', () => {
  test('making a colleague internal or moving it to another company is refused before any approval; a rename is not', async () => {
    const colleague = await createApprovedUser(p, { type: 'company', companyId: 'c-1' });
    const companyUser = bearer(p.t, uid('cu'), ['super'], { userType: 'company', tenant: 'c-1' });
    for (const body of [{ type: 'internal' }, { type: 'internal', companyId: null }, { companyId: 'c-2' }]) {
      const r = await call(p.t, 'updateUser', colleague.id, body, companyUser);
      expect({ body, answer: [r.status, r.body.code] }).toEqual({ body, answer: [403, 4021] });
      // no approval was asked: the user waits for nothing and is still in c-1
      expect((await call(p.t, 'getUser', colleague.id, {}, p.admin)).body).toMatchObject({
        pendingApproval: null,
        user: { type: 'company', companyId: 'c-1' },
      });
    }
    const renamed = await call(p.t, 'updateUser', colleague.id, { name: 'Still Here' }, companyUser);
    expect(renamed.status).toBe(200);
    // the requester's company goes with the change, for approveUser to check again as the approver applies it
    const record = (await p.t.rt.call('ApprovalManager', 'getApproval', renamed.body.approval.id)).body as {
      additionalData: Record<string, unknown>;
    };
    expect(record.additionalData).toMatchObject({ requesterCompanyId: 'c-1' });
    // an internal user may still move one (the rule binds tenant-bound callers only)
    await review(renamed.body.approval.id, 'approve');
    await settled(p, colleague.id);
    const moved = await call(p.t, 'updateUser', colleague.id, { companyId: 'c-2' }, p.admin);
    expect(moved.status).toBe(200);
  });
});

describe('audit', () => {
  test('changes are logged with the email and name masked, and no password or code anywhere', async () => {
    const u = await createApprovedUser(p);
    await acceptInvitation(p, u);
    const logs = await waitFor(
      async () => {
        const found = await findLogs(p.t, { entityId: u.id });
        return found.items.some((l) => l.additionalData?.event === 'invitation_accepted') ? found : undefined;
      },
      { what: 'audit entries' },
    );
    const text = JSON.stringify(logs!.items);
    expect(text).not.toContain(u.email);
    expect(text).not.toContain('mauve-otter-lantern-42');
    expect(text).not.toMatch(/scrypt\$/);
    const accepted = logs!.items.find((l) => l.additionalData?.event === 'invitation_accepted')!;
    expect(accepted.fieldUpdates.map((f: { key: string }) => f.key)).toEqual(
      expect.arrayContaining(['status', 'acceptedAt']),
    );
  });
});
