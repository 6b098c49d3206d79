/**
 * Company through real HTTP: the singleton, every operation with the right
 * and a wrong identity, references to active settings, bgId uniqueness, the
 * workflow (approvals of creations and status changes, automatic updates),
 * the audit log, streaming, listing and company users.
 */
import type { Identity } from '../../runtime';
import { waitFor } from '../support/harness';
import { bearer, startServiceRuntime, type ServiceTestRuntime } from '../Setting/support';
import { findLogs } from '../support/logs';

let t: ServiceTestRuntime;
const MEMBER_CLASS: Identity = { type: 'class', classId: 'Member', instanceId: 'm-1' };
/** settings created by the system (approved at once) */
const S = { group: '', externalGroup: '', offGroup: '', regular: '', club: '', offType: '', spouse: '', offSub: '' };

beforeAll(async () => {
  t = await startServiceRuntime();
});
afterAll(() => t.stop());

const call = (method: string, body: unknown = {}, headers = t.superUser) => t.call('Company', method, body, headers);
const query = (method: string, q: Record<string, string | number> = {}, headers = t.superUser) =>
  t.query('Company', method, q, headers);
const companyDoc = (id: string) => t.rt.documents.get('companies', id);
const logsOf = async (entityId: string) => (await findLogs(t, { classId: 'Company', entityId })).items;
const asSystem = async (classId: string, method: string, body: unknown) =>
  (await t.rt.call(classId, method, 'default', body)).body as Record<string, any>;

let n = 0;
/** a valid create body with a fresh bgId */
const companyBody = (extra: Record<string, unknown> = {}) => {
  n += 1;
  return {
    name: `Company ${n}`,
    companyGroupId: S.group,
    hrContact: { name: 'Hana HR', email: `hr${n}@example.test` },
    eligibleMemberTypes: [S.regular],
    memberSubTypes: [{ memberSubTypeId: S.spouse, maxDependants: 2 }],
    maxFreeDependants: 1,
    bgId: `BG-${n}`,
    ...extra,
  };
};

/** a company made active at once (created by the system, which the workflow approves automatically) */
async function activeCompany(extra: Record<string, unknown> = {}) {
  const r = await asSystem('Company', 'createCompany', companyBody(extra));
  expect(r.company.status).toBe('active');
  return r.company as Record<string, any>;
}

describe('before the settings exist', () => {
  test('createCompany refuses every reference (400 6012) and creates nothing; reads answer the unknown-instance 500', async () => {
    const r = await call(
      'createCompany',
      companyBody({
        companyGroupId: 'g',
        eligibleMemberTypes: ['mt'],
        memberSubTypes: [{ memberSubTypeId: 's', maxDependants: 1 }],
      }),
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 6012, classId: 'Company' });
    expect(r.body.details.errors.map((e: { field: string; ids: string[] }) => [e.field, e.ids])).toEqual([
      ['companyGroupId', ['g']],
      ['eligibleMemberTypes', ['mt']],
      ['memberSubTypes', ['s']],
    ]);
    expect(await t.rt.store.read('Company', 'default')).toBeFalsy();
    const get = await query('getCompany', { id: 'x' });
    expect(get.status).toBe(500);
    expect(Object.keys(get.body)).toEqual(['message']);
  });

  test('init makes the singleton: program management users with the role and classes; once', async () => {
    expect((await call('init', {}, t.member)).status).toBe(403);
    expect((await call('init', {}, t.clerk)).status).toBe(403);
    const r = await call('init', {});
    expect(r.body).toEqual({ id: 'default', companies: 0 });
    expect((await call('init', {})).status).toBe(409);
    const other = await t.post(`/${t.projectId}/CALL/Company/updateCompany/other`, { id: 'x', name: 'y' }, t.superUser);
    expect(other.status).toBe(500); // no such instance (only createCompany creates on first use)
    const created = await t.post(
      `/${t.projectId}/CALL/Company/createCompany/other`,
      companyBody({ companyGroupId: 'g', eligibleMemberTypes: [], memberSubTypes: [] }),
      t.superUser,
    );
    expect([created.status, created.body.code]).toEqual([400, 6021]);
    expect(await t.rt.store.read('Company', 'other')).toBeFalsy();
  });
});

