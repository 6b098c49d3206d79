/**
 * Audit of the Member operations of spec 4.5 (all but the sign-in flows),
 * the 3.1 status machine, the HR client and registration (4.4) and the seed
 * command, against the real Setting, Company, Tier and RoleManager classes
 * (CLASS_DIRS 'classes'). The program comes from `examples/seed.json` plus a
 * few more records, loaded through the seed code `npm run cli -- seed` runs.
 *
 * Each test names what it checks: access of every method, 400s with field and
 * reason for bad input (never a 500), answer shapes, lookups and the seed.
 *
 * Three runtimes: the audit's own, one whose HR system is slow and one with a
 * manual member_update rule. beforeAll starts the slow HR one first and sends
 * its slow registration at once: the ~28 s that registration waits on HR (a
 * 23 s lookup, then a member-id update held until the 30 s budget runs out)
 * pass while the other runtimes start and the other tests run, and its test
 * then checks the answer. The runtimes' starts (CPU-bound, on this process's
 * one thread) all come before the HR lookup answers, far from the 2 s the
 * lookup's budget leaves it.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { applySeed, type SeedDocument } from '../../classes/_platform/seed';
import { nextMemberStatus } from '../../classes/Member/status-machine';
import { MEMBER_STATUSES, SYSTEM_ONLY_STATUSES, type MemberStatus } from '../../classes/Member/types';
import { startTestRuntime, waitFor, type TestRuntime, seedRoles } from '../support/harness';
import { createMember as createMemberAsSystem, IMAGES, memberState, uniq } from './support';

let t: TestRuntime;
let p: string;
let pm: Record<string, string>;
let approver: Record<string, string>;

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE_SEED = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples/seed.json'), 'utf8')) as SeedDocument;

const bearer = (identity: string, userId: string, roles: string[] = [], claims: Record<string, unknown> = {}) => ({
  authorization: `Bearer ${t.rt.tokens.sign({ sub: userId, identity: identity as never, roles, ...claims })}`,
});

const systemCall = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
  t.rt.call(classId, method, instanceId, body);

/** tier dates around today, so that the tests do not expire */
const YEAR = new Date().getUTCFullYear();
const utc = (y: number, m: number) => new Date(Date.UTC(y, m - 1, 1)).toISOString();
const LIVE = { startDate: utc(YEAR - 1, 1), endDate: utc(YEAR + 4, 1) };
const FUTURE = { startDate: utc(YEAR + 1, 6), endDate: utc(YEAR + 2, 6) };

const PRIMARY_ID = '0b9f7c1e-6a55-4c3b-8d2e-3f1a2b3c4d01';
const DEPENDANT_ID = '0b9f7c1e-6a55-4c3b-8d2e-3f1a2b3c4d02';

/** what the audit adds to the example program: tiers of their own types, a second company, a seeded family */
const AUDIT_SEED: SeedDocument = {
  paymentPeriods: [
    { key: 'monthly', label: 'Monthly' },
    { key: 'quarterly', label: 'Quarterly' },
    { key: 'yearly', label: 'Yearly' },
  ],
  companyGroups: [{ id: 'cg-audit', name: 'Audit group', type: 'internal' }],
  memberTypes: [{ id: 'mt-audit', name: 'Audit staff', systemIdentifier: 'AuditStaff' }],
  memberSubTypes: [{ id: 'mst-audit-parent', name: 'Parent', hrmsMapping: ['parent'] }],
  tierTypes: [
    { id: 'tt-a-base', name: 'Audit base', tierGroup: 'base' },
    { id: 'tt-a-up', name: 'Audit upgrade', tierGroup: 'upgrade' },
    { id: 'tt-a-future', name: 'Audit future', tierGroup: 'base' },
    { id: 'tt-a-closed', name: 'Audit closed', tierGroup: 'base' },
    { id: 'tt-a-silver', name: 'Audit silver', tierGroup: 'base' },
  ],
  companies: [
    {
      id: 'audit-co',
      name: 'Audit Co',
      bgId: 'BG-AUDIT',
      companyGroupId: 'cg-audit',
      hrContact: { name: 'HR', email: 'hr@audit.example' },
      eligibleMemberTypes: ['mt-audit'],
      memberSubTypes: [{ memberSubTypeId: 'mst-audit-parent', maxDependants: 2 }],
      maxFreeDependants: 1,
    },
  ],
  tiers: [
    {
      id: 'a-gold',
      name: 'Gold',
      tierType: { id: 'tt-a-base' },
      fee: 25,
      ...LIVE,
      eligibilityRules: [
        {
          name: 'Permanent, card',
          paymentTypes: ['credit_card'],
          paymentPeriod: 'monthly',
          conditions: [{ key: 'member.memberType', logicalOperator: 'in', value: ['mt-permanent', 'mt-audit'] }],
        },
      ],
    },
    {
      id: 'a-boost',
      name: 'Boost',
      tierType: { id: 'tt-a-up' },
      fee: 5,
      ...LIVE,
      eligibilityRules: [
        {
          name: 'Everyone, card',
          paymentTypes: ['credit_card'],
          paymentPeriod: 'quarterly',
          conditions: [{ key: 'member.memberType', logicalOperator: 'in', value: ['mt-permanent', 'mt-temporary'] }],
        },
      ],
    },
    {
      id: 'a-silver',
      name: 'Silver',
      tierType: { id: 'tt-a-silver' },
      fee: 8,
      ...LIVE,
      eligibilityRules: [
        {
          name: 'Permanent, salary, quarterly',
          paymentTypes: ['salary_deduction'],
          paymentPeriod: 'quarterly',
          conditions: [{ key: 'member.memberType', logicalOperator: 'in', value: ['mt-permanent'] }],
        },
      ],
    },
    {
      id: 'a-future',
      name: 'Next year',
      tierType: { id: 'tt-a-future' },
      fee: 12,
      ...FUTURE,
      eligibilityRules: [
        {
          name: 'Permanent, card',
          paymentTypes: ['credit_card'],
          paymentPeriod: 'yearly',
          conditions: [{ key: 'member.memberType', logicalOperator: 'in', value: ['mt-permanent'] }],
        },
      ],
    },
    {
      id: 'a-closed',
      name: 'Closed',
      tierType: { id: 'tt-a-closed' },
      fee: 1,
      ...LIVE,
      eligibilityRules: [
        {
          name: 'Permanent, card',
          paymentTypes: ['credit_card'],
          paymentPeriod: 'monthly',
          conditions: [{ key: 'member.memberType', logicalOperator: 'in', value: ['mt-permanent'] }],
        },
      ],
    },
  ],
  members: [
    {
      id: PRIMARY_ID,
      staffId: 'AUD-1',
      name: 'Primo',
      surname: 'Audit',
      email: 'primo@audit.example',
      company: { id: 'audit-co' },
      memberType: 'mt-audit',
      loginMethod: 'email_password',
    },
    {
      id: DEPENDANT_ID,
      name: 'Dora',
      surname: 'Audit',
      company: { id: 'audit-co' },
      memberType: 'mt-audit',
      memberSubType: 'mst-audit-parent',
      primaryMemberId: PRIMARY_ID,
      relation: 'parent',
    },
  ],
};

