/**
 * SystemEmail over real Redis and HTTP (spec 2.8, 3.3, 4.5 SystemEmail, 6,
 * 7.1): creation, updates and status changes through the workflow with
 * approval (approved and rejected), reads, the fields a template uses, and
 * listing from the document store. Sending: send.http.test.ts and
 * system-email.smtp.test.ts.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  auditEntries,
  bearer,
  entriesWhen,
  freshId,
  jobOutcome,
  startSystemEmailRuntime,
  templateBody,
  writeRoles,
} from './support';

let t: TestRuntime;
let p: string;
let superUser: Record<string, string>;
let approver: Record<string, string>;
let editor: Record<string, string>;
let reader: Record<string, string>;

beforeAll(async () => {
  t = await startSystemEmailRuntime();
  await writeRoles(t);
  p = `/${t.projectId}/CALL/SystemEmail`;
  superUser = bearer(t, 'pm1', ['super']);
  approver = bearer(t, 'ann', ['approver']);
  editor = bearer(t, 'ed', ['editor']);
  reader = bearer(t, 'rita', ['reader']);
});
afterAll(() => t.stop());

const call = (method: string, id: string | undefined, body: unknown, headers: Record<string, string>) =>
  t.post(`${p}/${method}${id ? `/${id}` : ''}`, body, headers);
const create = (body: Record<string, unknown>, headers = editor, id?: string) =>
  call('createSystemEmailTemplate', id, body, headers);
const get = (id: string, headers = reader) => t.get(`${p}/getSystemEmailTemplate/${id}`, headers);
const review = (approvalId: string, action: 'approve' | 'reject', headers = approver) =>
  t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, headers);

/** a created template (status active unless given) */
async function created(extra: Record<string, unknown> = {}, prefix?: string): Promise<string> {
  const id = freshId(prefix);
  const r = await create(templateBody(id, extra));
  expect(r.status).toBe(201);
  return id;
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

async function docWhen(id: string, check: (doc: Record<string, any>) => boolean) {
  return waitFor(
    async () => {
      const d = (await t.rt.documents.get('systemEmailTemplates', id)) as Record<string, any> | null;
      return d && check(d) ? d : undefined;
    },
    { what: `template ${id} streamed` },
  );
}

describe('createSystemEmailTemplate (INIT)', () => {
  test('creates the template under its templateId, applied at once, audit-logged and streamed', async () => {
    const id = freshId();
    const r = await create(templateBody(id, { to: ['ops@example.com', 'OPS@example.com'] }));
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      template: {
        templateId: id,
        type: 'system',
        status: 'active',
        to: ['ops@example.com'],
        title: `Template ${id}`,
        subject: 'Hello {{name}}',
        html: '<p>Dear {{name}}, your code is <b>{{code}}</b>.</p>',
        json: { design: { rows: [] } },
        createdBy: { id: 'ed', type: 'program_management_user' },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      pendingApproval: null,
    });
    expect((await get(id)).body).toEqual(r.body);
    const doc = await docWhen(id, () => true);
    expect(doc).toMatchObject({
      templateId: id,
      status: 'active',
      type: 'system',
      title: `Template ${id}`,
      pendingApproval: null,
    });
    expect(doc).not.toHaveProperty('html');

    const [entry] = await entriesWhen(t, id, 1);
    expect(entry).toMatchObject({
      classId: 'SystemEmail',
      entityType: 'systemEmailTemplate',
      entityId: id,
      actor: { id: 'ed' },
      additionalData: { event: 'system_email_create' },
    });
    // the default recipients are personal data: masked in the log
    const to = entry.fieldUpdates.find((f: { key: string }) => f.key === 'to');
    expect(to.newValue).not.toContain('ops@example.com');
  });

  test('the path may name the template too, but not another one', async () => {
    const id = freshId();
    expect((await create(templateBody(id), editor, id)).status).toBe(201);
    const other = freshId();
    const r = await create(templateBody(other), editor, freshId());
    expect([r.status, r.body.code]).toEqual([400, 11001]);
    expect(r.body.details.errors[0].field).toBe('templateId');
    expect((await get(other)).status).toBe(500); // never created: unknown instance (spec 4.1 rule 3)
  });

  test('a template id is created once', async () => {
    const id = await created();
    const again = await create(templateBody(id, { title: 'Second' }));
    expect([again.status, again.body.code]).toEqual([409, 1009]);
    expect((await get(id)).body.template.title).toBe(`Template ${id}`);
  });

  test('subject and html must be templates we can render safely (400 11000, each problem named)', async () => {
    const id = freshId();
    const r = await create(templateBody(id, { subject: 'Hi {{#name}}', html: '<p>{{{name}}} {{> footer}}</p>' }));
    expect([r.status, r.body.code]).toEqual([400, 11000]);
    expect(r.body.details.errors).toEqual([
      { field: 'subject', reason: expect.stringContaining('not a valid mustache template') },
      { field: 'html', reason: expect.stringContaining('unescaped') },
      { field: 'html', reason: expect.stringContaining('partial') },
    ]);
    expect((await get(id)).status).toBe(500);
  });

  test('the schema names missing and bad fields', async () => {
    const id = freshId();
    const r = await create({
      templateId: id,
      type: 'marketing',
      status: 'active',
      title: 't',
      subject: 's',
      json: {},
      to: ['not-an-address'],
    });
    expect([r.status, r.body.code]).toEqual([400, 1002]);
    const fields = JSON.stringify(r.body);
    for (const f of ['html', 'type', 'to']) expect(fields).toContain(f);
    expect((await create(templateBody('has space'))).status).toBe(400);
  });

  test('access: program management users with the permission; a reader is refused', async () => {
    const id = freshId();
    expect((await create(templateBody(id), reader)).status).toBe(403);
    expect((await create(templateBody(id), superUser)).status).toBe(201);
  });
});

