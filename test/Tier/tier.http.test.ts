/**
 * Tier through HTTP (spec 2.3, 3.3, 4.5 Tier, 6): every operation with the
 * right and a wrong identity, the workflow and approvals, the audit log, the
 * streamed `tiers` collection and the overlap rule. Tier types and payment
 * periods come from the real Setting class (seeded through its operations).
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  auditEntries,
  bearer,
  freshTypeId,
  ruleBody,
  seedProgram,
  seedTierTypes,
  startTierRuntime,
  storeTierTypeGroup,
  tierBody,
  tierDocWhen,
  until,
  writeTierRoles,
} from './support';

let t: TestRuntime;
let p: string;
let superUser: Record<string, string>;
let approver: Record<string, string>;
let reader: Record<string, string>;
let editor: Record<string, string>;
let clerk: Record<string, string>;
let member: Record<string, string>;

beforeAll(async () => {
  t = await startTierRuntime();
  await writeTierRoles(t);
  p = `/${t.projectId}/CALL`;
  superUser = bearer(t, 'pm1', ['super']);
  approver = bearer(t, 'ann', ['approver']);
  reader = bearer(t, 'rita', ['reader']);
  editor = bearer(t, 'ed', ['editor']);
  clerk = bearer(t, 'cleo', ['clerk']);
  member = bearer(t, 'm1', [], 'enduser');
  await seedProgram(t, [{ id: 'inactive-type', status: 'inactive' }, { id: 'broken-type' }]);
  // Setting refuses a tier group other than base, upgrade, add_on: the broken one is stored settings data
  await storeTierTypeGroup(t, 'broken-type', 'gold');
});
afterAll(() => t.stop());

const call = (method: string, id: string | undefined, body: unknown, headers: Record<string, string>) =>
  t.post(`${p}/Tier/${method}${id ? `/${id}` : ''}`, body, headers);
const create = (body: Record<string, unknown>, headers = superUser, id?: string) =>
  call('createTier', id, body, headers);
const getTier = (id: string, headers = superUser) => t.get(`${p}/Tier/getTier/${id}`, headers);
const review = (approvalId: string, action: 'approve' | 'reject', headers = approver) =>
  t.post(`${p}/ApprovalManager/reviewApproval/${approvalId}`, { action }, headers);

/** a fresh, active tier type (the overlap rule is per tier type) */
async function newType(tierGroup: 'base' | 'upgrade' | 'add_on' = 'base'): Promise<string> {
  const id = freshTypeId();
  await seedTierTypes(t, [{ id, tierGroup }]);
  return id;
}

/** waits until the tier's approval callback has run (no pending approval left) */
async function settled(id: string) {
  return waitFor(
    async () => {
      const r = await getTier(id);
      return r.status === 200 && r.body.pendingApproval === null ? r.body.tier : undefined;
    },
    { what: `tier ${id} settled` },
  );
}

/** a tier created by the super user and approved by the approver */
async function activeTier(
  extra: Record<string, unknown> = {},
  typeId?: string,
): Promise<{ id: string; typeId: string }> {
  const tt = typeId ?? (await newType());
  const r = await create(tierBody(tt, extra));
  expect(r.status).toBe(201);
  expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
  const tier = await settled(r.body.tier.id);
  expect(tier.status).toBe('active');
  return { id: r.body.tier.id, typeId: tt };
}

/** a status change approved by the approver */
async function setStatus(id: string, status: string) {
  const r = await call('updateStatus', id, { status }, superUser);
  expect(r.status).toBe(200);
  expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
  const tier = await settled(id);
  expect(tier.status).toBe(status);
}

const expectForbidden = (r: { status: number; body: any }) => {
  expect(r.status).toBe(403);
  expect(r.body.code).toBe(1008);
};