let exampleOutcomes: Awaited<ReturnType<typeof applySeed>>;
let auditOutcomes: Awaited<ReturnType<typeof applySeed>>;

beforeAll(async () => {
  // first: the slow registration waits on the HR system while the rest is set up and tested
  await startSlowHrLeg();
  t = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' } });
  p = `/${t.projectId}/CALL/Member`;
  exampleOutcomes = await applySeed(EXAMPLE_SEED, systemCall, { concurrency: 4 });
  auditOutcomes = await applySeed(AUDIT_SEED, systemCall, { concurrency: 4 });
  await t.rt.call('Tier', 'updateStatus', 'a-closed', { status: 'inactive' });
  const roles = [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-approver',
      name: 'approver',
      level: 10,
      permissions: { ApprovalManager: ['getApproval', 'reviewApproval'] },
    },
    {
      id: 'r-docs',
      name: 'docs',
      level: 10,
      permissions: { Member: ['listDocuments', 'downloadDocument', 'uploadDocument'] },
    },
  ];
  await seedRoles(t, roles);
  pm = bearer('program_management_user', 'pm-audit', ['super']);
  approver = bearer('program_management_user', 'ann', ['approver']);
  await startStaffIdLeg();
}, 120_000);
afterAll(async () => {
  await Promise.all([t?.stop(), rt2?.stop(), rt3?.stop()]);
  await hr?.stop();
});

const call = (method: string, id: string, body: unknown = {}, headers = pm) =>
  t.post(`${p}/${method}/${id}`, body, headers);

/** a member of the example company `acme`, created as the system (auto-approved): pending_invite */
const member = (body: Record<string, unknown> = {}) =>
  createMemberAsSystem(t, { company: { id: 'acme' }, memberType: 'mt-permanent', ...body });

/** the `{field, reason}` pairs of a 400 answer (runtime validation or the class's own) */
function fieldsOf(body: any): string[] {
  const fields = ((body?.details?.errors ?? []) as { field: string; reason: string }[]).map((e) => {
    expect(typeof e.reason).toBe('string');
    expect(e.reason.length).toBeGreaterThan(0);
    return e.field;
  });
  return [...new Set(fields)];
}

// ---------------------------------------------------------------- seed