describe('updateSystemEmailTemplate (system_email_update)', () => {
  const update = (id: string, extra: Record<string, unknown> = {}, headers = editor) =>
    call(
      'updateSystemEmailTemplate',
      id,
      {
        title: 'Welcome v2',
        subject: 'Welcome {{first}}',
        html: '<h1>{{first}} {{last}}</h1>',
        json: { v: 2 },
        ...extra,
      },
      headers,
    );

  test('waits for an approver; approved, it applies with the reviewer as actor', async () => {
    const id = await created();
    const before = (await get(id)).body.template;
    const r = await update(id, { to: ['team@example.com'] });
    expect(r.status).toBe(200);
    expect(r.body.approval).toMatchObject({
      event: 'system_email_update',
      approvalStatus: 'pending',
      approvalType: 'manual',
      approvers: ['approver'],
    });
    expect(r.body.pendingApproval).toEqual({
      id: r.body.approval.id,
      event: 'system_email_update',
      requestedStatus: 'active',
    });
    expect(r.body.template).toEqual(before);
    expect(r.body.requestedTemplate).toMatchObject({
      title: 'Welcome v2',
      subject: 'Welcome {{first}}',
      to: ['team@example.com'],
    });
    await docWhen(id, (d) => d.pendingApproval?.id === r.body.approval.id);

    // while it waits, the template takes no other change
    const second = await update(id, { title: 'Other' });
    expect([second.status, second.body.code]).toEqual([409, 11002]);
    const status = await call('updateSystemEmailTemplateStatus', id, { status: 'inactive' }, editor);
    expect([status.status, status.body.code]).toEqual([409, 11002]);
    // the maker is no approver
    expect((await review(r.body.approval.id, 'approve', editor)).status).toBe(403);

    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    const after = await settled(id);
    expect(after).toMatchObject({
      title: 'Welcome v2',
      subject: 'Welcome {{first}}',
      html: '<h1>{{first}} {{last}}</h1>',
      json: { v: 2 },
      to: ['team@example.com'],
      status: 'active',
    });
    expect(after.updatedAt > before.updatedAt).toBe(true);
    await docWhen(id, (d) => d.title === 'Welcome v2' && d.pendingApproval === null);
    const fields = await call('getSystemEmailTemplateFields', id, {}, reader);
    expect(fields.body).toEqual({
      templateId: id,
      fields: ['first', 'last'],
      subject: ['first'],
      html: ['first', 'last'],
    });

    const entries = await entriesWhen(t, id, 2);
    expect(entries[0]).toMatchObject({
      actor: { id: 'ann' },
      additionalData: {
        event: 'system_email_update',
        approvalId: r.body.approval.id,
        action: 'approve',
        reviewedBy: 'ann',
      },
    });
    expect(entries[0].fieldUpdates.map((f: { key: string }) => f.key).sort()).toEqual([
      'html',
      'json',
      'subject',
      'title',
      'to',
    ]);
  });

  test('rejected, the template stays as it was and takes changes again', async () => {
    const id = await created();
    const before = (await get(id)).body.template;
    const r = await update(id);
    expect((await review(r.body.approval.id, 'reject')).status).toBe(200);
    expect(await settled(id)).toEqual(before);
    const state = await t.rt.store.read('SystemEmail', id);
    expect(JSON.parse(state!.stateJson).private.lastReview).toMatchObject({
      approvalId: r.body.approval.id,
      action: 'reject',
      outcome: 'rejected',
      by: 'ann',
    });
    // only the creation was logged
    expect((await auditEntries(t, id)).length).toBe(1);
    expect((await update(id)).status).toBe(200);
  });

  test('an update that changes nothing, or an invalid template, is refused', async () => {
    const id = await created();
    const t0 = (await get(id)).body.template;
    const same = await call(
      'updateSystemEmailTemplate',
      id,
      { title: t0.title, subject: t0.subject, html: t0.html, json: t0.json },
      editor,
    );
    expect([same.status, same.body.code]).toEqual([400, 11003]);
    const bad = await update(id, { html: '<p>{{&raw}}</p>' });
    expect([bad.status, bad.body.code, bad.body.details.errors[0].field]).toEqual([400, 11000, 'html']);
    expect((await get(id)).body.pendingApproval).toBeNull();
  });

  test('an approval callback for another approval is refused, and a redelivered one changes nothing', async () => {
    const id = await created();
    const r = await update(id);
    const AM = {
      identity: { type: 'class' as const, classId: 'ApprovalManager', instanceId: 'x' },
      origin: 'class' as const,
    };
    const body = {
      approvalId: 'not-this-one',
      action: 'approve',
      event: 'system_email_update',
      entityId: id,
      jsonPatch: [],
      additionalData: {},
      reviewedBy: { id: 'ann', type: 'program_management_user' },
    };
    const wrong = await t.rt.call('SystemEmail', 'approve', id, body, AM);
    expect(await jobOutcome(t, (wrong.body as { jobId: string }).jobId)).toMatchObject({
      status: 'failed',
      error: { status: 409, body: { code: 11010 } },
    });

    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    const applied = await settled(id);
    const again = await t.rt.call(
      'SystemEmail',
      'approve',
      id,
      { ...body, approvalId: r.body.approval.id, jsonPatch: [{ op: 'replace', path: '/title', value: 'Replayed' }] },
      AM,
    );
    expect(await jobOutcome(t, (again.body as { jobId: string }).jobId)).toMatchObject({
      status: 'completed',
      result: { body: { applied: false, outcome: 'settled' } },
    });
    expect((await get(id)).body.template).toEqual(applied);
  });
});

