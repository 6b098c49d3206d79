/**
 * SystemEmail's state version 2 (classes/SystemEmail/state-migrations.ts)
 * over real Redis and HTTP: templates whose state version 1 stored (written
 * into Redis as its commits wrote them: the instance hash's `v` and `s`, the
 * state JSON without "v") answer as before, commit version 2 at their next
 * write, keep their redelivery guard and their waiting approval across the
 * change, and `migrate-state` (the CLI's function) brings the rest. The
 * streamed documents carry `_sv`; the listing does not show it.
 */
import { migrateState } from '../../runtime/migrate-state';
import type { LastReview, SystemEmailTemplate } from '../../classes/SystemEmail/types';
import type { SystemEmailStateV1 } from '../../classes/SystemEmail/state-migrations';
import { waitFor, type TestRuntime } from '../support/harness';
import { bearer, freshId, jobOutcome, startSystemEmailRuntime, templateBody, writeRoles } from './support';

let t: TestRuntime;
let p: string;
let editor: Record<string, string>;
let approver: Record<string, string>;
let reader: Record<string, string>;
/** every template this file makes (the project is the file's own): what migrate-state must see */
const made: string[] = [];

beforeAll(async () => {
  t = await startSystemEmailRuntime();
  await writeRoles(t);
  p = `/${t.projectId}/CALL/SystemEmail`;
  editor = bearer(t, 'ed', ['editor']);
  approver = bearer(t, 'ann', ['approver']);
  reader = bearer(t, 'rita', ['reader']);
});
afterAll(() => t.stop());

const AM = {
  identity: { type: 'class' as const, classId: 'ApprovalManager', instanceId: 'x' },
  origin: 'class' as const,
};
const get = (id: string) => t.get(`${p}/getSystemEmailTemplate/${id}`, reader);
const review = (approvalId: string, action: 'approve' | 'reject') =>
  t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, approver);
const instanceKey = (id: string) => t.rt.store.keys.instance('SystemEmail', id);

/** the stored state JSON, parsed */
async function stored(id: string): Promise<{ private: Record<string, unknown>; v?: number }> {
  const s = await t.rt.store.read('SystemEmail', id);
  return JSON.parse(s!.stateJson) as { private: Record<string, unknown>; v?: number };
}

/** a template as version 1's createSystemEmailTemplate built it (the template's own shape did not change) */
function v1Template(id: string): SystemEmailTemplate {
  const { templateId, type, status, to, title, subject, html, json } = templateBody(id);
  return {
    templateId,
    type: type as SystemEmailTemplate['type'],
    status: status as SystemEmailTemplate['status'],
    to,
    title,
    subject,
    html,
    json,
    createdBy: { id: 'ed', type: 'program_management_user' },
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
  };
}

const v1Review = (approvalId: string): LastReview => ({
  approvalId,
  event: 'system_email_update',
  action: 'reject',
  outcome: 'rejected',
  by: 'ann',
  at: '2026-01-06T09:00:00.000Z',
});

/** A new instance whose state version 1 committed: the hash its INIT wrote (`v` 1, `s` without "v"). */
async function seedV1(state: SystemEmailStateV1): Promise<string> {
  const id = state.template.templateId;
  await t.rt.redis.hset(instanceKey(id), 'v', 1, 's', JSON.stringify({ private: state }));
  made.push(id);
  return id;
}

/** An existing instance's state replaced by its version-1 form, as a commit writes it (state and next version). */
async function rewriteAsV1(id: string, state: SystemEmailStateV1): Promise<void> {
  await t.rt.redis
    .multi()
    .hset(instanceKey(id), 's', JSON.stringify({ private: state }))
    .hincrby(instanceKey(id), 'v', 1)
    .exec();
}

async function docWhen(id: string, check: (doc: Record<string, any>) => boolean) {
  return waitFor(
    async () => {
      const d = (await t.rt.documents.get('systemEmailTemplates', id)) as Record<string, any> | null;
      return d && check(d) ? d : undefined;
    },
    { what: `template ${id} streamed` },
  );
}

