/**
 * Members join, or move to, active companies only: a company still
 * waiting for its creation approval, or one that is inactive, takes no member
 * from createMember or the HR employee update (spec 4.2: to HR such a
 * company maps to no service company, 404 11016); a member already in a
 * company that becomes inactive stays (an unchanged companyId changes nothing).
 */
import { seedRoles } from '../support/harness';
import type { TestRuntime } from '../support/harness';
import {
  API_KEY,
  COMPANIES,
  createMember,
  employeeRecord,
  seed,
  seedProgram,
  startMemberRuntime,
  uniq,
} from './support';
import { companyTakesMembers } from '../../classes/Member/company-rules';

let t: TestRuntime;
let pm: Record<string, string>;
const HR_CONTACT = { name: 'HR desk', email: 'hr@example.com' };

beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
  // c-inactive: an inactive company of the same group type as c-1 (internal)
  await seed(t, {
    companies: [{ ...COMPANIES[1]!, id: 'c-inactive', name: 'Dormant', bgId: 'BG-IN', status: 'inactive' }],
  });
  await seedRoles(t, []); // the built-in super role
  pm = {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'pm1', identity: 'program_management_user', roles: ['super'] })}`,
  };
});
afterAll(() => t.stop());

test('pure rule: only an active company takes members', () => {
  expect(companyTakesMembers({ status: 'active' })).toBe(true);
  expect(companyTakesMembers({ status: 'pending' })).toBe(false);
  expect(companyTakesMembers({ status: 'inactive' })).toBe(false);
});

test('createMember refuses a company waiting for its creation approval, and an inactive one (400 5034 on company.id)', async () => {
  const created = await t.post(
    `/${t.projectId}/CALL/Company/createCompany/default`,
    {
      name: `Pending ${uniq('co')}`,
      bgId: uniq('BG'),
      companyGroupId: 'cg-int',
      hrContact: HR_CONTACT,
      eligibleMemberTypes: ['mt-perm'],
      memberSubTypes: [],
      maxFreeDependants: 0,
    },
    pm,
  );
  expect([created.status, created.body.company.status]).toEqual([201, 'pending']);
  for (const companyId of [created.body.company.id, 'c-inactive']) {
    const r = await t.post(
      `/${t.projectId}/CALL/Member/createMember`,
      { name: 'Kim', surname: 'Lee', company: { id: companyId }, memberType: 'mt-perm' },
      pm,
    );
    expect([r.status, r.body.code, r.body.details?.errors?.[0]?.field]).toEqual([400, 5034, 'company.id']);
  }
  // and nothing was created in it
  expect((await t.rt.documents.find('members', { companyId: created.body.company.id })).total).toBe(0);
});

test('the HR employee update does not move a member to an inactive company (404 11016), and keeps a member whose company became inactive', async () => {
  const staffId = uniq('E');
  const m = await createMember(t, { staffId });
  const move = await t.post('/members/hr/employee', employeeRecord(staffId, { companyId: 'BG-IN' }), API_KEY);
  expect([move.status, move.body.success, move.body.error?.code]).toEqual([404, false, 11016]);
  expect((await t.rt.store.read('Member', m.id))!.stateJson).toContain('"company":{"id":"c-1"}');
  // a company that becomes inactive keeps its members: a record with its (unchanged) BG_ID still updates the member
  await seed(t, { companies: [{ ...COMPANIES[1]!, id: 'c-later', name: 'Later', bgId: 'BG-LATER' }] });
  const laterStaff = uniq('E');
  const later = await createMember(t, { staffId: laterStaff, company: { id: 'c-later' }, memberType: 'mt-perm' });
  await t.rt.call('Company', 'updateCompanyStatus', 'default', { id: 'c-later', status: 'inactive' });
  expect(
    ((await t.rt.call('Company', 'getCompany', 'default', { id: 'c-later' })).body as { status: string }).status,
  ).toBe('inactive');
  const stay = await t.post(
    '/members/hr/employee',
    employeeRecord(laterStaff, { companyId: 'BG-LATER', grade: 'G5' }),
    API_KEY,
  );
  expect([stay.status, stay.body.body?.memberId, stay.body.body?.updatedFields]).toEqual([
    200,
    later.id,
    expect.arrayContaining(['grade']),
  ]);
});
