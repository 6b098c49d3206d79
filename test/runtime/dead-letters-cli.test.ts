/**
 * `cli dead-letters` and `cli dead-letters:retry` over real Redis and a real
 * SMTP server, beside a running runtime: an effect its target refused and a
 * mail the server refused are listed, retried once their cause is gone (the
 * effect applied by the CLI, the mail sent by the service's worker), and
 * leave the list; the mail delivery metrics count the refusal, the retry
 * and the send.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../runtime/config';
import { startSmtpSink, type SmtpSink } from '../mail/smtp-sink';
import { startTestRuntime, testEnv, waitFor, type TestRuntime } from '../support/harness';

const run = promisify(execFile);
let t: TestRuntime;
let sink: SmtpSink;
const CLASS_DIRS = `${path.join(__dirname, 'console-fixtures')},${path.join(__dirname, '../mail/fixtures')}`;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startTestRuntime({ env: { CLASS_DIRS, SMTP_URL: sink.url } });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await sink?.close();
});

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(projectRoot(), 'runtime/cli.ts'), ...args],
      {
        cwd: projectRoot(),
        env: { ...process.env, ...testEnv(t.projectId, { LOG_LEVEL: 'warn', CLASS_DIRS, SMTP_URL: sink.url }) },
      },
    );
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${t.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : NaN;
}

test('an effect and a mail given up on are listed by the CLI, retried once their cause is gone, and leave the list', async () => {
  // an effect its target refuses: dead at once
  await t.rt.call('Switch', 'open', 'target', {});
  await t.rt.call('Switch', 'open', 'source', {});
  await t.rt.call('Switch', 'poke', 'source', { target: 'target' });
  // a mail the SMTP server refuses for good (5xx): dead at once
  sink.policy = () => ({ code: 550, message: 'mailbox unavailable' });
  await t.rt.call('Mailer', 'open', 'box', {});
  const { id: messageId } = (
    await t.rt.call('Mailer', 'notify', 'box', {
      mail: { to: ['dora@example.com'], subject: 'Your code', text: 'code 1234' },
    })
  ).body as { id: string };
  await waitFor(async () => (await t.rt.messages.deadLetterCount()) === 1, { what: 'the mail to be dead-lettered' });
  await waitFor(async () => (await metric('runtime_dead_letters', 'kind="effect"')) === 1, {
    what: 'the effect to be dead-lettered',
  });
  expect(await metric('runtime_messages_failed_total', 'port="mail"')).toBe(1);
  expect(await metric('runtime_messages_sent_total', 'port="mail"')).toBe(0);

  // side by side: each CLI run is mostly its start
  const [listed, unknown] = await Promise.all([cli('dead-letters'), cli('dead-letters:retry', 'effect:0:1-0')]);
  expect(listed.code).toBe(0);
  const rows = JSON.parse(listed.out).deadLetters as Record<string, any>[];
  expect(rows).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        kind: 'effect',
        target: 'Switch.flipNow/target',
        from: { classId: 'Switch', instanceId: 'source' },
        id: expect.stringMatching(/^effect:\d+:/),
      }),
      expect.objectContaining({
        kind: 'message',
        id: `message:${messageId}`,
        target: 'mail d***@example.com',
        subject: 'Your code',
        reason: expect.stringContaining('550'),
      }),
    ]),
  );
  // the listing masks recipients: the address is nowhere in it
  expect(listed.out).not.toContain('dora@example.com');

  expect(unknown.code).toBe(1);
  expect(unknown.out).toContain('no dead letter effect:0:1-0');

  // the causes are gone: the target mended, the server accepting
  await t.rt.call('Switch', 'mend', 'target', {});
  sink.policy = () => 'accept';
  const retried = await cli('dead-letters:retry', '--all');
  expect(retried.code).toBe(0);
  const out = JSON.parse(retried.out) as { retried: { id: string; outcome: string }[]; failed: unknown[] };
  expect(out.failed).toEqual([]);
  expect(out.retried).toEqual(
    expect.arrayContaining([
      { id: rows.find((r) => r.kind === 'effect')!.id, outcome: 'applied' },
      { id: `message:${messageId}`, outcome: 'queued' },
    ]),
  );

  expect(((await t.rt.call('Switch', 'get', 'target', {})).body as { flips: number }).flips).toBe(1);
  // the service's worker sends the mail; its letter leaves the list once it is sent
  await waitFor(() => sink.acceptedWithId(`<${messageId}@${t.projectId}>`).length === 1, {
    what: 'the retried mail to arrive',
  });
  await waitFor(async () => (await t.rt.messages.deadLetterCount()) === 0, {
    what: "the mail's dead letter to leave the list",
  });
  expect(JSON.parse((await cli('dead-letters')).out).deadLetters).toEqual([]);

  expect(await metric('runtime_messages_sent_total', 'port="mail"')).toBe(1);
  expect(await metric('runtime_messages_retried_total', 'port="mail"')).toBe(1);
  expect(await metric('runtime_messages_failed_total', 'port="mail"')).toBe(1);
  expect(await metric('runtime_message_delivery_seconds_count', 'port="mail"')).toBe(1);
  expect(await metric('runtime_dead_letters', 'kind="message"')).toBe(0);
}, 90_000);
