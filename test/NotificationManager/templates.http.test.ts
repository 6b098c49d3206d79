/**
 * NotificationManager over real Redis and HTTP: the catalogue's templates
 * created on first use, the three workflow events through approval, sends
 * (inactive templates send nothing, parameters and recipients checked, the
 * in-app fan-out into UserNotification inboxes), and a send that belongs to a
 * change (NotifyProbe) happening only when the change commits.
 */
import type { TestRuntime } from '../support/harness';
import { waitFor } from '../support/harness';
import {
  bearer,
  call,
  everyEventManual,
  inboxItems,
  inboxWith,
  seedNotifyRoles,
  startNotifyRuntime,
  uid,
  type Headers,
} from './support';

const CATALOGUE = [
  'HR_DEACTIVATIONS_HELD',
  'MEMBER_DEPENDANT_INVITATION',
  'MEMBER_INVITATION',
  'MEMBER_REGISTRATION_CODE',
  'MEMBER_WELCOME',
  'MEMBERSHIP_EXPIRED',
  'MEMBERSHIP_EXPIRING',
  'MEMBERSHIP_RENEWED',
  'OTP_MEMBER_LOGIN',
  'OTP_MEMBER_PASSWORD_RESET',
  'OTP_PROGRAM_MANAGEMENT_INVITE',
  'OTP_PROGRAM_MANAGEMENT_LOGIN',
  'OTP_PROGRAM_MANAGEMENT_PASSWORD_RESET',
  'SSO_USER_INTIVATION_PROGRAM_MANAGEMENT',
];

let t: TestRuntime;
let superUser: Headers;
let editor: Headers;
let approver: Headers;
let clerk: Headers;

beforeAll(async () => {
  t = await startNotifyRuntime({ probe: true });
  await seedNotifyRoles(t);
  await everyEventManual(t);
  superUser = bearer(t, 'program_management_user', 'pm-super', ['super']);
  editor = bearer(t, 'program_management_user', 'pm-editor', ['editor']);
  approver = bearer(t, 'program_management_user', 'pm-approver', ['approver']);
  clerk = bearer(t, 'program_management_user', 'pm-clerk', ['clerk']);
});
afterAll(() => t.stop());

const nm = (method: string, id: string | undefined, body: unknown, headers: Headers = editor) =>
  call(t, 'NotificationManager', method, id, body, headers);
const getTemplate = async (id: string) => (await nm('getNotificationTemplate', id, {})).body;
/** a send as the system identity (sendNotification admits classes; the system is always admitted) */
const send = (id: string, body: unknown) => t.rt.call('NotificationManager', 'sendNotification', id, body);
const review = (approvalId: string, action: 'approve' | 'reject') =>
  call(t, 'ApprovalManager', 'reviewApproval', approvalId, { action }, approver);

/** waits until the template's callback has settled its pending change */
async function settled(id: string): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const b = await getTemplate(id);
      return b.pendingApproval === null && b.lastReview ? b : undefined;
    },
    { what: `template ${id} settled` },
  );
}