describe('seed (npm run cli -- seed): all six keys, system actor, nothing pending', () => {
  test('examples/seed.json loads completely: every record in it created, none failed', () => {
    expect(exampleOutcomes.filter((o) => o.result !== 'created')).toEqual([]);
    // one outcome per record of every list (the payment periods are Setting's configuration, not records)
    const { paymentPeriods: _periods, ...lists } = EXAMPLE_SEED as unknown as Record<string, unknown[]>;
    expect(exampleOutcomes).toHaveLength(Object.values(lists).reduce((n, v) => n + v.length, 0));
    expect(auditOutcomes.filter((o) => o.result !== 'created')).toEqual([]);
  });

  test('company by bgId, sub type by hrmsMapping, active tier, member lookups: what the curl commands of the README and docs/hr-integration.md rely on', async () => {
    expect((await t.rt.call('Company', 'getCompany', 'default', { bgId: 'BG-100' })).body).toMatchObject({
      id: 'acme',
      status: 'active',
    });
    expect(
      (await t.rt.call('Setting', 'findMemberSubTypeByHrmsMapping', 'default', { relation: 'son' })).body,
    ).toMatchObject({ id: 'mst-child' });
    // created and approved at once (its status is `active`, or `expired` once its end date has passed)
    expect((await t.rt.call('Tier', 'getTier', 'tier-base-2026', {})).body).toMatchObject({
      tier: { status: expect.stringMatching(/^(active|expired)$/) },
      pendingApproval: null,
    });
    expect((await t.rt.call('Tier', 'getTier', 'a-gold', {})).body).toMatchObject({
      tier: { status: 'active' },
      pendingApproval: null,
    });
    const seeded = await memberState(t, '8f0c3a52-5d8e-4f4e-9a55-0c1b2f3d4e01');
    expect(seeded.lookups).toEqual({ staffId: 'E1001', email: 'amal.haddad@acme.example' });
    expect(seeded.state.private).toMatchObject({ profile: { status: 'active', company: { id: 'acme' } } });
    expect(seeded.state.private.pendingChange ?? null).toBeNull();
  });

  test("a seeded dependant (primaryMemberId) is listed in its primary member's family", async () => {
    const primary = (await memberState(t, PRIMARY_ID)).state.private.profile;
    expect(primary.familyMembers).toEqual([
      expect.objectContaining({ id: DEPENDANT_ID, memberSubType: 'mst-audit-parent', relation: 'parent' }),
    ]);
    const deps = await t.get(`${p}/getMemberDependants/${PRIMARY_ID}`, pm);
    expect(deps.body.dependants.map((d: { id: string }) => d.id)).toEqual([DEPENDANT_ID]);
  });

  test('a dependant whose primary member does not exist is refused (the rest still goes in)', async () => {
    const out = await applySeed(
      {
        members: [
          {
            id: 'a3f6c3c2-1111-4c3b-8d2e-3f1a2b3c4d99',
            name: 'Orphan',
            surname: 'X',
            company: { id: 'audit-co' },
            memberType: 'mt-audit',
            primaryMemberId: 'no-such-member',
          },
        ],
      },
      systemCall,
    );
    expect(out).toEqual([expect.objectContaining({ kind: 'member', result: 'failed' })]);
  });

  test('running the seed again skips every record', async () => {
    const again = await applySeed(AUDIT_SEED, systemCall);
    expect(again.filter((o) => o.result !== 'skipped')).toEqual([]);
    const primary = (await memberState(t, PRIMARY_ID)).state.private.profile;
    expect(primary.familyMembers).toHaveLength(1);
  });
});

// ---------------------------------------------------------------- status machine

describe('status machine (3.1) as a pure function', () => {
  test('the four system-only statuses are refused from every status; the five others are settable from every status', () => {
    expect([...SYSTEM_ONLY_STATUSES].sort()).toEqual([
      'pending_id_photo',
      'pending_invitation_acceptance',
      'pending_invite',
      'pending_tier',
    ]);
    for (const from of MEMBER_STATUSES) {
      for (const target of MEMBER_STATUSES) {
        const r = nextMemberStatus(from, { type: 'updateMemberStatus', target });
        if ((SYSTEM_ONLY_STATUSES as readonly MemberStatus[]).includes(target))
          expect(r).toMatchObject({ ok: false, error: 'SYSTEM_ONLY_STATUS' });
        else expect(r).toMatchObject({ ok: true, to: target });
      }
    }
  });
});

// ---------------------------------------------------------------- access

/** Member methods of the issue and the identities they admit. */
const PM_READS = [
  'getMemberPersonal',
  'getMemberEmployment',
  'getMemberContact',
  'getMemberDependants',
  'listMemberships',
  'listDocuments',
  'downloadDocument',
  'downloadArchivedDocument',
];
const PM_WRITES = [
  'updateMemberPersonal',
  'updateMemberEmployment',
  'updateMemberContact',
  'addMemberFamilyMember',
  'updateMemberFamilyMember',
  'removeMemberFamilyMember',
  'addMembership',
  'uploadMemberIdPhoto',
  'updateMemberStatus',
  'streamMember',
  'uploadDocument',
  'archiveDocument',
  'unarchiveDocument',
];

describe('access: every method declares its identities; the wrong one gets 401/403', () => {
  test('every Member method declares access', () => {
    const cls = t.rt.registry.get('Member')!;
    for (const m of cls.methodsByName.values()) {
      expect([m.name, Array.isArray(m.options.access) && m.options.access.length > 0]).toEqual([m.name, true]);
    }
  });

  test('program management methods: 401 without credentials, 403 for enduser, integration_user and a role without the permission', async () => {
    const m = await member();
    const enduser = bearer('enduser', m.id);
    const api = { 'x-api-key': 'test-integration-key-0123456789' };
    const noRole = bearer('program_management_user', 'nobody', ['approver']);
    for (const method of [...PM_READS, ...PM_WRITES]) {
      expect([method, (await call(method, m.id, {}, {})).status]).toEqual([method, 401]);
      expect([method, (await call(method, m.id, {}, enduser)).status]).toEqual([method, 403]);
      expect([method, (await call(method, m.id, {}, api)).status]).toEqual([method, 403]);
      expect([method, (await call(method, m.id, {}, noRole)).status]).toEqual([method, 403]);
    }
    for (const method of ['listMembers', 'registerFromHr']) {
      expect((await t.post(`${p}/${method}`, {}, {})).status).toBe(401);
      expect((await t.post(`${p}/${method}`, {}, bearer('enduser', m.id))).status).toBe(403);
    }
  });

  test('member methods: getMemberProfile and uploadMyIdPhoto admit only the member itself', async () => {
    const m = await member();
    expect((await call('getMemberProfile', m.id, {}, {})).status).toBe(401);
    expect((await call('getMemberProfile', m.id, {}, pm)).status).toBe(403);
    expect((await call('getMemberProfile', m.id, {}, bearer('enduser', 'someone-else'))).body.code).toBe(5021);
    expect((await call('uploadMyIdPhoto', m.id, { photo: IMAGES.png, fileExtension: 'png' }, pm)).status).toBe(403);
  });

  test('approval callbacks and internal methods are not reachable over HTTP', async () => {
    const m = await member();
    for (const method of ['approveMember', 'approveMemberIdPhoto']) {
      expect((await call(method, m.id, { approvalId: 'x', action: 'approve' })).status).toBe(403);
    }
    for (const method of [
      'seedMember',
      'createFamilyMember',
      'applyFamilyMemberUpdate',
      'detachFamilyMember',
      'linkFamilyMember',
      'hrApplyEmployee',
    ]) {
      const r = await call(method, m.id, {});
      expect([method, r.status >= 400 && r.status < 500]).toEqual([method, true]);
    }
  });
});

