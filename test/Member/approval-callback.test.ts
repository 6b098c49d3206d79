/**
 * approveMember, the approval callback of member_create, member_update and
 * member_status_update, called as ApprovalManager calls it: member_create's
 * approval moves only the status, a callback settled once is answered
 * `ignored` when it comes again, one for an approval the member does not wait
 * for is refused (409 5004), an approved patch that no longer fits is dropped
 * and the member stops waiting, a rejection leaves the member as it is.
 */
import type { Identity } from '../../runtime';
import type { JobStatus } from '../../runtime/queue/job-queue';
import { seedRoles, waitFor, type TestRuntime } from '../support/harness';
import { createMember, memberState, seedProgram, startMemberRuntime } from './support';

let t: TestRuntime;
let pm: Record<string, string>;
let p: string;
const AM: Identity = { type: 'class', classId: 'ApprovalManager', instanceId: 'am-test' };

beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
  await seedRoles(t, []); // the built-in super role
  pm = {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'pm-cb', identity: 'program_management_user', roles: ['super'] })}`,
  };
  p = `/${t.projectId}/CALL/Member`;
});
afterAll(() => t.stop());

/** runs approveMember on `memberId` as ApprovalManager does (a queued write) and answers how its job ended */
async function callback(memberId: string, body: Record<string, unknown>): Promise<JobStatus> {
  const queued = await t.rt.call(
    'Member',
    'approveMember',
    memberId,
    { event: 'x', entityId: memberId, jsonPatch: [], ...body },
    { identity: AM, origin: 'class' },
  );
  const { jobId } = queued.body as { jobId: string };
  const done = await waitFor(
    async () => {
      const { status } = await t.rt.jobs.status(jobId);
      return status.status === 'completed' || status.status === 'failed' ? status : undefined;
    },
    { what: `job ${jobId}` },
  );
  return done!;
}

test('member_create: approval moves only the status (not the patch), and the same callback again is ignored', async () => {
  const created = await t.post(
    `${p}/createMember`,
    { name: 'Kim', surname: 'Lee', company: { id: 'c-1' }, memberType: 'mt-perm' },
    pm,
  );
  expect(created.body.member.status).toBe('pending_approval');
  const id = created.body.member.id as string;
  const approvalId = created.body.pendingApprovalId as string;
  const body = { approvalId, action: 'approve', jsonPatch: [{ op: 'replace', path: '/name', value: 'Patched' }] };
  expect(await callback(id, body)).toMatchObject({
    status: 'completed',
    result: { body: { member: { status: 'pending_invite', name: 'Kim' } } },
  });
  const settled = await memberState(t, id);
  expect(settled.state.private).toMatchObject({
    pendingChange: null,
    lastApprovalId: approvalId,
    profile: { status: 'pending_invite', name: 'Kim' },
  });
  // a redelivered callback: answered, nothing written
  expect(await callback(id, body)).toMatchObject({
    status: 'completed',
    result: { body: { ignored: true, approvalId } },
  });
  expect((await memberState(t, id)).version).toBe(settled.version);
});

test('member_create rejected: the member is rejected', async () => {
  const created = await t.post(
    `${p}/createMember`,
    { name: 'Kim', surname: 'Lee', company: { id: 'c-1' }, memberType: 'mt-perm' },
    pm,
  );
  const id = created.body.member.id as string;
  expect(await callback(id, { approvalId: created.body.pendingApprovalId, action: 'reject' })).toMatchObject({
    status: 'completed',
    result: { body: { member: { status: 'rejected' } } },
  });
});

test('a callback for an approval the member does not wait for is refused (409 5004)', async () => {
  const m = await createMember(t);
  const before = await memberState(t, m.id);
  expect(await callback(m.id, { approvalId: 'not-awaited', action: 'approve' })).toMatchObject({
    status: 'failed',
    error: { status: 409, body: { code: 5004 } },
  });
  expect((await memberState(t, m.id)).version).toBe(before.version);
});

describe('member_status_update', () => {
  async function waiting() {
    const m = await createMember(t);
    const r = await t.post(`${p}/updateMemberStatus/${m.id}`, { status: 'suspended', reason: 'audit' }, pm);
    expect(r.body.pendingApprovalId).toEqual(expect.any(String));
    return { m, approvalId: r.body.pendingApprovalId as string };
  }

  test('an approved patch that no longer fits is dropped: the member keeps its state and stops waiting', async () => {
    const { m, approvalId } = await waiting();
    const before = (await memberState(t, m.id)).state.private.profile;
    const outcome = await callback(m.id, {
      approvalId,
      action: 'approve',
      jsonPatch: [{ op: 'replace', path: '/nothing/here', value: 1 }],
    });
    expect(outcome).toMatchObject({
      status: 'completed',
      result: { body: { member: { status: before.status }, conflict: [expect.stringContaining('/nothing/here')] } },
    });
    expect((await memberState(t, m.id)).state.private).toMatchObject({
      pendingChange: null,
      lastApprovalId: approvalId,
      profile: before,
    });
    expect(await callback(m.id, { approvalId, action: 'approve' })).toMatchObject({
      status: 'completed',
      result: { body: { ignored: true } },
    });
  });

  test('approved: the patch applies; rejected: nothing changes', async () => {
    const a = await waiting();
    const patch = [
      { op: 'replace', path: '/status', value: 'suspended' },
      { op: 'replace', path: '/statusReason', value: 'audit' },
    ];
    expect(await callback(a.m.id, { approvalId: a.approvalId, action: 'approve', jsonPatch: patch })).toMatchObject({
      status: 'completed',
      result: { body: { member: { status: 'suspended', statusReason: 'audit' } } },
    });
    const b = await waiting();
    const before = (await memberState(t, b.m.id)).state.private.profile;
    expect(await callback(b.m.id, { approvalId: b.approvalId, action: 'reject', jsonPatch: patch })).toMatchObject({
      status: 'completed',
      result: { body: { member: before } },
    });
    expect((await memberState(t, b.m.id)).state.private).toMatchObject({
      pendingChange: null,
      lastApprovalId: b.approvalId,
      profile: before,
    });
  });
});

describe('a callback body that is not an approval outcome', () => {
  const jobCount = async () => Object.values(await t.rt.jobs.queue.getJobCounts()).reduce((a, b) => a + b, 0);

  test('is refused 400 with the field and reason before it is queued (approveMember and approveMemberIdPhoto)', async () => {
    const m = await createMember(t);
    const before = await jobCount();
    for (const method of ['approveMember', 'approveMemberIdPhoto']) {
      await expect(t.rt.call('Member', method, m.id, {}, { identity: AM, origin: 'class' })).rejects.toMatchObject({
        status: 400,
        details: {
          errors: expect.arrayContaining([
            { field: 'approvalId', reason: 'is required' },
            { field: 'action', reason: 'is required' },
          ]),
        },
      });
      await expect(
        t.rt.call(
          'Member',
          method,
          m.id,
          { event: 'x', entityId: m.id, jsonPatch: [], approvalId: 'a-1', action: 'maybe' },
          { identity: AM, origin: 'class' },
        ),
      ).rejects.toMatchObject({
        status: 400,
        details: { errors: [{ field: 'action', reason: expect.stringContaining('approve') }] },
      });
    }
    expect(await jobCount()).toBe(before);
  });

  test('queued without the HTTP check (as ctx.enqueue queues) fails once with 400 when it runs, not a TypeError retried', async () => {
    const m = await createMember(t);
    const before = await memberState(t, m.id);
    const { jobId } = await t.rt.jobs.enqueueCall(
      { classId: 'Member', method: 'approveMember', instanceId: m.id, body: {}, identity: AM, origin: 'class' },
      m.id,
    );
    const done = await waitFor(
      async () => {
        const { status } = await t.rt.jobs.status(jobId);
        return status.status === 'completed' || status.status === 'failed' ? status : undefined;
      },
      { what: `job ${jobId}` },
    );
    expect(done).toMatchObject({
      status: 'failed',
      attemptsMade: 1,
      error: {
        status: 400,
        body: { details: { errors: expect.arrayContaining([{ field: 'approvalId', reason: 'is required' }]) } },
      },
    });
    expect((await memberState(t, m.id)).version).toBe(before.version);
  });

  test('for a member that waits for no approval is refused 409 5004 naming that', async () => {
    const m = await createMember(t);
    expect((await memberState(t, m.id)).state.private.pendingChange ?? null).toBeNull();
    const outcome = await callback(m.id, { approvalId: 'never-requested', action: 'reject' });
    expect(outcome).toMatchObject({
      status: 'failed',
      attemptsMade: 1,
      error: { status: 409, body: { code: 5004, message: expect.stringContaining('waits for no approval') } },
    });
  });
});
