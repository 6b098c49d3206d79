/**
 * sendSystemEmail end to end: the runtime's SMTP adapter (SMTP_URL) delivers
 * to a real SMTP server started here (smtp-server), and the mail that
 * arrives has the rendered subject, the escaped html and the right
 * recipients. An inactive template sends nothing.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import { SmtpInbox } from './smtp-inbox';
import { freshId, send, startSystemEmailRuntime, templateBody } from './support';

let t: TestRuntime;
let inbox: SmtpInbox;

beforeAll(async () => {
  inbox = await SmtpInbox.start();
  t = await startSystemEmailRuntime({ SMTP_URL: inbox.url, MAIL_FROM: 'Programme <no-reply@example.com>' });
});
afterAll(async () => {
  await t.stop();
  await inbox.stop();
});

let n = 0;
/** a recipient address no other test uses */
const rcpt = () => `r${process.pid}-${++n}@example.com`;

async function template(extra: Record<string, unknown> = {}): Promise<string> {
  const id = freshId('SMTP');
  await t.rt.call('SystemEmail', 'createSystemEmailTemplate', id, {
    ...templateBody(id),
    subject: 'Welcome {{name}}',
    html: '<p>Hello {{name}}, welcome to <b>{{company}}</b></p>',
    ...extra,
  });
  return id;
}

async function arrived(address: string, count = 1) {
  const mails = await waitFor(() => (inbox.to(address).length >= count ? inbox.to(address) : undefined), {
    what: `mail to ${address}`,
  });
  return mails!;
}

test("a rendered mail arrives with its subject, escaped html and the call's recipients", async () => {
  const id = await template();
  const [a, b] = [rcpt(), rcpt()];
  const { enqueued, outcome } = await send(t, id, {
    to: [a, b],
    parameters: { name: 'Tom <T> & "Co"', company: 'ACME', unused: 'x' },
  });
  expect(enqueued.status).toBe(202);
  expect(outcome).toMatchObject({
    status: 'completed',
    result: { body: { templateId: id, to: [a, b], messageId: expect.any(String) } },
  });
  const messageId = (outcome.result!.body as { messageId: string }).messageId;

  const [mail] = await arrived(a);
  expect(mail.recipients.sort()).toEqual([a, b].sort());
  expect(mail.to.sort()).toEqual([a, b].sort());
  expect(mail.subject).toBe('Welcome Tom <T> & "Co"');
  expect(mail.html).toContain('<p>Hello Tom &lt;T&gt; &amp; &quot;Co&quot;, welcome to <b>ACME</b></p>');
  expect(mail.mailFrom).toBe('no-reply@example.com');
  expect(mail.messageId).toBe(`<${messageId}@${t.projectId}>`);
  // one mail for both recipients
  expect(inbox.messages.filter((m) => m.messageId === mail.messageId)).toHaveLength(1);
});

test("without recipients in the call, the template's go", async () => {
  const [a, b] = [rcpt(), rcpt()];
  const id = await template({ to: [a, b] });
  const { outcome } = await send(t, id, { parameters: { name: 'Ann', company: 'ACME' } });
  expect(outcome.status).toBe('completed');
  const [mail] = await arrived(a);
  expect(mail.recipients.sort()).toEqual([a, b].sort());
  expect(mail.subject).toBe('Welcome Ann');
});

test('an inactive template sends nothing; the same template, active again, sends', async () => {
  const [refused, sentinel] = [rcpt(), rcpt()];
  const id = await template({ status: 'inactive' });
  const { outcome } = await send(t, id, { to: [refused], parameters: { name: 'Ann', company: 'ACME' } });
  expect(outcome).toMatchObject({ status: 'failed', error: { status: 409, body: { code: 11005 } } });
  // a refused send for missing parameters sends nothing either
  const active = await template();
  const missing = await send(t, active, { to: [refused], parameters: { name: 'Ann' } });
  expect(missing.outcome).toMatchObject({
    status: 'failed',
    error: { status: 400, body: { code: 11008, details: { missing: ['company'] } } },
  });

  // activated by the system identity (approved at once), the template sends again; its mail is the sentinel:
  // mails are delivered in the order they were committed per template, and the refused sends committed none
  await t.rt.call('SystemEmail', 'updateSystemEmailTemplateStatus', id, { status: 'active' });
  expect((await send(t, id, { to: [sentinel], parameters: { name: 'Ann', company: 'ACME' } })).outcome.status).toBe(
    'completed',
  );
  await arrived(sentinel);
  expect(inbox.to(refused)).toEqual([]);
});