/** the template once it no longer waits for an approval */
async function settled(id: string) {
  return waitFor(
    async () => {
      const r = await get(id);
      return r.status === 200 && r.body.pendingApproval === null ? r.body.template : undefined;
    },
    { what: `template ${id} settled` },
  );
}

describe('a template stored by version 1', () => {
  test('reads answer as before, and a READ writes nothing', async () => {
    const template = v1Template(freshId('V1READ'));
    const id = await seedV1({ template, pendingApproval: null, lastSettledApprovalId: null });
    const before = await t.rt.redis.hgetall(instanceKey(id));

    expect(await get(id)).toMatchObject({ status: 200, body: { template, pendingApproval: null } });
    expect(Object.keys((await get(id)).body).sort()).toEqual(['pendingApproval', 'template']);
    const fields = await t.get(`${p}/getSystemEmailTemplateFields/${id}`, reader);
    expect([fields.status, fields.body.fields]).toEqual([200, ['name', 'code']]);
    expect(await t.rt.redis.hgetall(instanceKey(id))).toEqual(before);
  });

  test('its next write commits version 2 (the guard gone, lastReview null), projected with _sv', async () => {
    const template = v1Template(freshId('V1WRITE'));
    const id = await seedV1({ template, pendingApproval: null, lastSettledApprovalId: null });

    const r = await t.post(`${p}/updateSystemEmailTemplateStatus/${id}`, { status: 'inactive' }, editor);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      template,
      pendingApproval: { id: r.body.approval.id, event: 'system_email_status_update', requestedStatus: 'inactive' },
      approval: { approvalStatus: 'pending', entityOldStatus: 'active', entityNewStatus: 'inactive' },
    });
    const raw = (await t.rt.store.read('SystemEmail', id))!.stateJson;
    expect(raw).toContain('"v":2');
    expect(JSON.parse(raw)).toEqual({
      private: { template, pendingApproval: r.body.pendingApproval, lastReview: null },
      v: 2,
    });

    // the document is built from the migrated state and names the shape; the listing answers without it
    const doc = await docWhen(id, (d) => d.pendingApproval?.id === r.body.approval.id);
    expect(doc).toMatchObject({ templateId: id, status: 'active', _sv: 2 });
    const listed = await t.post(`${p}/listSystemEmailTemplates`, { search: id }, reader);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({ templateId: id, pendingApproval: { id: r.body.approval.id } });
    expect(listed.body.items[0]).not.toHaveProperty('_sv');

    // settled under version 2: the review is recorded once, in lastReview
    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    expect((await settled(id)).status).toBe('inactive');
    const after = await stored(id);
    expect(after.v).toBe(2);
    expect(after.private).not.toHaveProperty('lastSettledApprovalId');
    expect(after.private.lastReview).toMatchObject({
      approvalId: r.body.approval.id,
      action: 'approve',
      outcome: 'applied',
      by: 'ann',
    });
  });

  test('a redelivered callback of the approval version 1 settled last still changes nothing', async () => {
    const template = v1Template(freshId('V1GUARD'));
    const last = v1Review('ap-settled-under-v1');
    const id = await seedV1({
      template,
      pendingApproval: null,
      lastSettledApprovalId: last.approvalId,
      lastReview: last,
    });
    const callback = {
      approvalId: last.approvalId,
      action: 'approve',
      event: 'system_email_update',
      entityId: id,
      jsonPatch: [{ op: 'replace', path: '/title', value: 'Replayed' }],
      additionalData: {},
      reviewedBy: { id: 'ann', type: 'program_management_user' },
    };
    const again = await t.rt.call('SystemEmail', 'approve', id, callback, AM);
    expect(await jobOutcome(t, (again.body as { jobId: string }).jobId)).toMatchObject({
      status: 'completed',
      result: { body: { applied: false, outcome: 'settled' } },
    });
    // the callback wrote, so the migrated state was committed: the review kept whole
    expect(await stored(id)).toEqual({ private: { template, pendingApproval: null, lastReview: last }, v: 2 });
    expect((await get(id)).body).toEqual({ template, pendingApproval: null });

    // a callback for any other approval is still refused
    const other = await t.rt.call('SystemEmail', 'approve', id, { ...callback, approvalId: 'ap-other' }, AM);
    expect(await jobOutcome(t, (other.body as { jobId: string }).jobId)).toMatchObject({
      status: 'failed',
      error: { status: 409, body: { code: 11010 } },
    });
  });

  test('an approval asked for under version 1 is settled under version 2', async () => {
    const id = freshId('V1WAIT');
    expect((await t.post(`${p}/createSystemEmailTemplate`, templateBody(id), editor)).status).toBe(201);
    made.push(id);
    const asked = await t.post(
      `${p}/updateSystemEmailTemplate/${id}`,
      { title: 'Asked under v1', subject: 'Hi {{name}}', html: '<p>{{name}}</p>', json: { v: 1 } },
      editor,
    );
    expect(asked.status).toBe(200);
    const waiting = await get(id);
    // the state as version 1 stored it while the approval waited
    await rewriteAsV1(id, {
      template: waiting.body.template as SystemEmailTemplate,
      pendingApproval: waiting.body.pendingApproval,
      lastSettledApprovalId: null,
    });
    expect((await stored(id)).v).toBeUndefined();

    expect((await review(asked.body.approval.id, 'approve')).status).toBe(200);
    const applied = await settled(id);
    expect(applied).toMatchObject({ title: 'Asked under v1', subject: 'Hi {{name}}' });
    const after = await stored(id);
    expect(after).toMatchObject({
      v: 2,
      private: { template: applied, pendingApproval: null, lastReview: { approvalId: asked.body.approval.id } },
    });
    expect(after.private).not.toHaveProperty('lastSettledApprovalId');
  });
});