describe('with settings', () => {
  beforeAll(async () => {
    const create = async (method: string, body: Record<string, unknown>) =>
      (await asSystem('Setting', method, body)).item.id as string;
    S.group = await create('createCompanyGroup', { name: 'Internal', type: 'internal' });
    S.externalGroup = await create('createCompanyGroup', { name: 'External', type: 'external' });
    S.offGroup = await create('createCompanyGroup', { name: 'Old', type: 'internal' });
    S.regular = await create('createMemberType', { name: 'Regular', systemIdentifier: 'Permanent' });
    S.club = await create('createMemberType', { name: 'Club', systemIdentifier: 'Club' });
    S.offType = await create('createMemberType', { name: 'Retired', systemIdentifier: 'Retire' });
    S.spouse = await create('createMemberSubType', { name: 'Spouse', hrmsMapping: ['Spouse'] });
    S.offSub = await create('createMemberSubType', { name: 'Sibling', hrmsMapping: ['Sibling'] });
    await asSystem('Setting', 'updateCompanyGroupStatus', { id: S.offGroup, status: 'inactive' });
    await asSystem('Setting', 'updateMemberTypeStatus', { id: S.offType, status: 'inactive' });
    await asSystem('Setting', 'updateMemberSubTypeStatus', { id: S.offSub, status: 'inactive' });
  });

  describe('createCompany', () => {
    test('starts pending, becomes active once approved; streamed and audit-logged at each step', async () => {
      const body = companyBody({ description: 'widgets' });
      for (const headers of [t.member, t.clerk]) expect((await call('createCompany', body, headers)).status).toBe(403);
      const r = await call('createCompany', body);
      expect(r.status).toBe(201);
      const { company, approval } = r.body;
      expect(company).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        ...body,
        status: 'pending',
        createdBy: { id: 'root', type: 'program_management_user', roles: ['super'] },
        createdAt: expect.any(String),
        updatedAt: company.createdAt,
        pendingApprovalId: approval.id,
      });
      expect(approval).toMatchObject({
        event: 'company_create',
        approvalStatus: 'pending',
        approvalType: 'manual',
        entityNewStatus: 'active',
      });
      await waitFor(async () => (await companyDoc(company.id))?.pendingApprovalId === approval.id, {
        what: 'pending company streamed',
      });
      const busy = await call('updateCompany', { id: company.id, name: 'x' });
      expect([busy.status, busy.body.code]).toEqual([409, 6015]);

      await t.review(approval.id, 'approve', async () => {
        const d = await companyDoc(company.id);
        return d?.status === 'active' && d.pendingApprovalId === null;
      });
      const active = (await query('getCompany', { id: company.id })).body;
      expect(active).toMatchObject({
        status: 'active',
        pendingApprovalId: null,
        bgId: body.bgId,
        createdAt: company.createdAt,
      });
      // activated by the approval: updatedAt is the time the approval was applied
      expect(Date.parse(active.updatedAt)).toBeGreaterThan(Date.parse(company.updatedAt));
      expect((await companyDoc(company.id))?.updatedAt).toBe(active.updatedAt);
      const logs = await waitFor(
        async () => {
          const l = await logsOf(company.id);
          return l.length === 2 ? l : undefined;
        },
        { what: 'create and approve logs' },
      );
      expect(logs![0]).toMatchObject({
        entityType: 'company',
        actor: { id: 'root' },
        additionalData: { event: 'company_create', approvalId: approval.id },
      });
      expect(logs![0].fieldUpdates.map((f: { key: string }) => f.key)).not.toContain('pendingApprovalId');
      expect(logs![1].fieldUpdates).toEqual([
        { key: 'status', operation: 'replace', oldValue: '"pending"', newValue: '"active"' },
        {
          key: 'updatedAt',
          operation: 'replace',
          oldValue: JSON.stringify(company.updatedAt),
          newValue: JSON.stringify(active.updatedAt),
        },
      ]);
      // the approved change is the reviewer's, not class:ApprovalManager's
      expect(logs![1]).toMatchObject({
        actor: { id: 'ann', type: 'program_management_user' },
        additionalData: { action: 'approve' },
      });
    });

    test('references must be active settings of the right group (400 6012 naming the ids)', async () => {
      const r = await call(
        'createCompany',
        companyBody({
          companyGroupId: S.offGroup,
          eligibleMemberTypes: [S.regular, S.offType, S.spouse],
          memberSubTypes: [
            { memberSubTypeId: S.spouse, maxDependants: 1 },
            { memberSubTypeId: S.offSub, maxDependants: 1 },
            { memberSubTypeId: S.spouse, maxDependants: 3 },
          ],
        }),
      );
      expect([r.status, r.body.code]).toEqual([400, 6012]);
      expect(r.body.details.errors).toEqual([
        { field: 'companyGroupId', reason: expect.any(String), ids: [S.offGroup] },
        { field: 'eligibleMemberTypes', reason: expect.any(String), ids: [S.offType, S.spouse] },
        { field: 'memberSubTypes', reason: expect.any(String), ids: [S.offSub] },
        { field: 'memberSubTypes', reason: expect.any(String), ids: [S.spouse] },
      ]);
      const schema = await call(
        'createCompany',
        companyBody({ hrContact: { name: 'x', email: 'not-an-email' }, maxFreeDependants: -1 }),
      );
      expect([schema.status, schema.body.code]).toEqual([400, 1002]);
      expect(schema.body.details.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'hrContact.email',
        'maxFreeDependants',
      ]);
    });

    test('bgId is unique across companies (409 6011), on creation and on update; a given id must be new (409 6020)', async () => {
      const a = await activeCompany({ id: 'acme', bgId: 'BG-UNIQUE' });
      expect(a.id).toBe('acme');
      const dup = await call('createCompany', companyBody({ bgId: 'BG-UNIQUE' }));
      expect([dup.status, dup.body.code, dup.body.details]).toEqual([409, 6011, { bgId: 'BG-UNIQUE', id: 'acme' }]);
      const sameId = await call('createCompany', companyBody({ id: 'acme' }));
      expect([sameId.status, sameId.body.code]).toEqual([409, 6020]);
      const b = await activeCompany();
      const moved = await call('updateCompany', { id: b.id, bgId: 'BG-UNIQUE' });
      expect([moved.status, moved.body.code]).toEqual([409, 6011]);
    });

    test('a rejected creation leaves the company inactive', async () => {
      const r = await call('createCompany', companyBody());
      await t.review(
        r.body.approval.id,
        'reject',
        async () => (await companyDoc(r.body.company.id))?.status === 'inactive',
      );
      expect((await query('getCompany', { id: r.body.company.id })).body).toMatchObject({
        status: 'inactive',
        pendingApprovalId: null,
      });
    });
  });

  describe('updateCompany', () => {
    test('applies at once (update_company is automatic) and is logged; references given are checked; the clerk and members are refused', async () => {
      const c = await activeCompany();
      for (const headers of [t.member, t.clerk]) {
        const r = await call('updateCompany', { id: c.id, name: 'x' }, headers);
        expect(r.status).toBe(403);
      }
      const u = await call('updateCompany', {
        id: c.id,
        name: 'Renamed Co',
        eligibleMemberTypes: [S.regular, S.club],
        maxFreeDependants: 4,
        description: 'now with text',
      });
      expect(u.status).toBe(200);
      expect(u.body).toMatchObject({
        company: {
          name: 'Renamed Co',
          eligibleMemberTypes: [S.regular, S.club],
          maxFreeDependants: 4,
          description: 'now with text',
          status: 'active',
          pendingApprovalId: null,
        },
        approval: { event: 'update_company', approvalType: 'auto' },
      });
      await waitFor(async () => (await companyDoc(c.id))?.name === 'Renamed Co', { what: 'update streamed' });
      const logs = await waitFor(async () => {
        const l = await logsOf(c.id);
        return l.length === 2 ? l : undefined;
      });
      expect(logs![1].fieldUpdates.map((f: { key: string }) => f.key).sort()).toEqual([
        'description',
        'eligibleMemberTypes',
        'maxFreeDependants',
        'name',
        'updatedAt',
      ]);

      const badRef = await call('updateCompany', {
        id: c.id,
        memberSubTypes: [{ memberSubTypeId: S.offSub, maxDependants: 1 }],
      });
      expect([badRef.status, badRef.body.code, badRef.body.details.errors[0].ids]).toEqual([400, 6012, [S.offSub]]);
      const missing = await call('updateCompany', { id: 'nope', name: 'x' });
      expect([missing.status, missing.body.code]).toEqual([404, 6010]);
      const empty = await call('updateCompany', { id: c.id });
      expect([empty.status, empty.body.code]).toEqual([400, 6022]);
      const statusField = await call('updateCompany', { id: c.id, status: 'inactive' });
      expect([statusField.status, statusField.body.code]).toEqual([400, 1002]);
    });

    test('a company whose group became inactive can still be renamed (only the fields given are checked)', async () => {
      const group = (await asSystem('Setting', 'createCompanyGroup', { name: 'Fading', type: 'external' })).item.id;
      const c = await activeCompany({ companyGroupId: group });
      await asSystem('Setting', 'updateCompanyGroupStatus', { id: group, status: 'inactive' });
      expect((await call('updateCompany', { id: c.id, name: 'Still here' })).status).toBe(200);
      expect((await call('updateCompany', { id: c.id, companyGroupId: group })).body.code).toBe(6012);
    });
  });

  describe('getCompany', () => {
    test('by id or bgId, for program management users and classes (the Member HR sync); 404 when absent', async () => {
      const c = await activeCompany({ bgId: 'BG-LOOKUP' });
      expect((await query('getCompany', { id: c.id }, t.clerk)).body).toMatchObject({ id: c.id, bgId: 'BG-LOOKUP' });
      expect((await call('getCompany', { bgId: 'BG-LOOKUP' })).body.id).toBe(c.id);
      const byClass = await t.rt.call(
        'Company',
        'getCompany',
        'default',
        { bgId: 'BG-LOOKUP' },
        { identity: MEMBER_CLASS, origin: 'class' },
      );
      expect(byClass.body).toMatchObject({ id: c.id, companyGroupId: S.group });
      await expect(
        t.rt.call('Company', 'getCompany', 'default', { bgId: 'BG-NONE' }, { identity: MEMBER_CLASS, origin: 'class' }),
      ).rejects.toMatchObject({ status: 404, code: 6010 });
      expect((await query('getCompany', { id: 'nope' })).body.code).toBe(6010);
      const none = await query('getCompany', {});
      expect([none.status, none.body.code]).toEqual([400, 6019]);
      expect((await query('getCompany', { id: c.id }, t.member)).status).toBe(403);
      // a bad body is refused as a bad query is: the class's 6019, naming the field
      const extra = await call('getCompany', { id: c.id, name: 'x' });
      expect([extra.status, extra.body.code, extra.body.details.errors[0].field]).toEqual([400, 6019, 'name']);
      const extraQuery = await query('getCompany', { id: c.id, name: 'x' });
      expect([extraQuery.status, extraQuery.body.code]).toEqual([400, 6019]);
    });
  });

  describe('listCompanies', () => {
    test('reads the document store: status, company group, search, pagination; bad parameters are 400', async () => {
      const made = [
        await activeCompany({ name: 'Zeta Widgets', companyGroupId: S.externalGroup }),
        await activeCompany({ name: 'Zeta Gadgets', companyGroupId: S.externalGroup }),
        await activeCompany({ name: 'Zeta Tools', hrContact: { name: 'Zed', email: 'zed@tools.test' } }),
      ];
      await waitFor(async () => (await query('listCompanies', { search: 'zeta' })).body.totalCount === 3, {
        what: 'three zetas listed',
      });
      const external = await query('listCompanies', { companyGroupId: S.externalGroup, search: 'ZETA' }, t.clerk);
      expect(external.body.items.map((c: { name: string }) => c.name)).toEqual(['Zeta Gadgets', 'Zeta Widgets']);
      expect(external.body.items[0]._id).toBeUndefined();
      expect(external.body.items[0].nameKey).toBeUndefined();
      const page = await call('listCompanies', { search: 'zeta', limit: 2, page: 2 });
      expect(page.body).toMatchObject({ totalCount: 3, page: 2, limit: 2, totalPages: 2 });
      expect(page.body.items.map((c: { id: string }) => c.id)).toEqual([made[0].id]); // by name: Gadgets, Tools | Widgets
      expect(
        (await query('listCompanies', { search: 'zed@tools' })).body.items.map((c: { id: string }) => c.id),
      ).toEqual([made[2].id]);
      const pending = await query('listCompanies', { status: 'inactive', limit: 100 });
      expect(pending.body.items.length).toBeGreaterThan(0);
      expect(pending.body.items.every((c: { status: string }) => c.status === 'inactive')).toBe(true);
      const byClass = await t.rt.call(
        'Company',
        'listCompanies',
        'default',
        { search: 'zeta' },
        { identity: MEMBER_CLASS, origin: 'class' },
      );
      expect((byClass.body as { totalCount: number }).totalCount).toBe(3);

      for (const [q, field] of [
        [{ page: 0 }, 'page'],
        [{ limit: 101 }, 'limit'],
        [{ status: 'closed' }, 'status'],
        [{ group: 'x' }, 'group'],
      ] as const) {
        const r = await query('listCompanies', q);
        expect([r.status, r.body.code, r.body.details.errors[0].field]).toEqual([400, 6019, field]);
      }
      expect((await query('listCompanies', {}, t.member)).status).toBe(403);
    });
  });

  describe('company users (program management users of type company)', () => {
    test('see and update only their own company; create none; a token with a malformed company is refused', async () => {
      const own = await activeCompany({ name: 'Own Co' });
      const other = await activeCompany({ name: 'Other Co' });
      const cu = bearer(t, 'cu1', ['companyAdmin'], { userType: 'company', tenant: own.id });
      expect((await query('getCompany', { id: own.id }, cu)).body.id).toBe(own.id);
      expect((await query('getCompany', { bgId: own.bgId }, cu)).body.id).toBe(own.id);
      for (const q of [{ id: other.id as string }, { bgId: other.bgId as string }, { id: 'no-such-company' }] as Record<
        string,
        string
      >[]) {
        const r = await query('getCompany', q, cu);
        expect([r.status, r.body.code]).toEqual([403, 6018]);
      }
      await waitFor(async () => (await companyDoc(other.id)) !== null);
      const list = await query('listCompanies', { limit: 100 }, cu);
      expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([own.id]);
      expect((await query('listCompanies', { search: 'Other Co' }, cu)).body.totalCount).toBe(0);

      expect((await call('updateCompany', { id: own.id, description: 'ours' }, cu)).body.company.description).toBe(
        'ours',
      );
      const foreign = await call('updateCompany', { id: other.id, description: 'theirs' }, cu);
      expect([foreign.status, foreign.body.code]).toEqual([403, 6018]);
      const create = await call('createCompany', companyBody(), cu); // the role grants it; the class refuses company users
      expect([create.status, create.body.code]).toEqual([403, 6018]);
      const status = await call('updateCompanyStatus', { id: own.id, status: 'inactive' }, cu); // not in the role
      expect([status.status, status.body.code]).toEqual([403, 1008]);

      // a token whose company (tenant claim) is empty or not a string is no session at all: it must not widen to every company
      for (const tenant of ['', 42, null]) {
        const homeless = bearer(t, 'cu2', ['companyAdmin'], { userType: 'company', tenant });
        expect((await query('listCompanies', {}, homeless)).status).toBe(401);
      }
    });
  });

  describe('streamCompany and approveCompany', () => {
    test('streamCompany queues a re-projection of the company; the clerk and members are refused', async () => {
      const c = await activeCompany();
      await waitFor(async () => (await companyDoc(c.id)) !== null);
      await t.rt.documents.drop('companies');
      expect(await companyDoc(c.id)).toBeNull();
      expect((await query('streamCompany', { id: c.id }, t.clerk)).status).toBe(403);
      expect((await query('streamCompany', { id: c.id }, t.member)).status).toBe(403);
      const r = await query('streamCompany', { id: c.id });
      expect(r.status).toBe(202);
      expect(r.body).toEqual({ id: c.id, queued: true, jobId: expect.any(String), collection: 'companies' });
      const doc = await waitFor(() => companyDoc(c.id), { what: 'company re-streamed' });
      expect(doc).toMatchObject({ id: c.id, status: 'active', bgId: c.bgId });
      expect((await query('streamCompany', { id: 'nope' })).body.code).toBe(6010);
      expect((await call('restreamCompany', { id: c.id })).status).toBe(403); // its write is for the class itself
    });

    test('approveCompany is for ApprovalManager only; an approval not awaited is refused', async () => {
      const c = await activeCompany();
      const body = {
        approvalId: 'x',
        action: 'approve',
        event: 'update_company_status',
        entityId: c.id,
        jsonPatch: [],
      };
      expect((await call('approveCompany', body)).status).toBe(403);
      expect((await call('approveCompany', body, t.clerk)).status).toBe(403);
      const queued = await t.rt.call('Company', 'approveCompany', 'default', body, {
        identity: { type: 'class', classId: 'ApprovalManager', instanceId: 'x' },
        origin: 'class',
      });
      const jobId = (queued.body as { jobId: string }).jobId;
      const outcome = await waitFor(
        async () => {
          const { status } = await t.rt.jobs.status(jobId);
          return status.status === 'failed' ? status : undefined;
        },
        { what: 'refused callback' },
      );
      expect(outcome!.error).toMatchObject({ status: 409, body: { code: 6016 } });
    });

    test('an approved change that no longer fits (patch conflict, bgId taken) is not applied: 6017, and the company stops waiting', async () => {
      const AM: Identity = { type: 'class', classId: 'ApprovalManager', instanceId: 'x' };
      const settle = async (body: Record<string, unknown>) => {
        const queued = await t.rt.call('Company', 'approveCompany', 'default', body, { identity: AM, origin: 'class' });
        const jobId = (queued.body as { jobId: string }).jobId;
        return waitFor(
          async () => {
            const { status } = await t.rt.jobs.status(jobId);
            return status.status === 'completed' || status.status === 'failed' ? status : undefined;
          },
          { what: `callback job ${jobId}` },
        );
      };
      const other = await activeCompany();
      for (const jsonPatch of [
        [{ op: 'replace', path: '/nothing/here', value: 1 }],
        [
          { op: 'replace', path: '/status', value: 'active' },
          { op: 'replace', path: '/bgId', value: other.bgId },
        ],
      ]) {
        const pending = (await call('createCompany', companyBody())).body;
        const body = {
          approvalId: pending.approval.id,
          action: 'approve',
          event: 'company_create',
          entityId: pending.company.id,
          jsonPatch,
        };
        const done = await settle(body);
        expect(done).toMatchObject({
          status: 'completed',
          result: { body: { applied: false, code: 6017, company: { status: 'pending', pendingApprovalId: null } } },
        });
        const after = (await query('getCompany', { id: pending.company.id })).body;
        expect(after).toMatchObject({ status: 'pending', pendingApprovalId: null, bgId: pending.company.bgId });
        // settled once: the same callback again is not awaited any more
        expect(await settle(body)).toMatchObject({ status: 'failed', error: { status: 409, body: { code: 6016 } } });
      }
    });
  });

  describe('status machine (spec 3.3) through the workflow', () => {
    type Start = 'pending' | 'active' | 'inactive';
    const cases: [Start, string, 'approve' | 'reject' | '-', number, number | null, string][] = [
      ['pending', 'active', '-', 409, 6015, 'pending'],
      ['pending', 'inactive', '-', 409, 6015, 'pending'],
      ['pending', 'closed', '-', 409, 6015, 'pending'],
      ['active', 'inactive', 'approve', 200, null, 'inactive'],
      ['active', 'inactive', 'reject', 200, null, 'active'],
      ['active', 'active', '-', 409, 6014, 'active'],
      ['active', 'pending', '-', 400, 6013, 'active'],
      ['active', 'closed', '-', 400, 6013, 'active'],
      ['inactive', 'active', 'approve', 200, null, 'active'],
      ['inactive', 'active', 'reject', 200, null, 'inactive'],
      ['inactive', 'inactive', '-', 409, 6014, 'inactive'],
      ['inactive', 'pending', '-', 400, 6013, 'inactive'],
    ];

    async function companyIn(status: Start): Promise<string> {
      if (status === 'pending') return (await call('createCompany', companyBody())).body.company.id;
      const c = await activeCompany();
      if (status === 'inactive')
        expect(
          (await asSystem('Company', 'updateCompanyStatus', { id: c.id, status: 'inactive' })).company.status,
        ).toBe('inactive');
      return c.id;
    }

    test.each(cases)(
      '%s → %s, review %s: HTTP %i (code %p), ends %s',
      async (start, target, action, status, code, final) => {
        const id = await companyIn(start);
        for (const headers of [t.clerk, t.member])
          expect((await call('updateCompanyStatus', { id, status: target }, headers)).status).toBe(403);
        const r = await call('updateCompanyStatus', { id, status: target });
        expect(r.status).toBe(status);
        if (code) {
          expect(r.body.code).toBe(code);
        } else {
          expect(r.body).toMatchObject({
            company: { status: start, pendingApprovalId: r.body.approval.id },
            approval: {
              event: 'update_company_status',
              approvalStatus: 'pending',
              approvalType: 'manual',
              entityNewStatus: target,
            },
            newStatus: target,
          });
          await t.review(
            r.body.approval.id,
            action as 'approve' | 'reject',
            async () => (await query('getCompany', { id })).body.pendingApprovalId === null,
          );
        }
        expect((await query('getCompany', { id })).body.status).toBe(final);
        await waitFor(async () => (await companyDoc(id))?.status === final, { what: `${id} streamed as ${final}` });
      },
    );
  });
});