// ---------------------------------------------------------------- bad input: 400 with field and reason, never 500

describe('bad input answers 400 with field and reason (never 500)', () => {
  test('no method answers 500 to odd bodies', async () => {
    const m = await member();
    const odd: unknown[] = [
      [],
      [1, 2],
      'text',
      42,
      null,
      { page: 'x' },
      { status: { $ne: null } },
      { search: 5 },
      { documentId: 5 },
      { tierId: ['a'] },
    ];
    for (const method of [...PM_READS, ...PM_WRITES]) {
      for (const body of odd) {
        const r = await call(method, m.id, body);
        expect([method, JSON.stringify(body), r.status < 500]).toEqual([method, JSON.stringify(body), true]);
      }
    }
    for (const body of odd) {
      const r = await t.post(`${p}/listMembers`, body, pm);
      expect(['listMembers', JSON.stringify(body), r.status < 500]).toEqual([
        'listMembers',
        JSON.stringify(body),
        true,
      ]);
    }
  });

  test('listMembers: a non-string search, an array search, query operators, unknown statuses and unknown filters are 400s', async () => {
    const cases: [string, unknown, string][] = [
      ['body search number', { search: 5 }, 'search'],
      ['body status operator', { status: { $ne: 'x' } }, 'status'],
      ['body companyId operator', { companyId: { $regex: '.*' } }, 'companyId'],
      ['body primaryMemberId operator', { primaryMemberId: { $ne: null } }, 'primaryMemberId'],
      ['body membershipStatus unknown', { membershipStatus: 'gone' }, 'membershipStatus'],
      ['body status unknown', { status: 'sleeping' }, 'status'],
      ['body unknown filter', { colour: 'red' }, 'colour'],
      ['body primaryOnly not a boolean', { primaryOnly: 'maybe' }, 'primaryOnly'],
    ];
    for (const [name, body, field] of cases) {
      const r = await t.post(`${p}/listMembers`, body, pm);
      expect([name, r.status, r.body.code]).toEqual([name, 400, 5005]);
      expect([name, fieldsOf(r.body)]).toEqual([name, [field]]);
    }
    const q = await t.get(`${p}/listMembers?search=a&search=b`, pm);
    expect([q.status, fieldsOf(q.body)]).toEqual([400, ['search']]);
    const s = await t.get(`${p}/listMembers?status=sleeping`, pm);
    expect([s.status, fieldsOf(s.body)]).toEqual([400, ['status']]);
    expect(s.body.details.errors[0].reason).toContain('pending_invite');
  });

  test('listMembers: primaryOnly=false in a query does not filter; primaryOnly=true does', async () => {
    const tag = uniq('po').toLowerCase();
    const m = await member({ name: `Prim${tag}` });
    const dep = await call('addMemberFamilyMember', m.id, {
      name: `Kid${tag}`,
      surname: 'X',
      memberSubType: 'mst-child',
    });
    expect(dep.status).toBe(200);
    await waitFor(async () => (await t.rt.documents.get('members', dep.body.familyMember.id)) !== null, {
      what: 'projection',
    });
    expect((await t.get(`${p}/listMembers?search=${tag}&primaryOnly=false`, pm)).body.totalCount).toBe(2);
    expect((await t.get(`${p}/listMembers?search=${tag}&primaryOnly=true`, pm)).body.totalCount).toBe(1);
    expect((await t.post(`${p}/listMembers`, { search: tag, primaryOnly: true }, pm)).body.totalCount).toBe(1);
  });

  test('listMemberships: unknown status or tier group, non-string tier id, unknown filter: 400 with the field', async () => {
    const m = await member();
    const cases: [string, string][] = [
      ['status=gone', 'status'],
      ['tierGroup=premium', 'tierGroup'],
      ['colour=red', 'colour'],
      ['limit=0', 'limit'],
    ];
    for (const [query, field] of cases) {
      const r = await t.get(`${p}/listMemberships/${m.id}?${query}`, pm);
      expect([query, r.status, r.body.code, fieldsOf(r.body)]).toEqual([query, 400, 5005, [field]]);
    }
    const r = await call('listMemberships', m.id, { tierId: 5 });
    expect([r.status, fieldsOf(r.body)]).toEqual([400, ['tierId']]);
  });

  test('listDocuments: an unknown status is a 400 (it used to list every document)', async () => {
    const m = await member();
    await call('uploadDocument', m.id, { content: IMAGES.png, mimeType: 'image/png', originalFilename: 'a.png' });
    const r = await t.get(`${p}/listDocuments/${m.id}?status=deleted`, pm);
    expect([r.status, r.body.code, fieldsOf(r.body)]).toEqual([400, 5005, ['status']]);
  });

  test('document operations without a documentId: 400 on documentId, not 404', async () => {
    const m = await member();
    for (const method of ['downloadDocument', 'downloadArchivedDocument', 'archiveDocument', 'unarchiveDocument']) {
      const r = await call(method, m.id, {});
      expect([method, r.status, fieldsOf(r.body)]).toEqual([method, 400, ['documentId']]);
    }
    const g = await t.get(`${p}/downloadDocument/${m.id}`, pm);
    expect([g.status, fieldsOf(g.body)]).toEqual([400, ['documentId']]);
  });

  test("the class's own 400s name the field: status, member type and sub type, photo extension, company, tier, payment type", async () => {
    const m = await member();
    const expect400 = async (method: string, body: unknown, field: string) => {
      const r = await call(method, m.id, body);
      expect([method, JSON.stringify(body), r.status, fieldsOf(r.body)]).toEqual([
        method,
        JSON.stringify(body),
        400,
        [field],
      ]);
    };
    await expect400('updateMemberStatus', { status: 'pending_tier' }, 'status');
    await expect400('updateMemberStatus', { status: 'gone' }, 'status');
    await expect400('updateMemberPersonal', { memberType: 'mt-audit' }, 'memberType');
    await expect400('updateMemberPersonal', { memberType: 'mt-none' }, 'memberType');
    await expect400('updateMemberPersonal', { memberSubType: 'mst-none' }, 'memberSubType');
    await expect400('updateMemberEmployment', { company: { id: 'audit-co' } }, 'company.id');
    await expect400('uploadMemberIdPhoto', { photo: IMAGES.png, fileExtension: 'tiff' }, 'fileExtension');
    await expect400('uploadMemberIdPhoto', { photo: IMAGES.png, fileExtension: 'jpg' }, 'photo');
    await expect400('addMembership', { tierId: 'a-closed', paymentType: 'cpg' }, 'tierId');
    await expect400('addMembership', { tierId: 'a-gold', paymentType: 'dds' }, 'paymentType');
    await expect400('addMembership', { tierId: 'a-boost', paymentType: 'company_paid' }, 'paymentType');
    await expect400(
      'addMemberFamilyMember',
      { name: 'P', surname: 'Q', memberSubType: 'mst-audit-parent' },
      'memberSubType',
    );
    await expect400(
      'uploadDocument',
      { content: IMAGES.png, mimeType: 'application/pdf', originalFilename: 'x.pdf' },
      'content',
    );
  });

  test('updateMemberPersonal: an empty member sub type is refused, null clears it', async () => {
    const m = await member({ memberSubType: null });
    const r = await call('updateMemberPersonal', m.id, { memberSubType: '' });
    expect([r.status, fieldsOf(r.body)]).toEqual([400, ['memberSubType']]);
    expect((await memberState(t, m.id)).state.private.profile.memberSubType).toBeNull();
    expect((await call('updateMemberPersonal', m.id, { memberSubType: null })).status).toBe(200);
    const created = await t.post(
      `${p}/createMember`,
      { name: 'A', surname: 'B', company: { id: 'acme' }, memberType: 'mt-permanent', memberSubType: '' },
      pm,
    );
    expect([created.status, fieldsOf(created.body)]).toEqual([400, ['memberSubType']]);
  });
});

