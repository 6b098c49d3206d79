/**
 * The email and SMS channels end to end: sendNotification → its delivery job
 * → ctx.mail.send / ctx.sms.send → the message queue → a real SMTP server
 * (test/mail/smtp-sink.ts, the `smtp-server` package) and the SMS outbox.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TestRuntime } from '../support/harness';
import { waitFor } from '../support/harness';
import { addressesOf, startSmtpSink, type ReceivedMail, type SmtpSink } from '../mail/smtp-sink';
import { bearer, call, inboxWith, seedNotifyRoles, startNotifyRuntime, uid, type Headers } from './support';

let t: TestRuntime;
let sink: SmtpSink;
let editor: Headers;
let approver: Headers;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startNotifyRuntime({ env: { SMTP_URL: sink.url, MAIL_BACKOFF_MS: '50' } });
  await seedNotifyRoles(t);
  editor = bearer(t, 'program_management_user', 'pm-editor', ['editor']);
  approver = bearer(t, 'program_management_user', 'pm-approver', ['approver']);
});
afterAll(async () => {
  await t.stop();
  await sink.close();
});

const send = (id: string, body: unknown) => t.rt.call('NotificationManager', 'sendNotification', id, body);
/** mails whose envelope names the address (compared case-insensitively) */
const mailsTo = (address: string): ReceivedMail[] =>
  sink.accepted.filter((m) => m.envelopeTo.some((a) => a.toLowerCase() === address.toLowerCase()));
/** waits for the mails to an address; answers them */
const mailTo = (address: string) =>
  waitFor(() => (mailsTo(address).length ? mailsTo(address) : undefined), { what: `mail to ${address}` }) as Promise<
    ReceivedMail[]
  >;

/** a channel change through its approval (channel_update waits for an approver by default) */
async function changeChannel(id: string, channel: string, content: Record<string, unknown>): Promise<void> {
  const r = await call(t, 'NotificationManager', 'updateNotificationChannel', id, { channel, content }, editor);
  expect(r.body.approval).toMatchObject({ event: 'channel_update', approvalStatus: 'pending', approvalType: 'manual' });
  expect(
    (await call(t, 'ApprovalManager', 'reviewApproval', r.body.approval.id, { action: 'approve' }, approver)).status,
  ).toBe(200);
  await waitFor(
    async () =>
      ((await t.rt.call('NotificationManager', 'getNotificationTemplate', id, {})).body as { pendingApproval: unknown })
        .pendingApproval === null,
    {
      what: `${id} ${channel} change applied`,
    },
  );
}

test('a rendered mail arrives with its subject, escaped html and one recipient per message', async () => {
  const to = [`a-${uid()}@example.com`, `b-${uid()}@example.com`];
  expect(
    (
      await send('OTP_PROGRAM_MANAGEMENT_INVITE', {
        to,
        parameters: { name: 'Ann <script>', otp: '482913', inviteUrl: 'https://bo.example.test/accept-invitation' },
      })
    ).status,
  ).toBe(204);
  for (const address of to) {
    const [mail] = await mailTo(address);
    expect(mail!.parsed.subject).toBe('You are invited to the Membership Program back office');
    expect(addressesOf(mail!.parsed.to)).toEqual([address]);
    expect(mail!.envelopeTo).toEqual([address]);
    expect(mail!.parsed.html).toContain('<strong>482913</strong>');
    expect(mail!.parsed.html).toContain('Hello Ann &lt;script&gt;,');
  }
});

test("the call's recipients are merged with the channel's default recipients", async () => {
  const ops = `ops-${uid()}@example.com`;
  await changeChannel('OTP_MEMBER_PASSWORD_RESET', 'email', { to: [ops] });
  const member = `m-${uid()}@example.com`;
  await send('OTP_MEMBER_PASSWORD_RESET', {
    to: [member, ops.toUpperCase()],
    parameters: { otp: '111222', resetUrl: 'https://app.example.test/reset-password' },
  });
  const [toMember] = await mailTo(member);
  const [toOps] = await mailTo(ops);
  expect(toMember!.parsed.html).toContain('111222');
  expect(toOps!.parsed.html).toContain('111222');
  // the default recipient named again by the call (in another case) is one recipient: a later send's mail
  // arriving before a second one to it shows there was none (deliveries of one template run in order)
  const marker = `m-${uid()}@example.com`;
  await send('OTP_MEMBER_PASSWORD_RESET', {
    to: [marker],
    parameters: { otp: '333444', resetUrl: 'https://app.example.test/reset-password' },
  });
  await mailTo(marker);
  // (the marker's send went to the default recipient too)
  expect(mailsTo(ops).filter((m) => String(m.parsed.html).includes('111222'))).toHaveLength(1);
});

test('one send with email and in-app channels: every address gets its mail and every inbox its item', async () => {
  const members = Array.from({ length: 5 }, () => uid('m'));
  const to = members.flatMap((m) => [`${m}@example.com`, `M${m}`]);
  expect(
    (
      await send('MEMBER_WELCOME', {
        to,
        parameters: { name: 'Bo', loginUrl: 'https://app.example.com/login?a=1&b=2' },
      })
    ).status,
  ).toBe(204);
  for (const m of members) {
    const [item] = await inboxWith(t, `M${m}`, 1);
    expect(item).toMatchObject({
      templateId: 'MEMBER_WELCOME',
      subject: 'Welcome to the Membership Program',
      content: 'Hello Bo, your account is ready.',
    });
    const [mail] = await mailTo(`${m}@example.com`);
    // mustache's HTML escape (& < > " ' / ` =), which browsers read back in attributes too
    expect(mail!.parsed.html).toContain('href="https:&#x2F;&#x2F;app.example.com&#x2F;login?a&#x3D;1&amp;b&#x3D;2"');
  }
});

test('the SMS channel sends one SMS per number, the call merged with its defaults, to the SMS outbox', async () => {
  const fallback = '+15550009999';
  await changeChannel('OTP_MEMBER_LOGIN', 'sms', { enabled: true, content: 'Your code is {{otp}}', to: [fallback] });
  const phone = `+4479${String(Date.now()).slice(-8)}`;
  await send('OTP_MEMBER_LOGIN', { to: [phone], parameters: { otp: '909090' } });
  const file = path.join(t.rt.config.dataDir, 'sms', 'outbox.jsonl');
  const lines = (await waitFor(
    async () => {
      const text = await fs.readFile(file, 'utf8').catch(() => '');
      const sms = text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { to: string[]; text: string });
      const mine = sms.filter((s) => s.text === 'Your code is 909090');
      return mine.length >= 2 ? mine : undefined;
    },
    { what: 'two SMS in the outbox' },
  ))!;
  expect(lines.map((s) => s.to).sort()).toEqual([[fallback], [phone]].sort());
});
