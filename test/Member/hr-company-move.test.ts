/**
 * The HR system moves a member to another company while a change of the
 * member waits for approval: the waiting approval record moves with it
 * (committed with the move), so the new company's approvers see and review it
 * and the old company's no longer do. Real classes, real Redis and HTTP.
 */
import { seedRoles, waitFor, type TestRuntime } from '../support/harness';
import { API_KEY, createMember, employeeRecord, memberState, seedProgram, startMemberRuntime, uniq } from './support';
import { companyMoveRefusal } from '../../classes/ApprovalManager/use-cases/company-move';

let t: TestRuntime;
const bearer = (userId: string, claims: Record<string, unknown> = {}) => ({
  authorization: `Bearer ${t.rt.tokens.sign({ sub: userId, identity: 'program_management_user', roles: ['super'], ...claims })}`,
});

beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
  await seedRoles(t, [{ id: 'super', name: 'super', level: 1, permissions: {} }]);
});
afterAll(() => t.stop());

const approval = (id: string, headers: Record<string, string>) =>
  t.post(`/${t.projectId}/CALL/ApprovalManager/getApproval/${id}`, {}, headers);

test("a waiting approval moves with the member to its new company; the old company's users lose it", async () => {
  const staffId = uniq('S');
  const m = await createMember(t, { staffId });
  expect((await t.post('/members/hr/employee', employeeRecord(staffId), API_KEY)).status).toBe(200);
  const change = await t.post(
    `/${t.projectId}/CALL/Member/updateMemberStatus/${m.id}`,
    { status: 'suspended', reason: 'audit' },
    bearer('pm1'),
  );
  expect(change.status).toBe(200);
  const approvalId: string = change.body.pendingApprovalId;
  const oldCompany = bearer('cu1', { userType: 'company', tenant: 'c-1' });
  const newCompany = bearer('cu2', { userType: 'company', tenant: 'c-2' });
  expect((await approval(approvalId, oldCompany)).status).toBe(200);
  expect((await approval(approvalId, newCompany)).status).toBe(403);

  const moved = await t.post('/members/hr/employee', employeeRecord(staffId, { companyId: 'BG2' }), API_KEY);
  expect(moved.status).toBe(200);
  expect((await memberState(t, m.id)).state.private.profile.company).toEqual({ id: 'c-2' });
  await waitFor(async () => (await approval(approvalId, newCompany)).status === 200, {
    what: 'the approval to move to the new company',
  });
  expect((await approval(approvalId, newCompany)).body).toMatchObject({
    id: approvalId,
    companyId: 'c-2',
    approvalStatus: 'pending',
  });
  expect((await approval(approvalId, oldCompany)).status).toBe(403);
});

test('only the class of the record moves it, and only while it is pending', async () => {
  expect(companyMoveRefusal({ classId: 'Member', approvalStatus: 'pending' }, 'Member')).toBeNull();
  expect(companyMoveRefusal({ classId: 'Member', approvalStatus: 'pending' }, 'Company')).toBe(
    'APPROVAL_CALLBACK_CLASS_MISMATCH',
  );
  expect(companyMoveRefusal({ classId: 'Member', approvalStatus: 'pending' }, undefined)).toBe(
    'APPROVAL_CALLBACK_CLASS_MISMATCH',
  );
  expect(companyMoveRefusal({ classId: 'Member', approvalStatus: 'approved' }, 'Member')).toBe('APPROVAL_NOT_PENDING');
  // a program management user cannot call it at all (class-only)
  const r = await t.post(
    `/${t.projectId}/CALL/ApprovalManager/moveApprovalCompany/x`,
    { companyId: 'c-2' },
    bearer('pm1'),
  );
  expect(r.status).toBe(403);
});
