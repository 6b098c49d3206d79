/**
 * The erasure's flow over HTTP with the real classes: a rejected request
 * erases nothing; a request the rules would approve at once for a back-office
 * user is refused and leaves nothing; the system actor's request runs at once;
 * the request's answers (getErasure, 404 for another instance); an approval
 * callback the request does not wait for is refused; the audit trail of a
 * request holds its steps and no personal value.
 */
import { seedRoles, waitFor, type TestRuntime } from '../support/harness';
import { findLogs } from '../support/logs';
import { createMember, seedProgram, startMemberRuntime, uniq } from '../Member/support';

let t: TestRuntime;
let p: string;
const token = (sub: string, roles: string[], claims: Record<string, unknown> = {}) => ({
  authorization: `Bearer ${t.rt.tokens.sign({ sub, identity: 'program_management_user', roles, ...claims })}`,
});
let maker: Record<string, string>;
let checker: Record<string, string>;

beforeAll(async () => {
  t = await startMemberRuntime();
  p = `/${t.projectId}/CALL`;
  await seedProgram(t);
  await seedRoles(t, [
    { id: 'r-approver', name: 'approver', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
    { id: 'r-export', name: 'exporter', level: 10, permissions: { DataSubject: ['exportSubject'] } },
  ]);
  maker = token('pm-maker', ['super']);
  checker = token('pm-checker', ['approver']);
});
afterAll(() => t?.stop());

/** a member whose name is its own, so a search finds only its values */
async function member(): Promise<{ id: string; name: string }> {
  const name = uniq('Quintessa');
  const m = await createMember(t, { name });
  return { id: m.id as string, name };
}

const request = (memberId: string, headers = maker) =>
  t.post(`${p}/DataSubject/requestErasure`, { subjectType: 'member', subjectId: memberId, reason: 'DP-7' }, headers);
const erasureOf = async (id: string) => (await t.post(`${p}/DataSubject/getErasure/${id}`, {}, maker)).body.erasure;
const profileOf = async (id: string) =>
  JSON.parse((await t.rt.store.read('Member', id))!.stateJson).private.profile as Record<string, unknown>;

test('rejected: the request is rejected and the member keeps its values', async () => {
  const m = await member();
  const r = await request(m.id);
  expect(r.status).toBe(201);
  const review = await t.post(
    `${p}/ApprovalManager/reviewApproval/${r.body.approval.id}`,
    { action: 'reject', note: 'not verified' },
    checker,
  );
  expect(review.status).toBe(200);
  const settled = await waitFor(async () => {
    const e = await erasureOf(r.body.erasure.id);
    return e.status === 'rejected' ? e : null;
  });
  expect(settled).toMatchObject({ reviewedBy: { id: 'pm-checker' }, approvalId: r.body.approval.id });
  expect(settled.erasedAt).toBeUndefined();
  expect((await profileOf(m.id)).name).toBe(m.name);
});

test('a request the rules would approve at once for a back-office user is refused, 403 20005, and leaves nothing', async () => {
  const m = await member();
  const rules = (await import('../../workflow-configs/DataSubject.json')).rules;
  await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'DataSubject', {
    classId: 'DataSubject',
    rules: rules.map((rule) => ({ ...rule, approvers: [] })),
  });
  try {
    const before = (await t.rt.documents.find('approvals', { instanceId: m.id })).total;
    const r = await request(m.id);
    expect([r.status, r.body.code]).toEqual([403, 20005]);
    expect((await profileOf(m.id)).name).toBe(m.name);
    expect((await t.rt.documents.find('approvals', { classId: 'DataSubject' })).items).not.toContainEqual(
      expect.objectContaining({ entityId: expect.stringContaining(m.id) }),
    );
    expect((await t.rt.documents.find('approvals', { instanceId: m.id })).total).toBe(before);
  } finally {
    await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'DataSubject', { classId: 'DataSubject', rules });
  }
});

test("the system actor's request is approved at once and erases", async () => {
  const m = await member();
  const r = await t.rt.call('DataSubject', 'requestErasure', undefined, {
    subjectType: 'member',
    subjectId: m.id,
    reason: 'operator',
  });
  const { erasure } = r.body as { erasure: { id: string; status: string } };
  expect(erasure.status).toBe('approved');
  const done = await waitFor(async () => {
    const e = await erasureOf(erasure.id);
    return e.status === 'erased' ? e : null;
  });
  expect(done.erased.map((c: { classId: string }) => c.classId)).toContain('Member');
  expect((await profileOf(m.id)).name).toBe('[erased]');
});

test('getErasure: 404 20003 for an instance that holds no erasure; the level-10 role needs its own permission', async () => {
  const m = await member();
  const exported = await t.post(
    `${p}/DataSubject/exportSubject`,
    { subjectType: 'member', subjectId: m.id },
    token('pm-ex', ['exporter']),
  );
  expect(exported.status).toBe(201);
  const exportId = exported.headers.get('x-export-id')!;
  const r = await t.post(`${p}/DataSubject/getErasure/${exportId}`, {}, maker);
  expect([r.status, r.body.code]).toEqual([404, 20003]);
  const refused = await request(m.id, token('pm-ex', ['exporter']));
  expect(refused.status).toBe(403);
});

test('an approval callback the request does not wait for: 409 20006, nothing changes', async () => {
  const m = await member();
  const r = await request(m.id);
  const callback = await t.rt.call(
    'DataSubject',
    'approveErasure',
    r.body.erasure.id,
    {
      approvalId: 'not-this-one',
      action: 'approve',
      event: 'subject_erasure',
      entityId: r.body.erasure.id,
      jsonPatch: [],
      additionalData: {},
      reviewedBy: { id: 'pm-checker', type: 'program_management_user' },
    },
    { identity: { type: 'class', classId: 'ApprovalManager', instanceId: 'x' }, origin: 'class' },
  );
  const jobId = (callback.body as { jobId: string }).jobId;
  const outcome = await waitFor(async () => {
    const { status } = await t.rt.jobs.status(jobId);
    return status.status === 'failed' || status.status === 'completed' ? status : null;
  });
  expect(outcome).toMatchObject({ status: 'failed', error: { status: 409, body: { code: 20006 } } });
  expect((await erasureOf(r.body.erasure.id)).status).toBe('requested');
});

test("the request's audit trail: requested, approved, erased; who and why, never a value", async () => {
  const m = await member();
  const r = await request(m.id);
  await t.post(`${p}/ApprovalManager/reviewApproval/${r.body.approval.id}`, { action: 'approve' }, checker);
  await waitFor(async () => (await erasureOf(r.body.erasure.id)).status === 'erased');
  const { items } = (await waitFor(async () => {
    const found = await findLogs(t, { classId: 'DataSubject', entityId: r.body.erasure.id });
    return found.total >= 3 ? found : null;
  }))!;
  expect(items.map((e) => e.actor.id)).toEqual(['pm-maker', 'pm-checker', expect.any(String)]);
  const text = JSON.stringify(items);
  expect(text).toContain('DP-7');
  expect(text).not.toContain(m.name);
});