// ---------------------------------------------------------------- documents

describe('documents (spec 2.1, 4.5, 8)', () => {
  test('only images and documents: a JSON file is not a member document', async () => {
    const m = await member();
    const json = Buffer.from('{"a":1}').toString('base64');
    const r = await call('uploadDocument', m.id, {
      content: json,
      mimeType: 'application/json',
      originalFilename: 'a.json',
    });
    expect([r.status, r.body.code, fieldsOf(r.body)]).toEqual([400, 5027, ['mimeType']]);
    const ext = await call('uploadDocument', m.id, { content: IMAGES.png, mimeType: 'png', originalFilename: 'a.png' });
    expect([ext.status, fieldsOf(ext.body)]).toEqual([400, ['mimeType']]);
    expect((await memberState(t, m.id)).state.private.documents).toEqual([]);
  });

  test('every allowed type is accepted (pdf, txt, csv, images), newest first, listing shape', async () => {
    const m = await member();
    const files = [
      {
        content: Buffer.from('%PDF-1.4\n%x\n').toString('base64'),
        mimeType: 'application/pdf',
        originalFilename: 'a.pdf',
        label: 'Contract',
      },
      { content: Buffer.from('hello').toString('base64'), mimeType: 'text/plain', originalFilename: 'b.txt' },
      { content: Buffer.from('a,b\n1,2\n').toString('base64'), mimeType: 'text/csv', originalFilename: 'c.csv' },
      { content: IMAGES.jpg, mimeType: 'image/jpeg', originalFilename: 'd.jpg' },
    ];
    const ids: string[] = [];
    for (const f of files) {
      const r = await call('uploadDocument', m.id, f);
      expect([f.mimeType, r.status]).toEqual([f.mimeType, 200]);
      ids.push(r.body.documentId);
    }
    const list = await t.get(`${p}/listDocuments/${m.id}?limit=3`, pm);
    expect(Object.keys(list.body).sort()).toEqual(['documents', 'limit', 'page', 'totalCount', 'totalPages']);
    expect(list.body).toMatchObject({ totalCount: 4, page: 1, limit: 3, totalPages: 2 });
    expect(list.body.documents.map((d: { id: string }) => d.id)).toEqual([ids[3], ids[2], ids[1]]);
    for (const d of list.body.documents) expect(d).toMatchObject({ status: 'active', isArchived: false, label: null });
    const page2 = await t.get(`${p}/listDocuments/${m.id}?limit=3&page=2`, pm);
    expect(page2.body.documents).toEqual([expect.objectContaining({ id: ids[0], label: 'Contract' })]);
  });
});