describe('createTier (INIT, event tier_create)', () => {
  test('a super user creates a pending tier; the approver activates it; audit-logged and streamed', async () => {
    const tt = await newType('upgrade');
    const r = await create(tierBody(tt, { eligibilityRules: [ruleBody({ quota: 10 })] }));
    expect(r.status).toBe(201);
    const { tier, approval, pendingApproval } = r.body;
    expect(tier).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Gold',
      description: 'The gold tier',
      tierType: { id: tt, group: 'upgrade' },
      fee: 100,
      startDate: '2030-01-01T00:00:00.000Z',
      endDate: '2031-01-01T00:00:00.000Z',
      status: 'pending',
      createdBy: { id: 'pm1', type: 'program_management_user' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(tier.eligibilityRules).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Employees',
        paymentTypes: ['salary_deduction'],
        paymentPeriod: 'monthly',
        quota: 10,
        conditions: ruleBody().conditions,
        status: 'active',
      },
    ]);
    expect(approval).toMatchObject({
      event: 'tier_create',
      approvalStatus: 'pending',
      approvalType: 'manual',
      entityOldStatus: null,
      entityNewStatus: 'active',
      approvers: ['approver'],
    });
    expect(pendingApproval).toEqual({ id: approval.id, event: 'tier_create', requestedStatus: 'active' });
    expect(r.body.requestedTier).toMatchObject({ status: 'active', name: 'Gold' });

    const doc = await tierDocWhen(t, tier.id, (d) => d.pendingApprovalId === approval.id, 'pending tier streamed');
    expect(doc).toMatchObject({
      status: 'pending',
      tierType: { id: tt, group: 'upgrade' },
      pendingApproval: { requestedStatus: 'active' },
    });
    expect((await getTier(tier.id)).body).toMatchObject({
      tier: { status: 'pending' },
      pendingApproval: { id: approval.id },
    });

    // super users are no approvers (the rule names the role `approver`)
    expect((await review(approval.id, 'approve', superUser)).status).toBe(403);
    expect((await review(approval.id, 'approve')).status).toBe(200);
    await tierDocWhen(
      t,
      tier.id,
      (d) => d.status === 'active' && d.pendingApprovalId === null,
      'approved tier streamed',
    );
    expect((await getTier(tier.id)).body).toMatchObject({ tier: { status: 'active' }, pendingApproval: null });

    const entries = await until(async () => {
      const e = await auditEntries(t, tier.id);
      return e.length === 2 ? e : undefined;
    }, 'two audit entries');
    const [activation, creation] = entries;
    expect(creation).toMatchObject({
      classId: 'Tier',
      entityType: 'tier',
      entityId: tier.id,
      actor: { id: 'pm1', type: 'program_management_user' },
      additionalData: { event: 'tier_create', approvalId: approval.id },
    });
    expect(creation.fieldUpdates.map((f: { key: string }) => f.key)).toEqual(
      expect.arrayContaining(['name', 'status', 'tierType', 'eligibilityRules']),
    );
    expect(activation.additionalData).toMatchObject({
      event: 'tier_create',
      approvalId: approval.id,
      action: 'approve',
      reviewedBy: 'ann',
    });
    // the approved change is the reviewer's, and its application bumps updatedAt
    expect(activation.actor).toMatchObject({ id: 'ann', type: 'program_management_user' });
    const active = (await getTier(tier.id)).body.tier;
    expect(Date.parse(active.updatedAt)).toBeGreaterThan(Date.parse(tier.updatedAt));
    expect(activation.fieldUpdates).toEqual([
      { key: 'status', operation: 'replace', oldValue: '"pending"', newValue: '"active"' },
      {
        key: 'updatedAt',
        operation: 'replace',
        oldValue: JSON.stringify(tier.updatedAt),
        newValue: JSON.stringify(active.updatedAt),
      },
    ]);
  });

  test('the tier type is read from Setting: the tier keeps only its id and group, before and after approval', async () => {
    const tt = await newType('upgrade');
    const record = (await t.rt.call('Setting', 'getTierType', 'default', { id: tt })).body;
    expect(record).toMatchObject({
      id: tt,
      name: tt,
      tierGroup: 'upgrade',
      status: 'active',
      createdBy: { type: 'system' },
    });
    const r = await create(
      tierBody(tt, {
        eligibilityRules: [ruleBody({ paymentTypes: ['credit_card'], conditions: [], status: 'active' })],
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.tier.tierType).toEqual({ id: tt, group: 'upgrade' });
    expect(r.body.approval.id).toEqual(expect.any(String));
    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    const tier = await settled(r.body.tier.id);
    expect(tier.status).toBe('active');
    expect(tier.tierType).toEqual({ id: tt, group: 'upgrade' });
  });

  test('identities: an end user and level-10 users without createTier are refused; a level-10 user granted it creates', async () => {
    const tt = await newType();
    expect((await create(tierBody(tt), member)).status).toBe(403);
    expectForbidden(await create(tierBody(tt), clerk));
    expectForbidden(await create(tierBody(tt), reader));
    expect((await t.post(`${p}/Tier/createTier`, tierBody(tt))).status).toBe(401);
    const ok = await create(tierBody(tt), editor);
    expect(ok.status).toBe(201);
    expect(ok.body.tier.createdBy).toMatchObject({ id: 'ed' });
  });

  test('the path id is the tier id; a taken id is 409', async () => {
    const id = `tier-${Date.now()}`;
    const r = await create(tierBody(await newType()), superUser, id);
    expect(r.status).toBe(201);
    expect(r.body.tier.id).toBe(id);
    expect((await create(tierBody(await newType()), superUser, id)).status).toBe(409);
  });

  test('the system identity (seeds, CLI) is approved automatically: the tier is active at once', async () => {
    const r = await t.rt.call('Tier', 'createTier', undefined, tierBody(await newType()));
    const body = r.body as Record<string, any>;
    expect(body).toMatchObject({
      tier: { status: 'active', createdBy: { type: 'system' } },
      pendingApproval: null,
      approval: { approvalType: 'auto' },
    });
    await tierDocWhen(t, body.tier.id, (d) => d.status === 'active');
  });

  test.each([
    ['a missing name', (tt: string) => ({ ...tierBody(tt), name: undefined }), 'name'],
    ['a blank name', (tt: string) => tierBody(tt, { name: '   ' }), 'name'],
    ['a negative fee', (tt: string) => tierBody(tt, { fee: -1 }), 'fee'],
    ['a date that is no date', (tt: string) => tierBody(tt, { startDate: 'soon' }), 'startDate'],
    ['a date-time without zone', (tt: string) => tierBody(tt, { endDate: '2031-01-01T00:00:00' }), 'endDate'],
    [
      'a tier group given by the client',
      (tt: string) => tierBody(tt, { tierType: { id: tt, group: 'base' } }),
      'tierType.group',
    ],
    ['an unknown field', (tt: string) => tierBody(tt, { status: 'active' }), 'status'],
    [
      'a rule without payment types',
      (tt: string) => tierBody(tt, { eligibilityRules: [ruleBody({ paymentTypes: [] })] }),
      'eligibilityRules.0.paymentTypes',
    ],
    [
      'a rule with an unknown payment type',
      (tt: string) => tierBody(tt, { eligibilityRules: [ruleBody({ paymentTypes: ['cash'] })] }),
      'eligibilityRules.0.paymentTypes.0',
    ],
    [
      'an unknown operator',
      (tt: string) =>
        tierBody(tt, {
          eligibilityRules: [ruleBody({ conditions: [{ key: 'company.id', logicalOperator: 'like', value: 'x' }] })],
        }),
      'eligibilityRules.0.conditions.0.logicalOperator',
    ],
  ])('%s is a 400 with field details', async (_what, body, field) => {
    const r = await create(body(await newType()) as Record<string, unknown>);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(1002);
    expect(r.body.details.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  test.each([
    ['start after end', 400, 7000, () => ({ startDate: '2031-01-01', endDate: '2030-01-01' })],
    ['start equal to end', 400, 7000, () => ({ startDate: '2030-01-01T00:00:00Z', endDate: '2030-01-01' })],
    ['an impossible date', 400, 1002, () => ({ startDate: '2030-02-30' })],
    ['an unknown tier type', 400, 7001, () => ({ tierType: { id: 'no-such-type' } })],
    ['a tier type id that Setting cannot hold', 400, 7001, () => ({ tierType: { id: 'no such type' } })],
    ['an inactive tier type', 400, 7002, () => ({ tierType: { id: 'inactive-type' } })],
    ['a tier type with a broken group in the settings', 502, 7016, () => ({ tierType: { id: 'broken-type' } })],
    [
      'an unconfigured payment period',
      400,
      7012,
      () => ({ eligibilityRules: [ruleBody({ paymentPeriod: 'weekly' })] }),
    ],
    [
      'a condition on an unknown key',
      400,
      7011,
      () => ({
        eligibilityRules: [
          ruleBody({ conditions: [{ key: 'member.birthdate', logicalOperator: 'equal', value: 'x' }] }),
        ],
      }),
    ],
    [
      'a comparison on a string key',
      400,
      7011,
      () => ({
        eligibilityRules: [ruleBody({ conditions: [{ key: 'member.grade', logicalOperator: 'less_than', value: 5 }] })],
      }),
    ],
  ])('%s: %i %i, and no tier is created', async (_what, status, code, extra) => {
    const tt = await newType();
    const id = `bad-${code}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const r = await create(tierBody(tt, extra()), superUser, id);
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
    if (code !== 1002) expect(r.body.classId).toBe('Tier');
    expect((await getTier(id)).status).toBe(500);
  });

  test('condition problems name the rule and condition', async () => {
    const r = await create(
      tierBody(await newType(), {
        eligibilityRules: [
          ruleBody(),
          ruleBody({
            conditions: [
              ruleBody().conditions[0],
              { key: 'member.isCabinCrew', logicalOperator: 'equal', value: 'yes' },
            ],
          }),
        ],
      }),
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 7011,
      details: { errors: [{ field: 'eligibilityRules.1.conditions.1', reason: expect.stringContaining('boolean') }] },
    });
  });

  test('sourceTierId copies the active rules only, with new ids, before the given rules', async () => {
    const source = await activeTier({
      eligibilityRules: [ruleBody({ name: 'A' }), ruleBody({ name: 'B', quota: 3 }), ruleBody({ name: 'C' })],
    });
    const rules = (await getTier(source.id)).body.tier.eligibilityRules as { id: string; name: string }[];
    const b = rules.find((r) => r.name === 'B')!;
    expect((await call('deactivateEligibilityRule', source.id, { ruleId: b.id }, superUser)).status).toBe(200);

    const r = await create(
      tierBody(await newType(), { sourceTierId: source.id, eligibilityRules: [ruleBody({ name: 'Own' })] }),
    );
    expect(r.status).toBe(201);
    const copied = r.body.tier.eligibilityRules as { id: string; name: string; status: string }[];
    expect(copied.map((c) => c.name)).toEqual(['A', 'C', 'Own']);
    expect(copied.every((c) => c.status === 'active')).toBe(true);
    const sourceIds = new Set(rules.map((x) => x.id));
    expect(copied.some((c) => sourceIds.has(c.id))).toBe(false);
    expect(new Set(copied.map((c) => c.id)).size).toBe(3);
    expect(copied[0]).toMatchObject({ ...rules.find((x) => x.name === 'A'), id: copied[0].id });
    // the source is untouched
    expect((await getTier(source.id)).body.tier.eligibilityRules).toHaveLength(3);

    const missing = await create(tierBody(await newType(), { sourceTierId: 'no-such-tier' }));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 7004, classId: 'Tier' });
  });
});

describe('the overlap rule', () => {
  test('a live tier of the same type blocks an intersecting range (409 7003); touching ranges and other types do not', async () => {
    const a = await activeTier({ startDate: '2030-01-01', endDate: '2031-01-01' });
    const clash = await create(tierBody(a.typeId, { startDate: '2030-06-01', endDate: '2030-09-01' }));
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({
      code: 7003,
      classId: 'Tier',
      details: { tiers: [{ id: a.id, status: 'active', startDate: '2030-01-01T00:00:00.000Z' }] },
    });
    expect((await create(tierBody(await newType(), { startDate: '2030-06-01', endDate: '2030-09-01' }))).status).toBe(
      201,
    );

    // a pending tier (waiting for its creation approval) holds its range too
    const next = await create(tierBody(a.typeId, { startDate: '2031-01-01', endDate: '2032-01-01' }));
    expect(next.status).toBe(201);
    await tierDocWhen(t, next.body.tier.id, (d) => d.status === 'pending');
    const clash2 = await create(tierBody(a.typeId, { startDate: '2031-06-01', endDate: '2031-07-01' }));
    expect(clash2.status).toBe(409);
    expect(clash2.body.details.tiers.map((x: { id: string }) => x.id)).toEqual([next.body.tier.id]);

    // a rejected creation leaves the tier inactive, which frees the range
    expect((await review(next.body.approval.id, 'reject')).status).toBe(200);
    expect((await settled(next.body.tier.id)).status).toBe('inactive');
    await tierDocWhen(t, next.body.tier.id, (d) => d.status === 'inactive');
    const reused = await create(tierBody(a.typeId, { startDate: '2031-06-01', endDate: '2031-07-01' }));
    expect(reused.status).toBe(201);
    // ... and re-activating the rejected tier now clashes
    const back = await call('updateStatus', next.body.tier.id, { status: 'active' }, superUser);
    expect(back.status).toBe(409);
    expect(back.body.code).toBe(7003);
  });

  test('inactive tiers do not block; a pending re-activation does; date updates are checked', async () => {
    const a = await activeTier({ startDate: '2030-01-01', endDate: '2030-07-01' });
    await setStatus(a.id, 'inactive');
    await tierDocWhen(t, a.id, (d) => d.status === 'inactive');
    const b = await create(tierBody(a.typeId, { startDate: '2030-03-01', endDate: '2030-04-01' }));
    expect(b.status).toBe(201);
    await tierDocWhen(t, b.body.tier.id, () => true);
    expect((await call('updateStatus', a.id, { status: 'active' }, superUser)).body.code).toBe(7003);
    expect((await call('updateStatus', a.id, { status: 'pending' }, superUser)).body.code).toBe(7003);

    // moving b out of a's range lets a come back; while a's re-activation waits, it holds its range
    const moved = await call(
      'updateTier',
      b.body.tier.id,
      { startDate: '2030-07-01', endDate: '2030-08-01' },
      superUser,
    );
    expect(moved.status).toBe(409); // b waits for its creation approval
    expect(moved.body.code).toBe(7005);
    expect((await review(b.body.approval.id, 'approve')).status).toBe(200);
    await settled(b.body.tier.id);
    const moved2 = await call(
      'updateTier',
      b.body.tier.id,
      { startDate: '2030-07-01', endDate: '2030-08-01' },
      superUser,
    );
    expect(moved2.status).toBe(200);
    await tierDocWhen(t, b.body.tier.id, (d) => d.startDate === '2030-07-01T00:00:00.000Z');
    const reactivate = await call('updateStatus', a.id, { status: 'active' }, superUser);
    expect(reactivate.status).toBe(200);
    await tierDocWhen(t, a.id, (d) => d.pendingApproval?.requestedStatus === 'active');
    expect((await create(tierBody(a.typeId, { startDate: '2030-02-01', endDate: '2030-03-01' }))).body.code).toBe(7003);
    const intoA = await call('updateTier', b.body.tier.id, { startDate: '2030-06-01' }, superUser);
    expect(intoA.status).toBe(409);
    expect(intoA.body.code).toBe(7003);
  });
});

describe('updateTier (event tier_update, applied at once)', () => {
  test('a super user updates; the change is applied, audit-logged and streamed', async () => {
    const { id } = await activeTier();
    const r = await call(
      'updateTier',
      id,
      { name: 'Platinum', fee: 250.5, description: null, endDate: '2030-12-31T23:59:59+04:00' },
      superUser,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      tier: { name: 'Platinum', fee: 250.5, status: 'active', endDate: '2030-12-31T19:59:59.000Z' },
      pendingApproval: null,
      approval: { event: 'tier_update', approvalType: 'auto', approvalStatus: 'approved' },
    });
    expect(r.body.tier).not.toHaveProperty('description');
    await tierDocWhen(t, id, (d) => d.name === 'Platinum' && d.fee === 250.5 && !('description' in d));
    const entry = await until(
      async () => (await auditEntries(t, id)).find((e) => e.additionalData?.event === 'tier_update'),
      'tier_update audit entry',
    );
    expect(entry.fieldUpdates.map((f: { key: string }) => f.key).sort()).toEqual([
      'description',
      'endDate',
      'fee',
      'name',
      'updatedAt',
    ]);
    expect(entry.actor).toMatchObject({ id: 'pm1' });
  });

  test('wrong identities are refused; a granted level-10 user may', async () => {
    const { id } = await activeTier();
    expectForbidden(await call('updateTier', id, { name: 'X' }, reader));
    expectForbidden(await call('updateTier', id, { name: 'X' }, clerk));
    expect((await call('updateTier', id, { name: 'X' }, member)).status).toBe(403);
    expect((await call('updateTier', id, { name: 'X' }, editor)).status).toBe(200);
  });

  test('bad updates: nothing to change, bad dates, unknown fields, the tier type', async () => {
    const { id } = await activeTier();
    expect((await call('updateTier', id, { name: 'Gold' }, superUser)).body.code).toBe(7017);
    expect((await call('updateTier', id, {}, superUser)).body.code).toBe(1002);
    const bad = await call('updateTier', id, { startDate: '2031-06-01' }, superUser);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 7000, details: { errors: [{ field: 'endDate' }] } });
    expect((await call('updateTier', id, { tierType: { id: 'x' } }, superUser)).body.details.errors[0].field).toBe(
      'tierType',
    );
    expect((await call('updateTier', id, { fee: '10' }, superUser)).status).toBe(400);
    expect((await getTier(id)).body.tier).toMatchObject({ name: 'Gold', fee: 100 });
  });

  test('an unknown tier answers the unknown-instance 500 with a message only', async () => {
    const r = await call('updateTier', 'no-such-tier', { name: 'X' }, superUser);
    expect(r.status).toBe(500);
    expect(Object.keys(r.body)).toEqual(['message']);
  });
});

describe('updateStatus (event tier_status_update, approved by `approver`)', () => {
  test('active → inactive waits for approval, refuses other changes meanwhile, then applies', async () => {
    const { id } = await activeTier();
    const r = await call('updateStatus', id, { status: 'inactive' }, superUser);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      tier: { status: 'active' },
      pendingApproval: { event: 'tier_status_update', requestedStatus: 'inactive' },
      approval: {
        event: 'tier_status_update',
        approvalStatus: 'pending',
        entityOldStatus: 'active',
        entityNewStatus: 'inactive',
      },
      requestedTier: { status: 'inactive' },
    });
    await tierDocWhen(t, id, (d) => d.pendingApprovalId === r.body.approval.id);
    for (const [method, body] of [
      ['updateStatus', { status: 'pending' }],
      ['updateTier', { name: 'Other' }],
      ['addEligibilityRule', ruleBody()],
    ] as const) {
      const busy = await call(method, id, body, superUser);
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({ code: 7005, details: { pendingApproval: { id: r.body.approval.id } } });
    }
    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    expect((await settled(id)).status).toBe('inactive');
    await tierDocWhen(t, id, (d) => d.status === 'inactive' && d.pendingApproval === null);
    const entry = await until(
      async () => (await auditEntries(t, id)).find((e) => e.additionalData?.event === 'tier_status_update'),
      'tier_status_update audit entry',
    );
    expect(entry.fieldUpdates).toEqual(
      expect.arrayContaining([{ key: 'status', operation: 'replace', oldValue: '"active"', newValue: '"inactive"' }]),
    );
  });

  test('a rejected status change keeps the tier and frees it for the next change', async () => {
    const { id } = await activeTier();
    const r = await call('updateStatus', id, { status: 'pending' }, superUser);
    expect((await review(r.body.approval.id, 'reject')).status).toBe(200);
    expect((await settled(id)).status).toBe('active');
    const state = JSON.parse((await t.rt.store.read('Tier', id))!.stateJson).private;
    expect(state.lastReview).toMatchObject({
      approvalId: r.body.approval.id,
      action: 'reject',
      outcome: 'rejected',
      by: 'ann',
    });
    expect((await call('updateStatus', id, { status: 'inactive' }, superUser)).status).toBe(200);
  });

  test('expired is not settable (400 7006), the same status is 409 7007, unknown values 400', async () => {
    const { id } = await activeTier();
    const expired = await call('updateStatus', id, { status: 'expired' }, superUser);
    expect(expired.status).toBe(400);
    expect(expired.body).toMatchObject({ code: 7006, classId: 'Tier' });
    expect((await call('updateStatus', id, { status: 'active' }, superUser)).body).toMatchObject({ code: 7007 });
    expect((await call('updateStatus', id, { status: 'archived' }, superUser)).body.code).toBe(1002);
    expect((await call('updateStatus', id, {}, superUser)).body.code).toBe(1002);
  });

  test('wrong identities are refused', async () => {
    const { id } = await activeTier();
    expectForbidden(await call('updateStatus', id, { status: 'inactive' }, reader));
    expectForbidden(await call('updateStatus', id, { status: 'inactive' }, clerk));
    expect((await call('updateStatus', id, { status: 'inactive' }, member)).status).toBe(403);
    expect((await call('updateStatus', id, { status: 'inactive' }, editor)).status).toBe(200);
  });
});

describe('eligibility rules (events eligibility_rule_add / _update / _deactivate, applied at once)', () => {
  test('add, update and deactivate a rule: applied, audit-logged, streamed', async () => {
    const { id } = await activeTier();
    const added = await call(
      'addEligibilityRule',
      id,
      ruleBody({
        name: 'Crew',
        paymentTypes: ['credit_card', 'salary_deduction'],
        conditions: [{ key: 'member.isCabinCrew', logicalOperator: 'equal', value: true }],
      }),
      superUser,
    );
    expect(added.status).toBe(200);
    const rule = added.body.rule;
    expect(rule).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Crew',
      paymentTypes: ['credit_card', 'salary_deduction'],
      paymentPeriod: 'monthly',
      conditions: [{ key: 'member.isCabinCrew', logicalOperator: 'equal', value: true }],
      status: 'active',
    });
    expect(added.body).toMatchObject({
      tier: { eligibilityRules: [rule] },
      approval: { event: 'eligibility_rule_add', approvalType: 'auto' },
      pendingApproval: null,
    });
    await tierDocWhen(t, id, (d) => d.eligibilityRules.length === 1);

    const updated = await call(
      'updateEligibilityRule',
      id,
      { ruleId: rule.id, name: 'Cabin crew', quota: 50, paymentPeriod: 'yearly' },
      superUser,
    );
    expect(updated.status).toBe(200);
    expect(updated.body.rule).toEqual({ ...rule, name: 'Cabin crew', quota: 50, paymentPeriod: 'yearly' });
    expect(updated.body.approval.event).toBe('eligibility_rule_update');
    const noQuota = await call('updateEligibilityRule', id, { ruleId: rule.id, quota: null }, superUser);
    expect(noQuota.body.rule).not.toHaveProperty('quota');
    expect(
      (await call('updateEligibilityRule', id, { ruleId: rule.id, name: 'Cabin crew' }, superUser)).body.code,
    ).toBe(7017);

    const off = await call('deactivateEligibilityRule', id, { ruleId: rule.id }, superUser);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({
      rule: { id: rule.id, status: 'inactive' },
      approval: { event: 'eligibility_rule_deactivate' },
    });
    await tierDocWhen(t, id, (d) => d.eligibilityRules[0]?.status === 'inactive');
    expect((await call('deactivateEligibilityRule', id, { ruleId: rule.id }, superUser)).body).toMatchObject({
      code: 7010,
    });
    expect((await call('updateEligibilityRule', id, { ruleId: rule.id, name: 'again' }, superUser)).body).toMatchObject(
      { code: 7010 },
    );

    const events = await until(async () => {
      const e = (await auditEntries(t, id)).map((x) => x.additionalData?.event);
      return e.includes('eligibility_rule_deactivate') ? e : undefined;
    }, 'rule audit entries');
    expect(events.filter((e) => e === 'eligibility_rule_update')).toHaveLength(2);
    expect(events).toContain('eligibility_rule_add');
  });

  test('bad rules: conditions, payment periods, unknown rules, schema', async () => {
    const { id } = await activeTier();
    const cond = await call(
      'addEligibilityRule',
      id,
      ruleBody({ conditions: [{ key: 'company.id', logicalOperator: 'in', value: [] }] }),
      superUser,
    );
    expect(cond.status).toBe(400);
    expect(cond.body).toMatchObject({ code: 7011, details: { errors: [{ field: 'conditions.0' }] } });
    const period = await call('addEligibilityRule', id, ruleBody({ paymentPeriod: 'daily' }), superUser);
    expect(period.body).toMatchObject({ code: 7012, details: { unknown: ['daily'], allowed: ['monthly', 'yearly'] } });
    expect((await call('addEligibilityRule', id, { name: 'x' }, superUser)).body.code).toBe(1002);
    expect((await call('updateEligibilityRule', id, { ruleId: 'nope', name: 'x' }, superUser)).body).toMatchObject({
      code: 7009,
    });
    expect((await call('updateEligibilityRule', id, { ruleId: 'nope' }, superUser)).body.code).toBe(1002);
    expect((await call('deactivateEligibilityRule', id, { ruleId: 'nope' }, superUser)).status).toBe(404);
    const added = await call('addEligibilityRule', id, ruleBody(), superUser);
    const bad = await call(
      'updateEligibilityRule',
      id,
      {
        ruleId: added.body.rule.id,
        conditions: [{ key: 'member.dependantCount', logicalOperator: 'greater_than', value: 'two' }],
      },
      superUser,
    );
    expect(bad.body.code).toBe(7011);
    expect((await getTier(id)).body.tier.eligibilityRules).toEqual([added.body.rule]);
  });

  test('wrong identities are refused for each rule operation', async () => {
    const { id } = await activeTier({ eligibilityRules: [ruleBody()] });
    const ruleId = (await getTier(id)).body.tier.eligibilityRules[0].id;
    const ops: [string, Record<string, unknown>][] = [
      ['addEligibilityRule', ruleBody()],
      ['updateEligibilityRule', { ruleId, name: 'Renamed' }],
      ['deactivateEligibilityRule', { ruleId }],
    ];
    for (const [method, body] of ops) {
      expectForbidden(await call(method, id, body, reader));
      expectForbidden(await call(method, id, body, clerk));
      expect((await call(method, id, body, member)).status).toBe(403);
      expect((await call(method, id, body, editor)).status).toBe(200);
    }
  });
});

describe('reads', () => {
  test('getTier: program management users with the permission; not end users or others', async () => {
    const { id } = await activeTier();
    expect((await getTier(id, reader)).body).toMatchObject({ tier: { id, status: 'active' }, pendingApproval: null });
    expect((await getTier(id, superUser)).status).toBe(200);
    expectForbidden(await getTier(id, clerk));
    expect((await getTier(id, member)).status).toBe(403);
    // classes: Tier itself (sourceTierId) and Member may; another class may not
    const probe = await t.rt.call('TierProbe', 'readTier', undefined, { id });
    expect(probe.body).toMatchObject({ status: 403, code: 1008 });
  });

  test('listTiers: status, tier type, group, search, pagination; GET or POST; from the document store', async () => {
    const tt = await newType('add_on');
    const ids: string[] = [];
    for (const [i, name] of ['Alpha Plus', 'Beta', 'alpha (special)'].entries()) {
      const r = await create(tierBody(tt, { name, startDate: `${2040 + i}-01-01`, endDate: `${2040 + i}-06-01` }));
      expect(r.status).toBe(201);
      ids.push(r.body.tier.id);
    }
    await review((await getTier(ids[0])).body.pendingApproval.id, 'approve');
    await tierDocWhen(t, ids[0], (d) => d.status === 'active');
    await Promise.all(ids.map((id) => tierDocWhen(t, id, () => true)));

    const list = (q: string, headers = reader) => t.get(`${p}/Tier/listTiers?${q}`, headers);
    const all = await list(`tierTypeId=${tt}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ totalCount: 3, page: 1, limit: 20, totalPages: 1 });
    expect(all.body.items.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1], ids[0]]); // newest startDate first
    expect(all.body.items[0]._id).toBeUndefined();
    expect(all.body.items[0]).toMatchObject({
      tierType: { id: tt, group: 'add_on' },
      pendingApprovalId: expect.any(String),
    });
    expect((await list(`tierTypeId=${tt}&status=active`)).body.items.map((x: { id: string }) => x.id)).toEqual([
      ids[0],
    ]);
    expect((await list(`tierTypeId=${tt}&search=ALPHA`)).body.totalCount).toBe(2);
    expect(
      (await list(`tierTypeId=${tt}&search=${encodeURIComponent('(special)')}`)).body.items.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([ids[2]]);
    expect((await list(`tierTypeId=${tt}&search=.*`)).body.totalCount).toBe(0);
    expect((await list(`tierGroup=add_on&tierTypeId=${tt}&status=pending`)).body.totalCount).toBe(2);
    const page2 = await t.post(`${p}/Tier/listTiers`, { tierTypeId: tt, limit: 2, page: 2 }, superUser);
    expect(page2.body).toMatchObject({ totalCount: 3, page: 2, limit: 2, totalPages: 2 });
    expect(page2.body.items.map((x: { id: string }) => x.id)).toEqual([ids[0]]);

    const badLimit = await list('limit=101');
    expect(badLimit.status).toBe(400);
    expect(badLimit.body).toMatchObject({ code: 7013, details: { errors: [{ field: 'limit' }] } });
    expect((await list('status=gone')).body.code).toBe(7013);
    expect((await t.post(`${p}/Tier/listTiers`, { limit: 0 }, superUser)).status).toBe(400);
    expectForbidden(await list('', clerk));
    expect((await list('', member)).status).toBe(403);
  });

  test('getTierGroups, getPaymentTypes, getEligibilityRuleDefinitions: the spec enumerations', async () => {
    const groups = await t.get(`${p}/Tier/getTierGroups`, superUser);
    expect(groups.body).toEqual({
      tierGroups: [
        { key: 'base', label: 'Base' },
        { key: 'upgrade', label: 'Upgrade' },
        { key: 'add_on', label: 'Add-on' },
      ],
    });
    const types = await t.get(`${p}/Tier/getPaymentTypes`, editor);
    expect(types.body).toEqual({
      paymentTypes: [
        { key: 'credit_card', label: 'Credit card' },
        { key: 'salary_deduction', label: 'Salary deduction' },
      ],
    });
    const defs = await t.get(`${p}/Tier/getEligibilityRuleDefinitions`, superUser);
    expect(defs.body.operators).toEqual([
      'equal',
      'not_equal',
      'in',
      'not_in',
      'less_than',
      'greater_than',
      'less_than_equal',
      'greater_than_equal',
    ]);
    expect(defs.body.conditions).toEqual(
      expect.arrayContaining([
        {
          key: 'member.memberType',
          label: 'Member type',
          description: expect.any(String),
          valueType: 'string',
          operators: ['equal', 'not_equal', 'in', 'not_in'],
        },
      ]),
    );
    for (const method of ['getTierGroups', 'getPaymentTypes', 'getEligibilityRuleDefinitions']) {
      expectForbidden(await t.get(`${p}/Tier/${method}`, reader)); // not granted to reader
      expectForbidden(await t.get(`${p}/Tier/${method}`, clerk));
      expect((await t.get(`${p}/Tier/${method}`, member)).status).toBe(403);
    }
  });

  test('streamTier projects the tier again', async () => {
    const { id } = await activeTier();
    await tierDocWhen(t, id, () => true);
    await t.rt.documents.drop('tiers');
    expect(await t.rt.documents.get('tiers', id)).toBeNull();
    expectForbidden(await call('streamTier', id, {}, reader));
    expect((await call('streamTier', id, {}, member)).status).toBe(403);
    const r = await call('streamTier', id, {}, superUser);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ tier: { id }, streamedAt: expect.any(String) });
    await tierDocWhen(t, id, (d) => d.status === 'active', 'tier re-streamed');
  });
});

