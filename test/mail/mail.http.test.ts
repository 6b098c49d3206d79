/**
 * ctx.mail and ctx.sms through a real runtime (HTTP, Redis, BullMQ worker)
 * and a real SMTP server: a mail belongs to the change that sends it, arrives
 * after the commit, and is never sent for a change that did not commit. With
 * SMTP_URL unset the embedded adapter writes .eml files that /dev/mail lists.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RuntimeCodes } from '../../runtime';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';
import { addressesOf, startSmtpSink, type SmtpSink } from './smtp-sink';

const CLASS_DIRS = `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'fixtures')}`;
const key = { 'x-api-key': TEST_API_KEY };

/** Every committed message has left the effect outbox and the message queue has nothing left to run. */
async function settled(t: TestRuntime): Promise<void> {
  await waitFor(
    async () => {
      const pending = await t.rt.store.redis.xlen(t.rt.store.keys.bucket(0).effects);
      const c = await t.rt.messages.queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
      return pending === 0 && c.wait + c.active + c.delayed + c.prioritized === 0;
    },
    { what: 'effects applied and message queue drained' },
  );
}

describe('ctx.mail over SMTP', () => {
  let sink: SmtpSink;
  let t: TestRuntime;
  beforeAll(async () => {
    sink = await startSmtpSink();
    t = await startTestRuntime({
      projectId: uniqueProjectId('mh'),
      env: { CLASS_DIRS, SMTP_URL: sink.url, MAIL_BACKOFF_MS: '50' },
    });
    expect((await t.post(`/${t.projectId}/CALL/Mailer/open/box`, {}, key)).status).toBe(200);
  });
  afterAll(async () => {
    await t.stop();
    await sink.close();
  });

  const call = (method: string, body: unknown, instance = 'box') =>
    t.post(`/${t.projectId}/CALL/Mailer/${method}/${instance}`, body, key);
  const arrived = (id: string) =>
    waitFor(
      () => {
        const got = sink.acceptedWithId(`<${id}@${t.projectId}>`);
        return got.length ? got : undefined;
      },
      { what: `mail ${id} at the SMTP server` },
    );

  test("a WRITE's mail arrives with its subject, html and recipients, under its id", async () => {
    const res = await call('notify', {
      mail: {
        to: ['anna@example.com'],
        cc: ['carol@example.com'],
        bcc: ['audit@example.com'],
        subject: 'Welcome to the programme',
        html: '<p>Dear <b>Anna</b>, welcome.</p>',
        text: 'Dear Anna, welcome.',
      },
    });
    expect(res.status).toBe(200);
    const id = res.body.id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const [mail] = (await arrived(id))!;
    expect(mail!.parsed.subject).toBe('Welcome to the programme');
    expect(mail!.parsed.html).toContain('<p>Dear <b>Anna</b>, welcome.</p>');
    expect(addressesOf(mail!.parsed.to)).toEqual(['anna@example.com']);
    expect(addressesOf(mail!.parsed.cc)).toEqual(['carol@example.com']);
    expect(mail!.envelopeTo.sort()).toEqual(['anna@example.com', 'audit@example.com', 'carol@example.com']);
    expect(mail!.envelopeFrom).toBe('no-reply@localhost');
    await settled(t);
    expect(sink.acceptedWithId(`<${id}@${t.projectId}>`)).toHaveLength(1);
    expect(await t.rt.messages.wasSent(id)).toBe(true);
  });

  test('a handler that throws after ctx.mail.send sends nothing', async () => {
    const subject = `thrown ${Date.now()}`;
    const failed = await call('notify', { mail: { to: ['x@example.com'], subject, text: 'never' }, fail: true });
    expect(failed.status).toBe(400);
    expect(failed.body.code).toBe(99101);
    // a later mail of the same instance arrives, and once everything committed has been delivered the thrown one is not there
    const ok = await call('notify', { mail: { to: ['x@example.com'], subject: `${subject} (after)`, text: 'yes' } });
    expect(ok.status).toBe(200);
    await arrived(ok.body.id);
    await settled(t);
    expect(sink.accepted.filter((m) => m.parsed.subject === subject)).toEqual([]);
    expect(
      (await t.rt.messages.deadLetters()).filter((l) => (l.message as { subject?: string }).subject === subject),
    ).toEqual([]);
  });

  test('a change whose commit is refused sends nothing', async () => {
    const subject = `refused commit ${Date.now()}`;
    expect((await t.post(`/${t.projectId}/CALL/Mailer/open/other`, {}, key)).status).toBe(200);
    expect(
      (await call('notify', { mail: { to: ['x@example.com'], subject: `${subject} taker`, text: 't' }, slot: 'taken' }))
        .status,
    ).toBe(200);
    // the lookup key is taken: the commit is refused with the mail in it
    const refused = await call(
      'notify',
      { mail: { to: ['x@example.com'], subject, text: 'never' }, slot: 'taken' },
      'other',
    );
    expect(refused.status).toBe(RuntimeCodes.LOOKUP_KEY_TAKEN.status);
    await settled(t);
    expect(sink.accepted.filter((m) => m.parsed.subject === `${subject} taker`)).toHaveLength(1);
    expect(sink.accepted.filter((m) => m.parsed.subject === subject)).toEqual([]);
  });

  test("a STATIC's mail is sent once it has answered", async () => {
    const res = await t.post(
      `/${t.projectId}/CALL/Mailer/announce`,
      { mail: { to: ['all@example.com'], subject: 'Announcement', text: 'News' } },
      key,
    );
    expect(res.status).toBe(200);
    const [mail] = (await arrived(res.body.id))!;
    expect(mail!.parsed.subject).toBe('Announcement');
  });

  test('a bad message is a 400 naming the field, and the change is not committed', async () => {
    const state = async () =>
      JSON.parse((await t.rt.store.redis.hget(t.rt.store.keys.instance('Mailer', 'box'), 's'))!).public.sent as number;
    const sent = await state();
    const res = await call('notify', {
      mail: { to: ['not-an-address'], subject: 'x\nBcc: evil@example.com', html: 'y' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(RuntimeCodes.VALIDATION.code);
    expect(res.body.details.errors).toEqual([
      { field: 'mail.to[0]', reason: 'is not a valid mail address' },
      { field: 'mail.subject', reason: 'must be one line' },
    ]);
    expect(await state()).toBe(sent);
  });

  test('a READ cannot send', async () => {
    const res = await t.get(`/${t.projectId}/CALL/Mailer/peek/box`, key);
    expect(res.status).toBe(RuntimeCodes.READ_ONLY.status);
    expect(res.body.code).toBe(RuntimeCodes.READ_ONLY.code);
  });

  test('an SMS goes to the SMS outbox after the commit', async () => {
    const res = await call('text', { sms: { to: ['+4479001234567'], text: 'Your code is 777111' } });
    expect(res.status).toBe(200);
    const file = path.join(t.rt.config.dataDir, 'sms', 'outbox.jsonl');
    const line = await waitFor(
      async () => {
        const text = await fs.readFile(file, 'utf8').catch(() => '');
        return text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .find((l) => l.id === res.body.id);
      },
      { what: 'the SMS in the outbox' },
    );
    expect(line).toMatchObject({ to: ['+4479001234567'], text: 'Your code is 777111' });
  });

  test('/dev/mail is not served while SMTP is in use', async () => {
    expect((await t.get('/dev/mail')).status).toBe(404);
    expect((await t.get(`/dev/mail/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`)).status).toBe(404);
  });
});

describe('ctx.mail with the embedded adapter (SMTP_URL unset)', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await startTestRuntime({
      projectId: uniqueProjectId('me'),
      env: { CLASS_DIRS, MAIL_FROM: 'Membership <membership@example.com>' },
    });
    expect((await t.post(`/${t.projectId}/CALL/Mailer/open/box`, {}, key)).status).toBe(200);
  });
  afterAll(async () => {
    await t.stop();
    await fs.rm(t.rt.config.dataDir, { recursive: true, force: true });
  });

  test('/dev/mail lists the mail, escaped, with a link to its .eml', async () => {
    const subject = `<script>alert("x")</script> & 'friends'`;
    const res = await t.post(
      `/${t.projectId}/CALL/Mailer/notify/box`,
      { mail: { to: ['anna+tag@example.com'], subject, html: '<p>hi</p>' } },
      key,
    );
    expect(res.status).toBe(200);
    const id = res.body.id as string;
    const page = await waitFor(
      async () => {
        const r = await fetch(`${t.base}/dev/mail`);
        const html = await r.text();
        return html.includes(id) ? { r, html } : undefined;
      },
      { what: '/dev/mail listing the mail' },
    );
    expect(page!.r.status).toBe(200);
    expect(page!.r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page!.r.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(page!.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;friends&#39;');
    expect(page!.html).not.toContain('<script>');
    expect(page!.html).toContain('anna+tag@example.com');
    expect(page!.html).toContain(`href="/dev/mail/${id}"`);

    const eml = await fetch(`${t.base}/dev/mail/${id}.eml`);
    expect(eml.status).toBe(200);
    expect(eml.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const raw = await eml.text();
    expect(raw).toContain(`Message-ID: <${id}@${t.projectId}>`);
    expect(raw).toMatch(/^From: Membership <membership@example\.com>$/m);
    expect(await fs.readdir(path.join(t.rt.config.dataDir, 'mail'))).toContain(`${id}.eml`);
  });

  test('/dev/mail/<id> answers 404 for anything but a mail it wrote', async () => {
    for (const p of [
      '/dev/mail/index.jsonl',
      '/dev/mail/..%2Findex.jsonl',
      `/dev/mail/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`,
    ]) {
      expect((await fetch(`${t.base}${p}`)).status).toBe(404);
    }
  });
});