describe('the catalogue', () => {
  test('every built-in template exists on first use: the listing creates and lists them, active, with their defaults', async () => {
    const r = await nm('listNotificationTemplates', undefined, { limit: 100 });
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: { templateId: string }) => i.templateId)).toEqual(CATALOGUE);
    expect(r.body).toMatchObject({ totalCount: CATALOGUE.length, page: 1, limit: 100, totalPages: 1 });
    expect(r.body.items.every((i: { status: string }) => i.status === 'active')).toBe(true);
    const login = await getTemplate('OTP_PROGRAM_MANAGEMENT_LOGIN');
    expect(login.template).toMatchObject({
      templateId: 'OTP_PROGRAM_MANAGEMENT_LOGIN',
      status: 'active',
      channels: { email: { enabled: true }, in_app: { enabled: false }, sms: { enabled: false } },
    });
    expect(login.template.channels.email.html).toContain('{{otp}}');
    // the spec's spelling
    expect((await getTemplate('SSO_USER_INTIVATION_PROGRAM_MANAGEMENT')).template.templateId).toBe(
      'SSO_USER_INTIVATION_PROGRAM_MANAGEMENT',
    );
  });

  test('the listing pages (default 10), filters by status and searches; bad values are 400 with the field', async () => {
    await waitFor(async () => (await t.rt.documents.count('notification_templates', {})) === CATALOGUE.length, {
      what: 'templates streamed',
    });
    const first = await nm('listNotificationTemplates', undefined, { limit: 5 });
    expect(first.body).toMatchObject({
      totalCount: CATALOGUE.length,
      page: 1,
      limit: 5,
      totalPages: Math.ceil(CATALOGUE.length / 5),
    });
    expect(first.body.items).toHaveLength(5);
    const second = await nm('listNotificationTemplates', undefined, { limit: 5, page: 2 });
    expect(second.body.items.map((i: { templateId: string }) => i.templateId)).toEqual(CATALOGUE.slice(5, 10));
    const byDefault = await t.get(`/${t.projectId}/CALL/NotificationManager/listNotificationTemplates`, editor);
    expect(byDefault.body).toMatchObject({ limit: 10, totalCount: CATALOGUE.length });
    const search = await t.get(
      `/${t.projectId}/CALL/NotificationManager/listNotificationTemplates?search=RESET%20code`,
      editor,
    );
    expect(search.body.items.map((i: { templateId: string }) => i.templateId)).toEqual([
      'OTP_MEMBER_PASSWORD_RESET',
      'OTP_PROGRAM_MANAGEMENT_PASSWORD_RESET',
    ]);
    const bad = await t.get(
      `/${t.projectId}/CALL/NotificationManager/listNotificationTemplates?limit=101&status=gone`,
      editor,
    );
    expect([bad.status, bad.body.code]).toEqual([400, 16008]);
    expect(bad.body.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'status']);
  });

  test('an id outside the catalogue is 404 and leaves no instance', async () => {
    const r = await nm('updateNotificationTemplate', 'NO_SUCH_TEMPLATE', { title: 'x' }, superUser);
    expect([r.status, r.body.code]).toEqual([404, 16000]);
    await expect(send('NO_SUCH_TEMPLATE', { to: ['a@example.com'] })).rejects.toMatchObject({
      status: 404,
      code: 16000,
    });
    expect(await t.rt.store.read('NotificationManager', 'NO_SUCH_TEMPLATE')).toBeUndefined();
  });

  test('level-10 users need the permission; a company user reads templates but cannot change them', async () => {
    expect((await nm('getNotificationTemplate', 'OTP_MEMBER_LOGIN', {}, clerk)).status).toBe(403);
    const companyUser = {
      authorization: `Bearer ${t.rt.tokens.sign({ sub: 'pm-co', identity: 'program_management_user', roles: ['super'], tenant: 'c-1' })}`,
    };
    expect((await nm('getNotificationTemplate', 'OTP_MEMBER_LOGIN', {}, companyUser)).status).toBe(200);
    const w = await nm('updateNotificationTemplate', 'OTP_MEMBER_LOGIN', { title: 'Mine' }, companyUser);
    expect([w.status, w.body.code]).toEqual([403, 1023]);
  });
});