describe('callbacks and internal methods', () => {
  test('approve admits ApprovalManager only; expire is internal', async () => {
    const { id } = await activeTier();
    const body = { approvalId: 'x', action: 'approve', event: 'tier_update', entityId: id, jsonPatch: [] };
    expectForbidden(await call('approve', id, body, superUser));
    const expire = await call('expire', id, {}, superUser);
    expect(expire.status).toBe(403);
    expect(expire.body.code).toBe(1006);
  });

  test('a callback for an approval the tier does not wait for changes nothing', async () => {
    const { id } = await activeTier();
    const before = (await getTier(id)).body;
    const queued = await t.rt.call('Tier', 'approve', id, {
      approvalId: 'not-mine',
      action: 'approve',
      event: 'tier_update',
      entityId: id,
      jsonPatch: [{ op: 'replace', path: '/name', value: 'Hacked' }],
    });
    expect(queued.status).toBe(202);
    const jobId = (queued.body as { jobId: string }).jobId;
    const outcome = await until(async () => {
      const s = (await t.rt.jobs.status(jobId)).status;
      return s.status === 'failed' ? s : undefined;
    }, 'refused callback');
    expect(outcome.error).toMatchObject({ status: 409, body: { code: 7014, classId: 'Tier' } });
    expect((await getTier(id)).body).toEqual(before);
  });

  test('an approved patch that no longer fits the tier fails the callback (409 7015); the tier keeps waiting', async () => {
    const { id } = await activeTier();
    const r = await call('updateStatus', id, { status: 'inactive' }, superUser);
    expect(r.body.pendingApproval).toMatchObject({ id: r.body.approval.id });
    const before = (await getTier(id)).body;
    const queued = await t.rt.call('Tier', 'approve', id, {
      approvalId: r.body.approval.id,
      action: 'approve',
      event: 'tier_status_update',
      entityId: id,
      jsonPatch: [{ op: 'remove', path: '/gone' }],
    });
    const jobId = (queued.body as { jobId: string }).jobId;
    const outcome = await until(async () => {
      const s = (await t.rt.jobs.status(jobId)).status;
      return s.status === 'failed' ? s : undefined;
    }, 'conflicting callback');
    expect(outcome.error).toMatchObject({
      status: 409,
      body: { code: 7015, classId: 'Tier', details: { problems: [expect.stringContaining('/gone')] } },
    });
    expect((await getTier(id)).body).toEqual(before);
  });
});