// ---------------------------------------------------------------- memberships

describe('memberships (4.5 addMembership, listMemberships)', () => {
  test('a tier that has not started yet: the membership starts with the tier, and a start before it is refused', async () => {
    const m = await member();
    const early = await call('addMembership', m.id, {
      tierId: 'a-future',
      paymentType: 'cpg',
      startDate: utc(YEAR + 1, 5),
    });
    expect([early.status, fieldsOf(early.body)]).toEqual([400, ['startDate']]);
    const late = await call('addMembership', m.id, {
      tierId: 'a-future',
      paymentType: 'cpg',
      startDate: FUTURE.endDate,
    });
    expect([late.status, fieldsOf(late.body)]).toEqual([400, ['startDate']]);
    const r = await call('addMembership', m.id, { tierId: 'a-future', paymentType: 'cpg' });
    expect(r.status).toBe(200);
    expect(r.body.membership).toMatchObject({
      startDate: FUTURE.startDate,
      endDate: FUTURE.endDate,
      paymentPeriod: 'yearly',
    });
    expect(r.body.membership.paymentSchedule).toEqual([{ dueDate: FUTURE.startDate, amount: 12 }]);
  });

  test('against the real Tier class: eligibility, payment types, period, schedule; listMemberships enriched (name, type, fee) with its shape', async () => {
    const m = await member();
    const ne = await call('addMembership', m.id, { tierId: 'a-gold', paymentType: 'cpg' });
    expect(ne.status).toBe(200);
    expect(ne.body.membership).toMatchObject({
      tierId: 'a-gold',
      tierGroup: 'base',
      paymentType: 'cpg',
      paymentPeriod: 'monthly',
    });
    expect(ne.body.membership.paymentSchedule).toHaveLength(12);
    const dds = await call('addMembership', m.id, { tierId: 'a-silver', paymentType: 'dds' });
    expect(dds.status).toBe(200);
    expect(dds.body.membership).toMatchObject({ paymentPeriod: 'quarterly', tierGroup: 'base' });
    expect(dds.body.membership.paymentSchedule).toHaveLength(4);
    const temp = await member({ memberType: 'mt-temporary' });
    const refused = await call('addMembership', temp.id, { tierId: 'a-gold', paymentType: 'cpg' });
    expect([refused.status, refused.body.code]).toEqual([400, 5014]);

    const list = await t.get(`${p}/listMemberships/${m.id}`, pm);
    expect(Object.keys(list.body).sort()).toEqual(['limit', 'memberships', 'page', 'totalCount', 'totalPages']);
    expect(list.body).toMatchObject({ totalCount: 2, page: 1, limit: 10, totalPages: 1 });
    const gold = list.body.memberships.find((x: { tierId: string }) => x.tierId === 'a-gold');
    expect(gold).toMatchObject({ tierName: 'Gold', tierType: { id: 'tt-a-base', group: 'base' }, fee: 25 });
    expect(
      (await t.get(`${p}/listMemberships/${m.id}?tierGroup=base&status=active&tierId=a-gold`, pm)).body.totalCount,
    ).toBe(1);
  });
});

// ---------------------------------------------------------------- photos, profile, lookups

