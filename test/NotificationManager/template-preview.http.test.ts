/**
 * previewTemplate and sendTestMessage of NotificationManager and SystemEmail
 * over HTTP on the whole service, with a real SMTP server receiving what the
 * runtime's SMTP adapter sends: a preview renders with the given parameters
 * and samples for the rest and sends nothing; a test message goes to the
 * caller's own address only; both need the method in the caller's role.
 */
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { SmtpInbox } from '../SystemEmail/smtp-inbox';

let t: TestRuntime;
let inbox: SmtpInbox;
let editorId: string;
let editorEmail: string;
const PREVIEW = ['previewTemplate', 'sendTestMessage'];

beforeAll(async () => {
  inbox = await SmtpInbox.start();
  t = await startTestRuntime({
    env: {
      CLASS_DIRS: 'classes',
      SCHEMA_DIRS: 'schemas',
      SMTP_URL: inbox.url,
      MAIL_FROM: 'Programme <no-reply@example.com>',
      MAIL_BACKOFF_MS: '50',
    },
  });
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    {
      id: 'r-editor',
      name: 'editor',
      level: 10,
      permissions: {
        NotificationManager: ['getNotificationTemplate', ...PREVIEW],
        SystemEmail: ['getSystemEmailTemplate', ...PREVIEW],
      },
    },
    {
      id: 'r-reader',
      name: 'reader',
      level: 10,
      permissions: { NotificationManager: ['getNotificationTemplate'], SystemEmail: ['getSystemEmailTemplate'] },
    },
  ]);
  editorEmail = `editor-${process.pid}@example.com`;
  const created = await t.post(
    `/${t.projectId}/CALL/ProgramManagementUser/createUser`,
    { email: editorEmail, name: 'Eda Editor', type: 'internal', loginMethod: 'email_password', roles: ['r-editor'] },
    as('admin', ['super']),
  );
  expect(created.status).toBe(201);
  editorId = created.body.user?.id ?? created.body.id;
  expect(editorId).toEqual(expect.any(String));
  await t.rt.call('SystemEmail', 'createSystemEmailTemplate', 'WELCOME_TEST', {
    templateId: 'WELCOME_TEST',
    type: 'system',
    status: 'inactive',
    to: ['everyone@example.com'],
    title: 'Welcome',
    subject: 'Welcome {{name}}',
    html: '<p>Dear {{name}}, your code is <b>{{code}}</b>.</p>',
    json: {},
  });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await inbox?.stop();
});

function as(userId: string, roles: string[]) {
  return { authorization: `Bearer ${t.token('program_management_user', userId, roles)}` };
}
const editor = () => as(editorId, ['r-editor']);
const call = (classId: string, method: string, instanceId: string, body: unknown, headers: Record<string, string>) =>
  t.post(`/${t.projectId}/CALL/${classId}/${method}/${instanceId}`, body, headers);

describe('SystemEmail', () => {
  test('previewTemplate renders the given parameters (escaped in html) and [name] for the others, of an inactive template, and sends nothing', async () => {
    const before = inbox.messages.length;
    const r = await call(
      'SystemEmail',
      'previewTemplate',
      'WELCOME_TEST',
      { parameters: { name: 'Tom <T>', unused: 'x' } },
      editor(),
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      templateId: 'WELCOME_TEST',
      status: 'inactive',
      subject: 'Welcome Tom <T>',
      html: '<p>Dear Tom &lt;T&gt;, your code is <b>[code]</b>.</p>',
      parameters: { name: 'Tom <T>', code: '[code]' },
      sampled: ['code'],
    });
    expect(
      (await call('SystemEmail', 'previewTemplate', 'WELCOME_TEST', { parameters: { name: 7 } }, editor())).status,
    ).toBe(400);
    expect(inbox.messages.length).toBe(before);
  });

  test('sendTestMessage mails the rendering, marked [Test], to the caller only', async () => {
    const r = await call(
      'SystemEmail',
      'sendTestMessage',
      'WELCOME_TEST',
      { parameters: { name: 'Ann', code: '4711' } },
      editor(),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      templateId: 'WELCOME_TEST',
      to: [editorEmail],
      sampled: [],
      messageId: expect.any(String),
    });
    const [mail] = (await waitFor(() => (inbox.to(editorEmail).length ? inbox.to(editorEmail) : undefined), {
      what: 'the test mail',
    }))!;
    expect(mail!.subject).toBe('[Test] Welcome Ann');
    expect(mail!.html).toContain('<p>Dear Ann, your code is <b>4711</b>.</p>');
    expect(mail!.recipients).toEqual([editorEmail]);
    expect(mail!.messageId).toBe(`<${r.body.messageId}@${t.projectId}>`);
    expect(inbox.to('everyone@example.com')).toEqual([]);
  });
});

