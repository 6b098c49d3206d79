/**
 * Ids that are names of Object.prototype's members (`Company.getCompany
 * {id: "__proto__"}` answered 200 `{}`, `constructor` and `toString` likewise;
 * company state is a map keyed by user input). Through real HTTP: such ids are
 * ordinary unknown ids (404 with the class's code) for every operation that
 * takes an id, and ordinary ids once created (the choice documented in
 * classes/Company/README.md and classes/Setting/README.md); the service stays
 * healthy.
 */
import { startServiceRuntime, type ServiceTestRuntime } from '../Setting/support';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

let t: ServiceTestRuntime;
const asSystem = async (classId: string, method: string, body: unknown) => {
  const r = await t.rt.call(classId, method, 'default', body);
  return r.body as Record<string, any>;
};
let company: Record<string, any>;
let group: Record<string, any>;

beforeAll(async () => {
  t = await startServiceRuntime();
  // created by the system: the workflow approves them at once
  group = (await asSystem('Setting', 'createCompanyGroup', { name: 'Group', type: 'internal' })).item;
  const memberType = (await asSystem('Setting', 'createMemberType', { name: 'Regular', systemIdentifier: 'Regular' }))
    .item;
  company = (
    await asSystem('Company', 'createCompany', {
      name: 'Real company',
      companyGroupId: group.id,
      hrContact: { name: 'HR', email: 'hr@example.test' },
      eligibleMemberTypes: [memberType.id],
      memberSubTypes: [],
      maxFreeDependants: 0,
      bgId: 'BG-REAL',
    })
  ).company;
  expect(company.status).toBe('active');
});
afterAll(() => t.stop());

/** the service still answers: liveness and an ordinary read */
async function expectHealthy() {
  const health = await t.get('/health');
  expect([health.status, health.body.status]).toEqual([200, 'ok']);
  const real = await t.call('Company', 'getCompany', { id: company.id });
  expect([real.status, real.body.id]).toEqual([200, company.id]);
  const g = await t.call('Setting', 'getCompanyGroup', { id: group.id });
  expect([g.status, g.body.id]).toEqual([200, group.id]);
}

describe('Company', () => {
  test.each(NAMES)('%s is an unknown company for every operation taking an id (404 6010)', async (id) => {
    const answers = [
      await t.call('Company', 'getCompany', { id }),
      await t.query('Company', 'getCompany', { id }),
      await t.call('Company', 'updateCompany', { id, name: 'Renamed' }),
      await t.call('Company', 'updateCompanyStatus', { id, status: 'inactive' }),
      await t.call('Company', 'streamCompany', { id }),
    ];
    expect(answers.map((r) => [r.status, r.body.code])).toEqual(answers.map(() => [404, 6010]));
    await expectHealthy();
  });

  test('a bgId that is such a name finds nothing either (404)', async () => {
    for (const bgId of NAMES) {
      const r = await t.call('Company', 'getCompany', { bgId });
      expect([bgId, r.status, r.body.code]).toEqual([bgId, 404, 6010]);
    }
  });

  test('created with such ids, they are ordinary companies: stored as own keys, read, refused a second time (409); the others stay unknown', async () => {
    const created: string[] = ['__proto__', 'constructor'];
    for (const [i, id] of created.entries()) {
      const r = await t.call('Company', 'createCompany', {
        id,
        name: `Company ${id}`,
        companyGroupId: group.id,
        hrContact: { name: 'HR', email: 'hr@example.test' },
        eligibleMemberTypes: [],
        memberSubTypes: [],
        maxFreeDependants: 0,
        bgId: `BG-P${i}`,
      });
      expect([r.status, r.body.company?.id]).toEqual([201, id]);
    }
    // the state holds them as own keys, next to the real company
    const stored = JSON.parse((await t.rt.store.read('Company', 'default'))!.stateJson);
    expect(Object.keys(stored.private.companies).sort()).toEqual([company.id, ...created].sort());
    for (const id of created) {
      const got = await t.call('Company', 'getCompany', { id });
      expect([got.status, got.body.id, got.body.name]).toEqual([200, id, `Company ${id}`]);
      const r = await t.call('Company', 'createCompany', {
        id,
        name: 'Again',
        companyGroupId: group.id,
        hrContact: { name: 'HR', email: 'hr@example.test' },
        eligibleMemberTypes: [],
        memberSubTypes: [],
        maxFreeDependants: 0,
        bgId: `BG-again-${id}`,
      });
      expect([r.status, r.body.code]).toEqual([409, expect.any(Number)]);
    }
    // pending creations wait for approval: no update yet, but reached as themselves (409 pending), not as unknown
    const busy = await t.call('Company', 'updateCompany', { id: '__proto__', name: 'Renamed' });
    expect(busy.status).toBe(409);
    for (const id of ['toString', 'hasOwnProperty', 'valueOf']) {
      expect((await t.call('Company', 'getCompany', { id })).status).toBe(404);
    }
    await expectHealthy();
  });
});