describe('photos, profile and lookup keys', () => {
  test('uploadMyIdPhoto: refused in every status but active and pending_id_photo', async () => {
    for (const status of MEMBER_STATUSES) {
      // a member in `status` straight from a seed record (the test is about the gate, not the moves)
      const m = { id: randomUUID() };
      await t.rt.call('Member', 'seedMember', m.id, {
        name: 'N',
        surname: 'S',
        company: { id: 'acme' },
        memberType: 'mt-permanent',
        loginMethod: 'sso',
        status,
      });
      const r = await call(
        'uploadMyIdPhoto',
        m.id,
        { photo: IMAGES.png, fileExtension: 'png' },
        bearer('enduser', m.id),
      );
      const allowed = status === 'active' || status === 'pending_id_photo';
      expect([status, r.status, allowed ? undefined : r.body.code]).toEqual([
        status,
        allowed ? 200 : 403,
        allowed ? undefined : 5017,
      ]);
    }
  });

  test('getMemberPersonal and getMemberProfile: old and new photo URLs of a waiting replacement', async () => {
    const m = await member({ loginMethod: 'sso' });
    // first photo approved at once by the system actor
    await t.rt.call('Member', 'uploadMemberIdPhoto', m.id, { photo: IMAGES.png, fileExtension: 'png' });
    const first = (await memberState(t, m.id)).state.private.profile.idPhoto;
    expect(first).toEqual(expect.stringMatching(/\.png$/));
    const up = await call('uploadMemberIdPhoto', m.id, { photo: IMAGES.gif, fileExtension: 'gif' });
    expect(up.body).toMatchObject({ approved: false, approvalId: expect.any(String) });

    const personal = await t.get(`${p}/getMemberPersonal/${m.id}`, pm);
    expect(personal.body.idPhoto).toMatchObject({
      filename: first,
      token: expect.any(String),
      url: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(personal.body.pendingApproval).toMatchObject({
      approvalId: up.body.approvalId,
      oldPhoto: { filename: first, url: expect.any(String) },
      newPhoto: { filename: expect.stringMatching(/\.gif$/), url: expect.any(String) },
    });
    expect((await t.get(personal.body.pendingApproval.oldPhoto.url)).headers.get('content-type')).toBe('image/png');

    const profile = await t.get(`${p}/getMemberProfile/${m.id}`, bearer('enduser', m.id));
    expect(profile.body).toMatchObject({
      name: 'Ada',
      email: m.email,
      phone: '+100000',
      company: { id: 'acme' },
      status: 'pending_tier',
      hasWaitingApproval: true,
      approval: { oldPhoto: { url: expect.any(String) }, newPhoto: { url: expect.any(String) } },
    });

    // the approver approves: the new photo replaces the old one and nothing waits any more
    const r = await t.post(
      `/${t.projectId}/CALL/ApprovalManager/reviewApproval/${up.body.approvalId}`,
      { action: 'approve' },
      approver,
    );
    expect(r.status).toBe(200);
    await waitFor(async () => /\.gif$/.test((await memberState(t, m.id)).state.private.profile.idPhoto), {
      what: 'photo approval',
    });
    const after = await t.get(`${p}/getMemberProfile/${m.id}`, bearer('enduser', m.id));
    expect(after.body).toMatchObject({ hasWaitingApproval: false, approval: null });
  });

  test("the email lookup follows a dependant's email change (updateMemberFamilyMember)", async () => {
    const m = await member();
    const mail = `${uniq('kid').toLowerCase()}@example.com`;
    const dep = await call('addMemberFamilyMember', m.id, {
      name: 'Kid',
      surname: 'X',
      memberSubType: 'mst-child',
      email: mail,
    });
    const id = dep.body.familyMember.id;
    expect(await t.rt.store.resolveLookup('Member', 'email', mail)).toBe(id);
    const next = `${uniq('kid').toLowerCase()}@example.com`;
    expect(
      (await call('updateMemberFamilyMember', m.id, { familyMemberId: id, email: next.toUpperCase() })).body
        .updatedFields,
    ).toEqual(['email']);
    expect(await t.rt.store.resolveLookup('Member', 'email', next)).toBe(id);
    expect(await t.rt.store.resolveLookup('Member', 'email', mail)).toBeUndefined();
    // reachable by the new lookup
    expect((await t.get(`${p}/getMemberContact/email!${next}`, pm)).body.id).toBe(id);
    // another member's email is refused
    const other = await member();
    const taken = await call('updateMemberFamilyMember', m.id, { familyMemberId: id, email: other.email });
    expect([taken.status, taken.body.code]).toEqual([409, 5022]);
  });
});

// ---------------------------------------------------------------- HR registration within its time budget

/**
 * An HR system (spec 4.4) whose lookup of an employee answers after that
 * employee's delay, and whose member-id update of a `held` employee does not
 * answer until the server stops (later updates are recorded at once).
 */
class SlowHr {
  readonly memberIds = new Map<string, string>();
  url = '';
  private server?: Server;
  private readonly employees = new Map<string, { record: Record<string, unknown>; delayMs: number }>();
  private readonly held = new Set<string>();
  private readonly pending: ServerResponse[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  employee(record: Record<string, unknown>, delayMs = 0, holdFirstMemberIdUpdate = false): this {
    this.employees.set(String(record.email).toLowerCase(), { record, delayMs });
    if (holdFirstMemberIdUpdate) this.held.add(String(record.employeeId));
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        const send = (status: number, payload: unknown) => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(payload));
        };
        if (req.url === '/employees/lookup') {
          const e = this.employees.get(String(body.email).toLowerCase());
          if (!e) return send(404, {});
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            send(200, e.record);
          }, e.delayMs);
          this.timers.add(timer);
        } else if (req.url === '/employees/member-id') {
          if (this.held.delete(String(body.employeeId))) this.pending.push(res);
          else {
            this.memberIds.set(body.employeeId, body.memberId);
            send(200, { success: true });
          }
        } else send(404, {});
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const res of this.pending) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const hrRecord = (employeeId: string, over: Record<string, unknown> = {}) => ({
  employeeId,
  birthdate: '1990-01-01',
  email: `${employeeId.toLowerCase()}@acme.example`,
  name: 'Slow',
  surname: 'Lane',
  phone: '+1',
  grade: 'G1',
  isCabinCrew: false,
  employmentType: 'Permanent',
  companyId: 'BG-100',
  status: 'active',
  lastStatusUpdatedAt: '2026-01-01',
  address: '1 Road',
  country: 'AE',
  dependants: [],
  ...over,
});

let hr: SlowHr;
let rt2: TestRuntime;
let hrToken: Record<string, string>;
/** the registration of E-SLOW, sent once rt2 is up (in beforeAll), answered some 28 s later */
let slowRegistration: Promise<{ status: number; body: any }>;

const registerWithSlowHr = (email: string) =>
  rt2.post(`/${rt2.projectId}/CALL/Member/registerFromHr`, { email }, hrToken);