describe('NotificationManager', () => {
  test('previewTemplate renders every channel of a catalogue template never used, without creating it', async () => {
    const r = await call(
      'NotificationManager',
      'previewTemplate',
      'OTP_PROGRAM_MANAGEMENT_LOGIN',
      { parameters: {} },
      editor(),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      templateId: 'OTP_PROGRAM_MANAGEMENT_LOGIN',
      channels: {
        email: { enabled: expect.any(Boolean), subject: expect.any(String), html: expect.any(String) },
        in_app: expect.any(Object),
        sms: expect.any(Object),
      },
    });
    for (const name of r.body.sampled as string[]) expect(r.body.parameters[name]).toBe(`[${name}]`);
    expect(await t.rt.store.read('NotificationManager', 'OTP_PROGRAM_MANAGEMENT_LOGIN')).toBeFalsy();
    expect((await call('NotificationManager', 'previewTemplate', 'NO_SUCH_TEMPLATE', {}, editor())).body).toMatchObject(
      { code: 16000 },
    );
  });

  test('sendTestMessage mails the email channel, marked [Test], to the caller only', async () => {
    const preview = await call(
      'NotificationManager',
      'previewTemplate',
      'OTP_PROGRAM_MANAGEMENT_LOGIN',
      { parameters: { otp: '135790' } },
      editor(),
    );
    const r = await call(
      'NotificationManager',
      'sendTestMessage',
      'OTP_PROGRAM_MANAGEMENT_LOGIN',
      { parameters: { otp: '135790' } },
      editor(),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ templateId: 'OTP_PROGRAM_MANAGEMENT_LOGIN', to: [editorEmail] });
    const mail = await waitFor(
      () => inbox.to(editorEmail).find((m) => m.messageId === `<${r.body.messageId}@${t.projectId}>`),
      { what: 'the notification test mail' },
    );
    expect(mail!.subject).toBe(`[Test] ${preview.body.channels.email.subject}`);
    expect(mail!.html).toContain('<strong>135790</strong>');
    expect(mail!.recipients).toEqual([editorEmail]);
  });
});

test("both need the method in the caller's role; a caller without a user record has no address to send to", async () => {
  const reader = as(editorId, ['r-reader']);
  for (const classId of ['SystemEmail', 'NotificationManager']) {
    const id = classId === 'SystemEmail' ? 'WELCOME_TEST' : 'OTP_PROGRAM_MANAGEMENT_LOGIN';
    expect((await call(classId, 'previewTemplate', id, {}, reader)).status).toBe(403);
    expect((await call(classId, 'sendTestMessage', id, {}, reader)).status).toBe(403);
    expect(
      (await call(classId, 'previewTemplate', id, {}, { 'x-api-key': 'test-integration-key-0123456789' })).status,
    ).toBe(403);
  }
  const stranger = as('no-such-user', ['r-editor']);
  expect((await call('SystemEmail', 'sendTestMessage', 'WELCOME_TEST', {}, stranger)).body).toMatchObject({
    code: 11011,
  });
  expect(
    (await call('NotificationManager', 'sendTestMessage', 'OTP_PROGRAM_MANAGEMENT_LOGIN', {}, stranger)).body,
  ).toMatchObject({ code: 16012 });
});