describe('changes through the workflow (template_update, channel_update, status_update)', () => {
  test('template_update waits for the approver; other changes are refused meanwhile; approval applies it', async () => {
    const id = 'OTP_PROGRAM_MANAGEMENT_INVITE';
    const r = await nm('updateNotificationTemplate', id, {
      title: 'Invitation',
      description: 'Invites a back-office user',
    });
    expect(r.status).toBe(200);
    expect(r.body.approval).toMatchObject({
      event: 'template_update',
      approvalStatus: 'pending',
      approvalType: 'manual',
    });
    expect(r.body.requestedTemplate).toMatchObject({ title: 'Invitation' });
    expect(r.body.template.title).not.toBe('Invitation');
    const again = await nm('updateNotificationTemplateStatus', id, { status: 'inactive' });
    expect([again.status, again.body.code]).toEqual([409, 16004]);
    const streamed = await waitFor(
      async () => (await t.rt.documents.get('notification_templates', id))?.pendingApprovalId,
      { what: 'pending approval streamed' },
    );
    expect(streamed).toBe(r.body.approval.id);

    expect((await review(r.body.approval.id, 'approve')).status).toBe(200);
    const after = await settled(id);
    expect(after.template).toMatchObject({
      title: 'Invitation',
      description: 'Invites a back-office user',
      status: 'active',
    });
    expect(after.lastReview).toMatchObject({ event: 'template_update', outcome: 'approved' });
    const log = await t.rt.call('LogManager', 'getLogEntries', undefined, {
      classId: 'NotificationManager',
      entityId: id,
      limit: 100,
    });
    expect(
      (log.body as { entries: { fieldUpdates: { key: string }[] }[] }).entries.some((e) =>
        e.fieldUpdates.some((f) => f.key === 'title'),
      ),
    ).toBe(true);
  });

  test('channel_update: a rejected change leaves the channel as it was; an approved one replaces the fields given', async () => {
    const id = 'OTP_MEMBER_PASSWORD_RESET';
    const before = (await getTemplate(id)).template;
    const rejected = await nm('updateNotificationChannel', id, { channel: 'email', content: { subject: 'Reset now' } });
    expect(rejected.body.approval).toMatchObject({ event: 'channel_update', approvalStatus: 'pending' });
    await review(rejected.body.approval.id, 'reject');
    expect((await settled(id)).template.channels.email.subject).toBe(before.channels.email.subject);

    const approved = await nm('updateNotificationChannel', id, {
      channel: 'sms',
      content: { enabled: true, content: 'Code {{otp}}', to: ['+4479001234567'] },
    });
    await review(approved.body.approval.id, 'approve');
    const after = (await settled(id)).template;
    expect(after.channels.sms).toEqual({ enabled: true, content: 'Code {{otp}}', to: ['+4479001234567'] });
    expect(after.channels.email).toEqual(before.channels.email);
  });

  test('channel content is checked: fields of another channel, templates that do not parse, unescaped html, an enabled channel with nothing to send', async () => {
    const id = 'OTP_MEMBER_LOGIN';
    const other = await nm('updateNotificationChannel', id, { channel: 'sms', content: { html: '<p>x</p>' } });
    expect(other.status).toBe(400);
    const broken = await nm('updateNotificationChannel', id, {
      channel: 'email',
      content: { html: '<p>{{#otp}}</p>' },
    });
    expect([broken.status, broken.body.code, broken.body.details.errors[0].field]).toEqual([
      400,
      16007,
      'channels.email.html',
    ]);
    const raw = await nm('updateNotificationChannel', id, { channel: 'email', content: { html: '<p>{{{otp}}}</p>' } });
    expect([raw.status, raw.body.code]).toEqual([400, 16007]);
    const empty = await nm('updateNotificationChannel', id, { channel: 'in_app', content: { enabled: true } });
    expect([empty.status, empty.body.code, empty.body.details.errors[0].field]).toEqual([
      400,
      16007,
      'channels.in_app.content',
    ]);
    const same = await nm('updateNotificationChannel', id, { channel: 'email', content: { enabled: true } });
    expect([same.status, same.body.code]).toEqual([400, 16006]);
    // nothing of these is pending
    expect((await getTemplate(id)).pendingApproval).toBeNull();
  });

  test('status_update: an inactive template sends nothing; once active again it sends', async () => {
    const id = 'MEMBER_WELCOME';
    const inbox = `M${uid()}`;
    const off = await nm('updateNotificationTemplateStatus', id, { status: 'inactive' });
    expect(off.body.approval).toMatchObject({
      event: 'status_update',
      entityOldStatus: 'active',
      entityNewStatus: 'inactive',
    });
    await review(off.body.approval.id, 'approve');
    expect((await settled(id)).template.status).toBe('inactive');
    expect((await nm('updateNotificationTemplateStatus', id, { status: 'inactive' })).body.code).toBe(16010);

    // 204, and no delivery queued: missing parameters are not even looked at
    const quiet = await send(id, { to: [inbox], parameters: {} });
    expect(quiet.status).toBe(204);
    expect(quiet.body).toBeNull();

    const on = await nm('updateNotificationTemplateStatus', id, { status: 'active' });
    await review(on.body.approval.id, 'approve');
    await waitFor(async () => (await getTemplate(id)).template.status === 'active', { what: 'template active' });
    expect(
      (await send(id, { to: [inbox], parameters: { name: 'Ada', loginUrl: 'https://app.example.com' } })).status,
    ).toBe(204);
    // deliveries of one template run in order: had the inactive send queued one, it would be here first
    const items = await inboxWith(t, inbox, 1);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ templateId: id, content: 'Hello Ada, your account is ready.', status: 'unread' });
  });
});