/** The HR server and runtime of the registerFromHr tests, the example program seeded; sends the slow registration. */
async function startSlowHrLeg(): Promise<void> {
  hr = await new SlowHr()
    // the lookup answers after 23 s, and the member-id update does not answer: 30 s pass before it could
    .employee(hrRecord('E-SLOW'), 23_000, true)
    // an active member type the company does not admit
    .employee(hrRecord('E-CONTRACT', { employmentType: 'Contractor' }))
    // fields createMember cannot take
    .employee(hrRecord('E-LONG', { name: 'N'.repeat(300) }))
    .start();
  const rt = await startTestRuntime({
    env: {
      CLASS_DIRS: 'classes',
      SCHEMA_DIRS: 'schemas',
      HR_BASE_URL: hr.url,
      HR_TIMEOUT_MS: '60000',
      HR_RETRIES: '0',
      HR_RETRY_BASE_MS: '10',
    },
  });
  rt2 = rt;
  await seedRoles(rt, []); // the built-in super role
  hrToken = {
    authorization: `Bearer ${rt.rt.tokens.sign({ sub: 'pm', identity: 'program_management_user', roles: ['super'] })}`,
  };
  // the registration's first step is the HR lookup, answered in 23 s: the program it then needs (the
  // company, the member types) is seeded meanwhile, in a second or two
  slowRegistration = registerWithSlowHr('e-slow@acme.example');
  // awaited by its test; a failure before then is that test's, not an unhandled rejection
  slowRegistration.catch(() => undefined);
  const sys2 = (c: string, m: string, i: string | undefined, b: unknown) => rt.rt.call(c, m, i, b);
  await applySeed(EXAMPLE_SEED, sys2);
  expect(
    await applySeed(
      { memberTypes: [{ id: 'mt-contractor', name: 'Contractor', systemIdentifier: 'Contractor' }] },
      sys2,
    ),
  ).toEqual([expect.objectContaining({ result: 'created' })]);
}

describe('registerFromHr (4.4) against a local HR server', () => {
  test("a record the company cannot take is 422 5031 on the HR record's field, not a 400 on fields the caller never sent", async () => {
    const contract = await registerWithSlowHr('e-contract@acme.example');
    expect([contract.status, contract.body.code, fieldsOf(contract.body)]).toEqual([422, 5031, ['employmentType']]);
    const long = await registerWithSlowHr('e-long@acme.example');
    expect([long.status, long.body.code, fieldsOf(long.body)]).toEqual([422, 5031, ['name']]);
    expect(await rt2.rt.store.resolveLookup('Member', 'staffId', 'E-CONTRACT')).toBeUndefined();
    expect(await rt2.rt.store.resolveLookup('Member', 'staffId', 'E-LONG')).toBeUndefined();
  });

  test('a slow HR system: the member is created, and the member-id update that would pass the 30 s budget is queued instead', async () => {
    // sent in beforeAll (startSlowHrLeg)
    const r = await slowRegistration;
    expect([r.status, r.body.memberIdRecorded]).toEqual([201, false]);
    const id = r.body.member.id as string;
    expect(r.body.warnings).toEqual([expect.stringContaining('retried in the background')]);
    await waitFor(() => hr.memberIds.get('E-SLOW') === id, {
      what: 'member id recorded in the background',
      timeoutMs: 30_000,
    });
  }, 90_000);
});

// ---------------------------------------------------------------- approved changes whose lookup was taken meanwhile

/**
 * With a manual member_update rule, a staff id change waits for approval
 * without holding the staff id. When another member takes that staff id
 * meanwhile, approving the change cannot commit (the lookup key is taken): the
 * approval callback drops the change as it drops one that no longer fits, so
 * the member does not wait for ever (every back-office change would be
 * refused with 409 5003).
 */
let rt3: TestRuntime;

/** The runtime of the staff id test: the example program, and member_update changes waiting for an approver. */
async function startStaffIdLeg(): Promise<void> {
  const rt = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' } });
  rt3 = rt;
  await applySeed(EXAMPLE_SEED, (c, m, i, b) => rt.rt.call(c, m, i, b));
  const roles = [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-approver', name: 'approver', level: 10, permissions: { ApprovalManager: ['reviewApproval'] } },
  ];
  await seedRoles(rt, roles);
  const file = JSON.parse(fs.readFileSync(path.join(ROOT, 'workflow-configs/Member.json'), 'utf8')) as {
    classId: string;
    rules: Record<string, unknown>[];
  };
  const rules = file.rules.map((r) => (r.event === 'member_update' ? { ...r, approvers: ['approver'] } : r));
  await rt.rt.call('Workflow', 'updateWorkflowConfiguration', 'Member', { classId: 'Member', rules });
}

describe('approveMember: a staff id taken while the change waited', () => {
  test('the change is dropped and the member no longer waits', async () => {
    const as = (identity: string, userId: string, roles: string[]) => ({
      authorization: `Bearer ${rt3.rt.tokens.sign({ sub: userId, identity: identity as never, roles })}`,
    });
    const pm3 = as('program_management_user', 'pm', ['super']);
    const mp = `/${rt3.projectId}/CALL/Member`;
    const a = await createMemberAsSystem(rt3, { company: { id: 'acme' }, memberType: 'mt-permanent' });
    const wanted = uniq('S');
    const change = await rt3.post(`${mp}/updateMemberPersonal/${a.id}`, { staffId: wanted }, pm3);
    expect(change.body.pendingApprovalId).toEqual(expect.any(String));
    // another member takes the staff id meanwhile
    await createMemberAsSystem(rt3, { company: { id: 'acme' }, memberType: 'mt-permanent', staffId: wanted });
    const review = await rt3.post(
      `/${rt3.projectId}/CALL/ApprovalManager/reviewApproval/${change.body.pendingApprovalId}`,
      { action: 'approve' },
      as('program_management_user', 'ann', ['approver']),
    );
    expect(review.status).toBe(200);
    await waitFor(async () => ((await memberState(rt3, a.id)).state.private.pendingChange ?? null) === null, {
      what: 'the approval settled',
      timeoutMs: 30_000,
    });
    expect((await memberState(rt3, a.id)).state.private.profile.staffId).toBe(a.staffId);
  });
});