describe('Setting', () => {
  const GETS = ['getCompanyGroup', 'getMemberType', 'getMemberSubType', 'getTierType'];
  const UPDATES = ['updateCompanyGroup', 'updateMemberType', 'updateMemberSubType', 'updateTierType'];
  const STATUS = [
    'updateCompanyGroupStatus',
    'updateMemberTypeStatus',
    'updateMemberSubTypeStatus',
    'updateTierTypeStatus',
  ];

  test.each(NAMES)('%s is an unknown record in every group for get, update and status (404 10020)', async (id) => {
    const answers = [];
    for (const m of GETS)
      answers.push([m, await t.call('Setting', m, { id })], [`${m} (GET)`, await t.query('Setting', m, { id })]);
    for (const m of UPDATES) answers.push([m, await t.call('Setting', m, { id, name: 'Renamed' })]);
    for (const m of STATUS) answers.push([m, await t.call('Setting', m, { id, status: 'inactive' })]);
    expect(answers.map(([m, r]: any) => [m, r.status, r.body.code])).toEqual(answers.map(([m]) => [m, 404, 10020]));
    await expectHealthy();
  });

  test('a group named like a prototype member is an unknown group (400), not a 500', async () => {
    for (const name of NAMES) {
      const r = await t.query('Setting', 'getSetting', { group: name });
      expect([name, r.status]).toEqual([name, 400]);
    }
  });

  test('created with such ids, they are ordinary records', async () => {
    for (const id of ['__proto__', 'constructor', 'toString']) {
      const r = await t.call('Setting', 'createTierType', { id, name: `Tier type ${id}`, tierGroup: 'base' });
      expect([r.status, r.body.item?.id]).toEqual([201, id]);
      const got = await t.call('Setting', 'getTierType', { id });
      expect([got.status, got.body.id, got.body.pendingApprovalId]).toEqual([200, id, null]);
      const renamed = await t.call('Setting', 'updateTierType', { id, name: `Renamed ${id}` });
      expect([renamed.status, renamed.body.item?.id]).toEqual([200, id]);
      expect((await t.call('Setting', 'getTierType', { id })).body.name).toBe(`Renamed ${id}`);
    }
    expect((await t.call('Setting', 'getTierType', { id: 'valueOf' })).status).toBe(404);
    await expectHealthy();
  });
});

describe('Member lookups keyed by input ignore Object.prototype', () => {
  test('a payment period named like a prototype member is an unknown period (one payment), not a crash', () => {
    const { paymentSchedule } = jest.requireActual(
      '../../classes/Member/memberships',
    ) as typeof import('../../classes/Member/memberships');
    for (const period of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(paymentSchedule('2026-01-01T00:00:00.000Z', '2026-12-31T00:00:00.000Z', period, 120, 'cpg')).toEqual([
        { dueDate: '2026-01-01T00:00:00.000Z', amount: 120 },
      ]);
    }
    expect(
      paymentSchedule('2026-01-01T00:00:00.000Z', '2026-03-31T00:00:00.000Z', 'monthly', 30, 'cpg').length,
    ).toBeGreaterThan(1);
  });

  test('HR field messages keyed by a field named __proto__ stay an own key', () => {
    const { toFieldMessages } = jest.requireActual(
      '../../classes/Member/hr-contract',
    ) as typeof import('../../classes/Member/hr-contract');
    const out = toFieldMessages([{ field: '__proto__', reason: 'is required' }], 'employee');
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(JSON.stringify(out)).toBe('{"__proto__":["is required"]}');
  });
});
