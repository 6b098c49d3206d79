/**
 * The HR endpoints against the real Setting and Company classes (the other
 * Member tests use test doubles of them): member types by systemIdentifier,
 * company by bgId, company group types, sub type hrmsMapping.
 */
import { applySeed } from '../../classes/_platform/seed';
import { type TestRuntime } from '../support/harness';
import { startTestRuntime } from '../support/harness';
import { API_KEY, dependantRecord, employeeRecord, memberState, uniq } from './support';

let t: TestRuntime;

async function sys(classId: string, method: string, instanceId: string | undefined, body: unknown) {
  return (await t.rt.call(classId, method, instanceId, body)).body as Record<string, any>;
}

beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' } });
  for (const g of [
    { id: 'cg-int', name: 'Internal', type: 'internal' },
    { id: 'cg-int2', name: 'Internal 2', type: 'internal' },
    { id: 'cg-ext', name: 'External', type: 'external' },
  ]) {
    await sys('Setting', 'createCompanyGroup', 'default', g);
  }
  await sys('Setting', 'createMemberType', 'default', { id: 'mt-perm', name: 'Permanent', systemIdentifier: 'Permanent' });
  await sys('Setting', 'createMemberSubType', 'default', { id: 'mst-spouse', name: 'Spouse', hrmsMapping: ['spouse', 'wife'] });
  const company = (id: string, bgId: string, companyGroupId: string) => ({
    id,
    name: `Company ${id}`,
    companyGroupId,
    hrContact: { name: 'HR', email: 'hr@example.com' },
    eligibleMemberTypes: ['mt-perm'],
    memberSubTypes: [{ memberSubTypeId: 'mst-spouse', maxDependants: 1 }],
    maxFreeDependants: 1,
    bgId,
  });
  await sys('Company', 'createCompany', 'default', company('c-1', 'BG1', 'cg-int'));
  await sys('Company', 'createCompany', 'default', company('c-2', 'BG2', 'cg-int2'));
  await sys('Company', 'createCompany', 'default', company('c-3', 'BG3', 'cg-ext'));
});
afterAll(() => t.stop());

async function member() {
  const staffId = uniq('S');
  const r = await sys('Member', 'createMember', undefined, {
    name: 'Ada',
    surname: 'Lovelace',
    staffId,
    email: `${staffId.toLowerCase()}@example.com`,
    company: { id: 'c-1' },
    memberType: 'mt-perm',
    loginMethod: 'email_password',
  });
  return { id: r.member.id as string, staffId };
}

test('the seeded program is active', async () => {
  expect(await sys('Setting', 'findMemberTypeBySystemIdentifier', 'default', { systemIdentifier: 'Permanent' })).toMatchObject({ id: 'mt-perm', status: 'active' });
  expect(await sys('Company', 'getCompany', 'default', { bgId: 'BG2' })).toMatchObject({ id: 'c-2', status: 'active' });
});

test('employee update: member type by systemIdentifier (any case), reassignment within a group type', async () => {
  const { id, staffId } = await member();
  const r = await t.post('/members/hr/employee', employeeRecord(staffId, { employmentType: 'PERMANENT', companyId: 'BG2' }), API_KEY);
  expect(r.status).toBe(200);
  expect(r.body.body.updatedFields).toEqual(['phone', 'grade', 'address', 'gender', 'maritalStatus', 'coreGrade', 'dependantsExists', 'company']);
  expect((await memberState(t, id)).state.private.profile).toMatchObject({ memberType: 'mt-perm', company: { id: 'c-2' } });
});

test('409 11017 across group types, 404 11016 for an unknown bgId, 400 for an unknown employmentType', async () => {
  const { staffId } = await member();
  const ext = await t.post('/members/hr/employee', employeeRecord(staffId, { companyId: 'BG3' }), API_KEY);
  expect([ext.status, ext.body.error.code]).toEqual([409, 11017]);
  const none = await t.post('/members/hr/employee', employeeRecord(staffId, { companyId: 'BG404' }), API_KEY);
  expect([none.status, none.body.error.code]).toEqual([404, 11016]);
  const type = await t.post('/members/hr/employee', employeeRecord(staffId, { employmentType: 'Contractor' }), API_KEY);
  expect(type.status).toBe(400);
  expect(type.body.details.errors).toEqual({ employmentType: ["'Contractor' does not match an active member type"] });
});

test('dependant: mapped by hrmsMapping, unknown type with a warning', async () => {
  const { id, staffId } = await member();
  const mapped = await t.post('/members/hr/dependant', dependantRecord(uniq('d'), staffId, { type: 'Wife' }), API_KEY);
  expect(mapped.status).toBe(201);
  expect(mapped.body.body).toEqual({ dependantId: mapped.body.body.dependantId, primaryMemberId: id, updatedFields: [] });
  expect((await memberState(t, mapped.body.body.dependantId)).state.private.profile.memberSubType).toBe('mst-spouse');
  const unknown = await t.post('/members/hr/dependant', dependantRecord(uniq('d'), staffId, { type: 'cousin' }), API_KEY);
  expect(unknown.status).toBe(201);
  expect(unknown.body.body.warnings).toHaveLength(1);
});

test('seed files create members (seedMember), once', async () => {
  const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) => t.rt.call(classId, method, instanceId, body);
  const staffId = uniq('SEED');
  const doc = {
    members: [
      { id: `seed-${staffId}`, name: 'Sea', surname: 'Dee', staffId, email: `${staffId}@example.com`, company: { id: 'c-1' }, memberType: 'mt-perm', status: 'active' },
      { id: `seed-bad-${staffId}`, name: 'Bad', surname: 'Type', company: { id: 'c-1' }, memberType: 'mt-none' },
    ],
  };
  const first = await applySeed(doc, call);
  expect(first.map((o) => o.result)).toEqual(['created', 'failed']);
  expect(first[1]!.error?.code).toBe(5008);
  expect((await memberState(t, `seed-${staffId}`)).state.private.profile).toMatchObject({ status: 'active', staffId, company: { id: 'c-1' } });
  expect((await applySeed({ members: [doc.members[0]!] }, call)).map((o) => o.result)).toEqual(['skipped']);
  const r = await t.post('/members/hr/employee', employeeRecord(staffId, { status: 'terminated' }), API_KEY);
  expect(r.body.body.updatedFields).toContain('status');
});