describe('migrate-state SystemEmail', () => {
  test('writes every template still at version 1, once; run again, it finds them current', async () => {
    const waiting = { id: 'ap-waiting-v1', event: 'system_email_update' as const, requestedStatus: 'active' as const };
    const seeded = {
      fresh: { template: v1Template(freshId('MIG')), pendingApproval: null, lastSettledApprovalId: null },
      reviewed: (() => {
        const last = v1Review('ap-mig-1');
        return {
          template: v1Template(freshId('MIG')),
          pendingApproval: null,
          lastSettledApprovalId: last.approvalId,
          lastReview: last,
        };
      })(),
      waitingAgain: (() => {
        const last = v1Review('ap-mig-2');
        return {
          template: v1Template(freshId('MIG')),
          pendingApproval: waiting,
          lastSettledApprovalId: last.approvalId,
          lastReview: last,
        };
      })(),
    } satisfies Record<string, SystemEmailStateV1>;
    for (const s of Object.values(seeded)) await seedV1(s);

    const versions = await Promise.all(made.map(async (id) => (await stored(id)).v ?? 1));
    const behind = versions.filter((v) => v === 1).length;
    expect(behind).toBeGreaterThanOrEqual(3);

    const [report] = await migrateState(t.rt, ['SystemEmail']);
    expect(report).toMatchObject({
      classId: 'SystemEmail',
      version: 2,
      instances: made.length,
      migrated: behind,
      current: made.length - behind,
      newer: 0,
      failed: 0,
    });
    for (const id of made) expect({ id, v: (await stored(id)).v }).toEqual({ id, v: 2 });

    // version 2 of each: the same state without the guard, the review (or null) kept
    for (const s of Object.values<SystemEmailStateV1>(seeded)) {
      const { lastSettledApprovalId: _guard, ...rest } = s;
      expect((await stored(s.template.templateId)).private).toEqual({ ...rest, lastReview: rest.lastReview ?? null });
    }

    // migrate-state writes through the dispatcher: the seeded templates are projected too, and answer as before
    const id = seeded.waitingAgain.template.templateId;
    expect(await docWhen(id, () => true)).toMatchObject({ pendingApproval: waiting, _sv: 2 });
    expect((await get(id)).body).toEqual({ template: seeded.waitingAgain.template, pendingApproval: waiting });

    const [again] = await migrateState(t.rt, ['SystemEmail']);
    expect(again).toMatchObject({ instances: made.length, migrated: 0, current: made.length, failed: 0 });
  });
});
