/**
 * Inputs cannot break the service (docs/access.md): against the whole
 * service (every class, real HTTP), each malformed input below is answered
 * 4xx before it reaches state, and afterwards GET /health and ordinary calls
 * still work.
 *
 *  - bodies nested 10 000 deep to a CALL and to the HR routes (400 1024; HR:
 *    400 10001 in the spec 7.2 envelope, photo: VALIDATION_ERROR);
 *  - oversized HR bodies (64 KB limit of the employee and dependant
 *    endpoints, 400 10001) while the photo endpoint keeps the image-sized
 *    BODY_LIMIT;
 *  - a 12 MB leavingReason (stored before), and every HR field over its
 *    maximum length (400 10001 naming the field);
 *  - `__proto__`-like ids (Company and Setting: test/inputs/prototype-ids.test.ts).
 */
import { nested } from '../support/json';
import { TEST_API_KEY, type TestRuntime, seedRoles } from '../support/harness';
import {
  API_KEY,
  createMember,
  dependantRecord,
  employeeRecord,
  IMAGES,
  memberState,
  seedProgram,
  startMemberRuntime,
  uniq,
} from '../Member/support';

const EMPLOYEE = '/members/hr/employee';
const DEPENDANT = '/members/hr/dependant';
const HR_400 = (errors: Record<string, string[]>) => ({
  success: false,
  error: { code: 10001, message: 'Validation failed' },
  details: { errors },
});
const HR_401 = { success: false, error: { code: 10072, message: 'Invalid or missing API key' } };
const PHOTO_400 = (errors: Record<string, string[]>) => ({
  code: 10001,
  message: 'Validation error',
  details: { errors },
});
const TOO_DEEP = HR_400({ body: ['is nested too deeply'] });
const TOO_LARGE = HR_400({ body: ['is too large'] });

let t: TestRuntime;
let superUser: Record<string, string>;
let call: (classId: string, method: string, instance?: string) => string;
/** a member in sync with employeeRecord(staffId): the "normal call" of every health check */
let normal: { id: string; staffId: string };

beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
  await seedRoles(t, []); // the built-in super role
  superUser = {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'root', identity: 'program_management_user', roles: ['super'] })}`,
  };
  call = (classId, method, instance) => `/${t.projectId}/CALL/${classId}/${method}${instance ? `/${instance}` : ''}`;
  normal = await syncedMember();
});
afterAll(() => t.stop());

async function syncedMember(): Promise<{ id: string; staffId: string }> {
  const staffId = uniq('S');
  const m = await createMember(t, { staffId });
  const first = await t.post(EMPLOYEE, employeeRecord(staffId), API_KEY);
  expect(first.status).toBe(200);
  return { id: m.id as string, staffId };
}

/** the service still answers: liveness, an HR push, a back-office read */
async function expectHealthy() {
  const health = await t.get('/health');
  expect([health.status, health.body.status]).toEqual([200, 'ok']);
  const hr = await t.post(EMPLOYEE, employeeRecord(normal.staffId, { grade: `G-${uniq('g')}` }), API_KEY);
  expect([hr.status, hr.body.body?.updatedFields]).toEqual([200, ['grade']]);
  const company = await t.post(call('Company', 'getCompany', 'default'), { id: 'c-1' }, superUser);
  expect([company.status, company.body.id]).toEqual([200, 'c-1']);
}

describe('bodies nested 10 000 deep', () => {
  const deep = nested(10_000);

  test('to a CALL: 400 1024 for anyone (LogManager.addLogEntry made it a 500 before), nothing runs', async () => {
    for (const [classId, method, headers] of [
      ['LogManager', 'addLogEntry', superUser],
      ['Company', 'createCompany', superUser],
      ['Member', 'createMember', superUser],
      ['Company', 'getCompany', {}],
    ] as [string, string, Record<string, string>][]) {
      const r = await t.post(call(classId, method, classId === 'Company' ? 'default' : undefined), deep, headers);
      expect([classId, method, r.status, r.body]).toEqual([
        classId,
        method,
        400,
        { code: 1024, message: 'JSON body nested deeper than 64 levels', details: { maxDepth: 64 } },
      ]);
    }
    await expectHealthy();
  });

  test('to the HR routes (alias and CALL): 400 10001 in the 7.2 envelope; a wrong key is still 401 first', async () => {
    for (const path of [EMPLOYEE, DEPENDANT, call('Member', 'hrUpdateEmployee'), call('Member', 'hrUpsertDependant')]) {
      const r = await t.post(path, deep, API_KEY);
      expect([path, r.status, r.body]).toEqual([path, 400, TOO_DEEP]);
      const noKey = await t.post(path, deep, { 'x-api-key': 'wrong' });
      expect([path, noKey.status, noKey.body]).toEqual([path, 401, HR_401]);
    }
    await expectHealthy();
  });

  test('a valid record with one member nested 65 deep: the same 400, and the member is unchanged', async () => {
    const before = await memberState(t, normal.id);
    const body = JSON.stringify(employeeRecord(normal.staffId, { name: 'Changed' })).replace(
      '"grade":',
      `"extra":${nested(65)},"grade":`,
    );
    const r = await t.post(EMPLOYEE, body, API_KEY);
    expect([r.status, r.body]).toEqual([400, TOO_DEEP]);
    expect((await memberState(t, normal.id)).version).toBe(before.version);
  });

  test('to the photo endpoint: 400 VALIDATION_ERROR', async () => {
    const r = await t.post(call('Member', 'updateEmployeePhoto', `staffId!${normal.staffId}`), deep, API_KEY);
    expect([r.status, r.body]).toEqual([400, PHOTO_400({ body: ['is nested too deeply'] })]);
    await expectHealthy();
  });
});

describe('HR body size: 64 KB on the employee and dependant endpoints, the image-sized BODY_LIMIT on the photo', () => {
  const filler = (bytes: number) => 'x'.repeat(bytes);

  test('a 12 MB leavingReason is refused before parsing (alias and CALL) and nothing is stored', async () => {
    const before = await memberState(t, normal.id);
    const body = employeeRecord(normal.staffId, {
      status: 'terminated',
      lastDayOfService: '2024-01-31',
      leavingReason: filler(12 * 1024 * 1024),
    });
    for (const path of [EMPLOYEE, call('Member', 'hrUpdateEmployee')]) {
      const r = await t.post(path, body, API_KEY);
      expect([path, r.status, r.body]).toEqual([path, 400, TOO_LARGE]);
    }
    const after = await memberState(t, normal.id);
    expect(after.version).toBe(before.version);
    expect(after.state.private.profile.status).toBe(before.state.private.profile.status);
    await expectHealthy();
  });

  test('just over 64 KB is refused; a valid record padded to 60 KB with a field HR may add is accepted', async () => {
    const over = await t.post(EMPLOYEE, { ...employeeRecord(normal.staffId), hrExtra: filler(65 * 1024) }, API_KEY);
    expect([over.status, over.body]).toEqual([400, TOO_LARGE]);
    const dep = await t.post(
      DEPENDANT,
      { ...dependantRecord(uniq('d'), normal.staffId), hrExtra: filler(65 * 1024) },
      API_KEY,
    );
    expect([dep.status, dep.body]).toEqual([400, TOO_LARGE]);
    const under = await t.post(EMPLOYEE, { ...employeeRecord(normal.staffId), hrExtra: filler(60 * 1024) }, API_KEY);
    expect(under.status).toBe(200);
  });

  test('a wrong key with an oversized body is still 401', async () => {
    const r = await t.post(
      EMPLOYEE,
      { ...employeeRecord(normal.staffId), hrExtra: filler(100 * 1024) },
      { 'x-api-key': 'wrong' },
    );
    expect([r.status, r.body]).toEqual([401, HR_401]);
  });

  test('the photo endpoint takes a 1 MB image', async () => {
    const png = Buffer.concat([Buffer.from(IMAGES.png, 'base64'), Buffer.alloc(1024 * 1024)]).toString('base64');
    const r = await t.post(
      call('Member', 'updateEmployeePhoto', `staffId!${normal.staffId}`),
      { photo: png, fileExtension: 'png' },
      API_KEY,
    );
    expect([r.status, r.body]).toEqual([200, { success: true }]);
    await expectHealthy();
  });
});

describe('HR field lengths (schemas hrUpdateEmployee / hrUpsertDependant)', () => {
  const tooLong = (field: string, max: number): [string, string[]] => [
    field,
    [`must not have more than ${max} characters`],
  ];

  test.each([
    ['leavingReason', 1000],
    ['name', 200],
    ['middleName', 200],
    ['surname', 200],
    ['phone', 50],
    ['grade', 200],
    ['employmentType', 200],
    ['gender', 200],
    ['maritalStatus', 200],
    ['coreGrade', 200],
    ['employeeId', 200],
    ['oldStaffId', 200],
    ['companyId', 200],
  ])('employee %s: more than %d characters is 400 10001 naming the field', async (field, max) => {
    const over = await t.post(EMPLOYEE, employeeRecord(normal.staffId, { [field]: 'y'.repeat(max + 1) }), API_KEY);
    expect([over.status, over.body]).toEqual([400, HR_400(Object.fromEntries([tooLong(field, max)]))]);
  });

  test('employee email (254) and address (country 200, address 1000)', async () => {
    const email = `${'e'.repeat(250)}@x.io`;
    const r = await t.post(
      EMPLOYEE,
      employeeRecord(normal.staffId, { email, address: { country: 'c'.repeat(201), address: 'a'.repeat(1001) } }),
      API_KEY,
    );
    expect([r.status, r.body]).toEqual([
      400,
      HR_400({
        email: ['must not have more than 254 characters'],
        'address.country': ['must not have more than 200 characters'],
        'address.address': ['must not have more than 1000 characters'],
      }),
    ]);
  });

  test('values at their maximum are stored: a 1000-character leavingReason becomes the status reason', async () => {
    const m = await syncedMember();
    const reason = 'r'.repeat(1000);
    const r = await t.post(
      EMPLOYEE,
      employeeRecord(m.staffId, {
        name: 'n'.repeat(200),
        address: { country: 'AE', address: 'a'.repeat(1000) },
        status: 'terminated',
        lastDayOfService: '2024-01-31',
        leavingReason: reason,
      }),
      API_KEY,
    );
    expect(r.status).toBe(200);
    const profile = (await memberState(t, m.id)).state.private.profile;
    expect([profile.statusReason, profile.name.length, profile.address.address.length]).toEqual([reason, 200, 1000]);
  });

  test.each([
    ['name', 200],
    ['surname', 200],
    ['type', 200],
    ['phone', 50],
    ['employeeId', 200],
  ])('dependant %s: one character over is 400 10001 naming the field', async (field, max) => {
    const r = await t.post(
      DEPENDANT,
      dependantRecord(uniq('d'), normal.staffId, { [field]: 'y'.repeat(max + 1) }),
      API_KEY,
    );
    expect([r.status, r.body]).toEqual([400, HR_400(Object.fromEntries([tooLong(field, max)]))]);
  });

  test('dependant id over 128 and a blank email over 254 are refused like other bad values', async () => {
    const id = await t.post(DEPENDANT, dependantRecord('d'.repeat(129), normal.staffId), API_KEY);
    expect([id.status, id.body]).toEqual([400, HR_400({ id: ['must not have more than 128 characters'] })]);
    const blank = await t.post(
      DEPENDANT,
      dependantRecord(uniq('d'), normal.staffId, { email: ' '.repeat(255) }),
      API_KEY,
    );
    expect([blank.status, blank.body]).toEqual([400, HR_400({ email: ['must be a valid email address or null'] })]);
    await expectHealthy();
  });
});

describe('ids named like Object.prototype members, through the HR contract', () => {
  test('an employeeId such as __proto__ or constructor is an unknown employee (404 10073), not a 500', async () => {
    for (const employeeId of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const r = await t.post(EMPLOYEE, employeeRecord(employeeId), API_KEY);
      expect([employeeId, r.status, r.body.error?.code]).toEqual([employeeId, 404, 10073]);
      const dep = await t.post(DEPENDANT, dependantRecord(uniq('d'), employeeId), API_KEY);
      expect([employeeId, dep.status, dep.body.error?.code]).toEqual([employeeId, 404, 10075]);
    }
    await expectHealthy();
  });

  test('Company.getCompany {id: "__proto__"} is 404 (it answered 200 {} before)', async () => {
    for (const id of ['__proto__', 'constructor', 'toString']) {
      const r = await t.post(call('Company', 'getCompany', 'default'), { id }, superUser);
      expect([id, r.status, r.body.code]).toEqual([id, 404, 6010]);
    }
    await expectHealthy();
  });
});

test('the API key header still works in any case after all of the above', async () => {
  const r = await t.post(EMPLOYEE, employeeRecord(normal.staffId), { 'X-Api-Key': TEST_API_KEY });
  expect(r.status).toBe(200);
});