describe('updateSystemEmailTemplateStatus (system_email_status_update)', () => {
  test('active → inactive → active, each once approved', async () => {
    const id = await created();
    const r = await call('updateSystemEmailTemplateStatus', id, { status: 'inactive' }, editor);
    expect(r.status).toBe(200);
    expect(r.body.approval).toMatchObject({
      event: 'system_email_status_update',
      approvalStatus: 'pending',
      entityOldStatus: 'active',
      entityNewStatus: 'inactive',
    });
    expect(r.body.template.status).toBe('active');
    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    expect((await settled(id)).status).toBe('inactive');
    await docWhen(id, (d) => d.status === 'inactive');

    const back = await call('updateSystemEmailTemplateStatus', id, { status: 'active' }, editor);
    expect((await review(back.body.approval.id, 'approve')).status).toBe(200);
    expect((await settled(id)).status).toBe('active');
    const entries = await entriesWhen(t, id, 3);
    expect(entries[1]).toMatchObject({ additionalData: { event: 'system_email_status_update', action: 'approve' } });
  });

  test('the status the template has is refused; other values fail the schema', async () => {
    const id = await created({ status: 'inactive' });
    const same = await call('updateSystemEmailTemplateStatus', id, { status: 'inactive' }, editor);
    expect([same.status, same.body.code]).toEqual([409, 11004]);
    const bad = await call('updateSystemEmailTemplateStatus', id, { status: 'deleted' }, editor);
    expect([bad.status, bad.body.code]).toEqual([400, 1002]);
  });
});

describe('listSystemEmailTemplates (document store)', () => {
  test('filters, pages of 10 by default, ordered by template id', async () => {
    const prefix = `LST${process.pid}`;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++)
      ids.push(await created({ type: 'member', status: i % 4 === 0 ? 'inactive' : 'active' }, prefix));
    ids.sort();
    const list = (q: string) => t.get(`${p}/listSystemEmailTemplates?${q}`, reader);
    await waitFor(async () => (await list(`search=${prefix}&limit=100`)).body.totalCount === 12, {
      what: 'twelve templates listed',
    });

    const first = await list(`search=${prefix.toLowerCase()}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ totalCount: 12, page: 1, limit: 10, totalPages: 2 });
    expect(first.body.items.map((d: { templateId: string }) => d.templateId)).toEqual(ids.slice(0, 10));
    expect(first.body.items[0]).not.toHaveProperty('search');
    const second = await list(`search=${prefix}&page=2`);
    expect(second.body.items.map((d: { templateId: string }) => d.templateId)).toEqual(ids.slice(10));

    const inactive = await t.post(
      `${p}/listSystemEmailTemplates`,
      { search: prefix, status: 'inactive', type: 'member', limit: 2 },
      reader,
    );
    expect(inactive.body).toMatchObject({ totalCount: 3, limit: 2, totalPages: 2 });
    expect(
      (await t.post(`${p}/listSystemEmailTemplates`, { search: prefix, type: 'system' }, reader)).body.totalCount,
    ).toBe(0);
  });

  test('bad paging is named, in a query or a body alike: 400 11009', async () => {
    const q = await t.get(`${p}/listSystemEmailTemplates?limit=101&page=0`, reader);
    expect([q.status, q.body.code]).toEqual([400, 11009]);
    expect(q.body.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'page']);
    const b = await t.post(`${p}/listSystemEmailTemplates`, { limit: 0 }, reader);
    expect([b.status, b.body.code, b.body.details.errors[0].field]).toEqual([400, 11009, 'limit']);
  });
});
