/**
 * Each ContentManager workflow event (spec 6: content_create, content_update,
 * content_status_update) through a manual and an auto approval. The rules
 * are replaced at run time (Workflow.updateWorkflowConfiguration, as the
 * system identity) so that every event waits for an `approver`: a program
 * management user's change then waits for the approver's review; the same
 * change made by the system identity is approved at once (the system actor
 * always is, whatever the rule). Then the shipped rules, rejections and the
 * callback's own refusals.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  activeContent,
  asSystem,
  bearer,
  contentBody,
  freshId,
  startContentRuntime,
  writeContentRoles,
} from './support';

let t: TestRuntime;
let p: string;
let superUser: Record<string, string>;
let approver: Record<string, string>;

type Answer = { status: number; body: any };
const EVENTS = ['content_create', 'content_update', 'content_status_update'];
const manualRules = EVENTS.map((event) => ({
  event,
  currentStatus: '*',
  targetStatus: event === 'content_create' ? 'active' : '*',
  conditions: [],
  approvers: ['approver'],
}));

beforeAll(async () => {
  t = await startContentRuntime();
  await writeContentRoles(t);
  p = `/${t.projectId}/CALL`;
  superUser = bearer(t, 'pm1', ['super']);
  approver = bearer(t, 'ann', ['approver']);
});
afterAll(() => t.stop());

const http = (method: string, body: unknown): Promise<Answer> =>
  t.post(`${p}/ContentManager/${method}/default`, body, superUser);
const review = (approvalId: string, action: 'approve' | 'reject' = 'approve') =>
  t.post(`${p}/ApprovalManager/reviewApproval/${approvalId}`, { action }, approver);

async function contentNow(id: string): Promise<Record<string, any>> {
  return ((await t.rt.call('ContentManager', 'getContent', 'default', { id })).body as { content: Record<string, any> })
    .content;
}
/** a queued job's outcome once it has one */
async function jobOutcome(jobId: string) {
  return waitFor(
    async () => {
      const { status } = await t.rt.jobs.status(jobId);
      return status.status === 'completed' || status.status === 'failed' ? status : undefined;
    },
    { what: `job ${jobId}` },
  );
}
async function shownToMembers(id: string): Promise<boolean> {
  const r = await t.get(`${p}/ContentManager/getContents/default`);
  return (r.body.contents as { id: string }[]).some((c) => c.id === id);
}