describe('sending', () => {
  test('the in-app channel fans out to every inbox of the call, members and back-office users, rendered', async () => {
    const id = 'OTP_PROGRAM_MANAGEMENT_PASSWORD_RESET';
    const ch = await nm(
      'updateNotificationChannel',
      id,
      {
        channel: 'in_app',
        content: {
          enabled: true,
          subject: 'Code for {{name}}',
          content: 'Your code is {{otp}} <b>',
          metadata: { kind: 'otp' },
        },
      },
      superUser,
    );
    await review(ch.body.approval.id, 'approve');
    await waitFor(async () => (await getTemplate(id)).template.channels.in_app.enabled === true, {
      what: 'in-app enabled',
    });

    const inboxes = [`M${uid()}`, `M${uid()}`, `M${uid()}`, `PM${uid()}`];
    const r = await send(id, {
      to: [...inboxes, inboxes[0]],
      parameters: { otp: '123456', name: 'Ann & Bob', resetUrl: 'https://bo.example.test/reset-password' },
    });
    expect(r.status).toBe(204);
    for (const inbox of inboxes) {
      const [item] = await inboxWith(t, inbox, 1);
      // text channels insert values as they are (html escaping is for html bodies)
      expect(item).toMatchObject({
        templateId: id,
        subject: 'Code for Ann & Bob',
        content: 'Your code is 123456 <b>',
        metadata: { kind: 'otp' },
        status: 'unread',
        userId: inbox.replace(/^P?M/, ''),
      });
    }
    // the repeated inbox got one item
    expect(await inboxItems(t, inboxes[0]!)).toHaveLength(1);
  });

  test('parameters must be strings and complete; recipients must be addresses, phone numbers or inbox ids', async () => {
    const id = 'OTP_PROGRAM_MANAGEMENT_INVITE';
    await expect(send(id, { to: ['a@example.com'], parameters: { name: 'A' } })).rejects.toMatchObject({
      status: 400,
      code: 16002,
      details: { missing: ['otp', 'inviteUrl'] },
    });
    await expect(send(id, { to: ['a@example.com'] })).rejects.toMatchObject({
      status: 400,
      code: 16002,
      details: { missing: ['name', 'otp', 'inviteUrl'] },
    });
    await expect(
      send(id, { to: ['a@example.com'], parameters: { name: 'A', otp: 123456, inviteUrl: 'u' } }),
    ).rejects.toMatchObject({
      status: 400,
      details: { errors: [expect.objectContaining({ field: 'parameters.otp' })] },
    });
    await expect(
      send(id, { to: ['a@example.com', 'nobody', 'X123'], parameters: { name: 'A', otp: '1', inviteUrl: 'u' } }),
    ).rejects.toMatchObject({
      status: 400,
      code: 16003,
      details: { errors: [expect.objectContaining({ field: 'to.1' }), expect.objectContaining({ field: 'to.2' })] },
    });
  });

  test('sendNotification admits classes only', async () => {
    const r = await nm(
      'sendNotification',
      'OTP_MEMBER_LOGIN',
      { to: ['a@example.com'], parameters: { otp: '1' } },
      superUser,
    );
    expect([r.status, r.body.code]).toEqual([403, 1008]);
  });

  test('a send that belongs to a change happens only if the change commits', async () => {
    const inbox = `M${uid()}`;
    const probe = (fail: boolean) =>
      call(
        t,
        'NotifyProbe',
        'announce',
        'p1',
        {
          templateId: 'MEMBER_WELCOME',
          to: [inbox],
          parameters: { name: fail ? 'Failed' : 'Kept', loginUrl: 'https://x.example' },
          fail,
        },
        superUser,
      );
    expect((await probe(true)).status).toBe(500);
    expect((await probe(false)).status).toBe(200);
    const items = await inboxWith(t, inbox, 1);
    expect(items.map((i) => i.content)).toEqual(['Hello Kept, your account is ready.']);
  });
});
