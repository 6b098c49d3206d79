/**
 * The approval record and audit entry of a change are committed with it:
 * ten times, two members ask at the same moment for the same new
 * staff id through updateMemberPersonal; one wins, the other is refused (409),
 * and the refused change leaves no approval record and no audit entry behind
 * (before, each refused change left both).
 */
import type { TestRuntime } from '../support/harness';
import { waitFor, seedRoles } from '../support/harness';
import { createMember, seedProgram, startMemberRuntime, uniq } from './support';

let t: TestRuntime;
let pm: Record<string, string>;

beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
  await seedRoles(t, []); // the built-in super role
  pm = {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'pm1', identity: 'program_management_user', roles: ['super'] })}`,
  };
});
afterAll(() => t.stop());

async function instancesOf(classId: string, where: (state: any) => boolean): Promise<number> {
  let n = 0;
  for await (const ids of t.rt.store.instanceIds(classId)) {
    for (const id of ids) {
      const s = await t.rt.store.read(classId, id);
      if (s && where(JSON.parse(s.stateJson))) n++;
    }
  }
  return n;
}

test('the staff-id race: the refused change leaves no approval record and no audit entry', async () => {
  const approvals = (id: string) => instancesOf('ApprovalManager', (s) => s.public?.approval?.entityId === id);
  const logs = (id: string) => instancesOf('LogManager', (s) => s.private?.log?.entityId === id);
  for (let round = 0; round < 10; round++) {
    const [a, b] = await Promise.all([createMember(t), createMember(t)]);
    // each member's creation has its approval record and audit entry already
    const before = { approvals: await approvals(a.id), logs: await logs(a.id) };
    expect(before.approvals).toBeGreaterThan(0);
    expect([await approvals(b.id), await logs(b.id)]).toEqual([before.approvals, before.logs]);
    const staffId = uniq('RACE');
    const [ra, rb] = await Promise.all(
      [a, b].map((m) => t.post(`/${t.projectId}/CALL/Member/updateMemberPersonal/${m.id}`, { staffId }, pm)),
    );
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const loser = ra.status === 409 ? a : b;
    const winner = ra.status === 409 ? b : a;
    // the winner's change added its approval record; the loser's added nothing at all
    expect(await approvals(winner.id)).toBe(before.approvals + 1);
    expect([await approvals(loser.id), await logs(loser.id)]).toEqual([before.approvals, before.logs]);
  }
  expect(await t.rt.redis.xlen(t.rt.store.keys.bucket(0).effects)).toBe(0);
}, 60_000);

test('the approval record answered by the change is the one stored, readable at once', async () => {
  const m = await createMember(t);
  const r = await t.post(
    `/${t.projectId}/CALL/Member/updateMemberStatus/${m.id}`,
    { status: 'suspended', reason: 'audit' },
    pm,
  );
  expect(r.status).toBe(200);
  const stored = await t.rt.store.read('ApprovalManager', r.body.pendingApprovalId);
  expect(stored).toBeDefined();
  const record = JSON.parse(stored!.stateJson).public.approval;
  expect(record).toMatchObject({
    id: r.body.pendingApprovalId,
    entityId: m.id,
    approvalStatus: 'pending',
    event: r.body.approval?.event ?? expect.any(String),
  });
  await waitFor(async () => (await t.rt.documents.get('approvals', r.body.pendingApprovalId)) !== null, {
    what: 'projection',
  });
});

test('a member created by an internal user has its creation approval in its company (its approvers see it)', async () => {
  const r = await t.post(
    `/${t.projectId}/CALL/Member/createMember`,
    { name: 'Kim', surname: 'Lee', company: { id: 'c-1' }, memberType: 'mt-perm' },
    pm,
  );
  expect(r.status).toBe(200);
  const stored = await t.rt.store.read('ApprovalManager', r.body.pendingApprovalId);
  expect(JSON.parse(stored!.stateJson).public.approval).toMatchObject({ entityId: r.body.member.id, companyId: 'c-1' });
});