describe('every event through', () => {
  beforeAll(async () => {
    expect(
      (
        await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'ContentManager', {
          classId: 'ContentManager',
          rules: manualRules,
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    // back to the shipped rules (workflow-configs/ContentManager.json) for the tests below
    await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'ContentManager', {
      classId: 'ContentManager',
      rules: (await import('../../workflow-configs/ContentManager.json')).rules,
    });
  });

  test.each([
    ['a manual approval', 'manual'],
    ['an auto approval', 'auto'],
  ] as const)('%s: content_create, content_update, content_status_update', async (_name, mode) => {
    const run = mode === 'manual' ? http : (method: string, body: unknown) => asSystem(t, method, body);
    const id = freshId(mode);
    const check = async (change: Answer, event: string, applied: () => Promise<boolean>) => {
      expect([event, change.status < 300, change.body.id]).toEqual([event, true, id]);
      if (mode === 'manual') {
        expect(change.body.approval).toMatchObject({
          event,
          approvalStatus: 'pending',
          approvalType: 'manual',
          approvers: ['approver'],
        });
        expect(change.body.content.pendingApprovalId).toBe(change.body.approval.id);
        expect(await applied()).toBe(false); // held until approved
        expect((await review(change.body.approval.id)).status).toBe(200);
        await waitFor(async () => (await applied()) && (await contentNow(id)).pendingApprovalId === null, {
          what: `${event} approved and applied`,
        });
      } else {
        expect(change.body.approval).toMatchObject({ event, approvalStatus: 'approved', approvalType: 'auto' });
        expect(change.body.content.pendingApprovalId).toBeNull();
        expect(await applied()).toBe(true);
      }
    };
    await check(
      await run('createContent', contentBody('homepage_hero_banner', { id })),
      'content_create',
      async () => (await contentNow(id)).status === 'active' && (await shownToMembers(id)),
    );
    await check(
      await run('updateContent', { id, fields: { description: 'Approved words' } }),
      'content_update',
      async () => (await contentNow(id)).fields.description === 'Approved words',
    );
    await check(
      await run('updateContentStatus', { id, status: 'inactive' }),
      'content_status_update',
      async () => (await contentNow(id)).status === 'inactive' && !(await shownToMembers(id)),
    );
  });

  test('a rejected creation leaves the content inactive; a rejected update leaves it as it was', async () => {
    const created = await http('createContent', contentBody('login_login'));
    expect((await review(created.body.approval.id, 'reject')).status).toBe(200);
    await waitFor(async () => (await contentNow(created.body.id)).status === 'inactive', {
      what: 'rejected creation inactive',
    });
    expect((await contentNow(created.body.id)).pendingApprovalId).toBeNull();

    const c = await activeContent(t, 'homepage_section');
    const update = await http('updateContent', { id: c.id, contentTitle: 'Never' });
    expect((await review(update.body.approval.id, 'reject')).status).toBe(200);
    await waitFor(async () => (await contentNow(c.id)).pendingApprovalId === null, { what: 'rejected update settled' });
    expect(await contentNow(c.id)).toMatchObject({ contentTitle: c.contentTitle, status: 'active' });
  });
});

describe('the shipped rules (workflow-configs/ContentManager.json)', () => {
  test('a creation waits for an approver, an update applies at once, a status change waits', async () => {
    const created = await http('createContent', contentBody('homepage_top_slider'));
    expect(created.body.approval).toMatchObject({
      event: 'content_create',
      approvalStatus: 'pending',
      approvers: ['approver'],
    });
    expect((await review(created.body.approval.id)).status).toBe(200);
    await waitFor(async () => (await contentNow(created.body.id)).status === 'active', { what: 'creation approved' });
    const update = await http('updateContent', { id: created.body.id, order: 8 });
    expect(update.body).toMatchObject({
      approval: { approvalStatus: 'approved', approvalType: 'auto' },
      content: { order: 8 },
    });
    const status = await http('updateContentStatus', { id: created.body.id, status: 'inactive' });
    expect(status.body.approval).toMatchObject({ event: 'content_status_update', approvalStatus: 'pending' });
  });
});

describe('approveContent', () => {
  test('only ApprovalManager calls it; a callback for an approval the content does not wait for is refused; a redelivery changes nothing', async () => {
    const created = await http('createContent', contentBody('login_login'));
    const callback = {
      approvalId: created.body.approval.id,
      action: 'approve',
      event: 'content_create',
      entityId: created.body.id,
      jsonPatch: [],
      additionalData: {},
      reviewedBy: { id: 'x', type: 'program_management_user' },
    };
    const direct = await t.post(`${p}/ContentManager/approveContent/default`, callback, superUser);
    expect([direct.status, direct.body.code]).toEqual([403, 1008]);

    expect((await review(created.body.approval.id)).status).toBe(200);
    await waitFor(async () => (await contentNow(created.body.id)).status === 'active', { what: 'creation approved' });
    const before = await contentNow(created.body.id);
    // the same callback again, as a redelivered job would bring it: settled, nothing changes
    const AM = {
      identity: { type: 'class' as const, classId: 'ApprovalManager', instanceId: 'x' },
      origin: 'class' as const,
    };
    const replay = await t.rt.call(
      'ContentManager',
      'approveContent',
      'default',
      { ...callback, jsonPatch: [{ op: 'replace', path: '/contentTitle', value: 'Replayed' }] },
      AM,
    );
    expect(await jobOutcome((replay.body as { jobId: string }).jobId)).toMatchObject({
      status: 'completed',
      result: { body: { applied: false, outcome: 'settled' } },
    });
    expect(await contentNow(created.body.id)).toEqual(before);
    const other = await t.rt.call(
      'ContentManager',
      'approveContent',
      'default',
      { ...callback, approvalId: 'not-this-one' },
      AM,
    );
    expect(await jobOutcome((other.body as { jobId: string }).jobId)).toMatchObject({
      status: 'failed',
      error: { status: 409, body: { code: 18007 } },
    });
  });
});
