/**
 * ctx.ports.traces (runtime/traces.ts) on real runtimes over HTTP, real Redis
 * and BullMQ, with the example class Trail: an erasure removes the records of
 * past calls that hold a person's values from each store (finished jobs and
 * their events, kept idempotency answers, journal entries and their subject
 * index, dead-lettered effects and messages, .eml files and their listing, the
 * SMS outbox) and leaves every other record, other projects' and work not
 * done yet (waiting and delayed jobs) alone; a value is found in its
 * JSON-escaped and mail-encoded forms; short values are ignored; a second
 * erasure finds nothing.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { RedisJournals } from '../../runtime/actor/journal';
import { readableMail, RuntimeTraces, traceNeedles } from '../../runtime/traces';
import type { TraceErasure } from '../../runtime';
import { startSmtpSink, type SmtpSink } from '../mail/smtp-sink';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { redisUrl, uniqueProjectId } from '../support/redis';

const key = { 'x-api-key': TEST_API_KEY };
const uid = uniqueProjectId('');
/** the person whose traces are forgotten: a quote and a non-ASCII letter, escaped in JSON and encoded in mail */
const person = `Zoë "Quinn" O'Brien ${uid}`;
const email = `zoe.${uid}@example.com`;
const employeeId = `E-${uid}`;
const phone = `+44700${uid.replace(/\D/g, '').padEnd(6, '1').slice(0, 6)}`;
/** somebody else, whose traces stay */
const other = `Otto Other ${uid}`;
const otherEmail = `otto.${uid}@example.com`;
const otherId = `O-${uid}`;

let redis: Redis;
beforeAll(() => {
  redis = new Redis(redisUrl());
});
afterAll(() => redis.disconnect());

const call = (t: TestRuntime, method: string, instance: string | undefined, body: unknown, headers = key) =>
  t.post(`/${t.projectId}/CALL/Trail/${method}${instance ? `/${instance}` : ''}`, body, headers);

async function forget(t: TestRuntime, values: string[]): Promise<TraceErasure> {
  const r = await call(t, 'forget', undefined, { values });
  expect(r.status).toBe(200);
  return r.body as TraceErasure;
}

async function finished(t: TestRuntime, jobId: string, status: 'completed' | 'failed') {
  await waitFor(async () => (await t.get(`/${t.projectId}/JOBS/${jobId}`, key)).body?.status === status, {
    what: `job ${jobId} ${status}`,
  });
  // the outcome is stored before BullMQ moves the job: wait for BullMQ too
  await waitFor(async () => (await t.rt.jobs.getJob(jobId)?.then((j) => j?.getState())) === status, {
    what: `BullMQ's job ${jobId} ${status}`,
  });
}

const byStore = (counts: Partial<TraceErasure['byStore']>): TraceErasure['byStore'] => ({
  jobs: 0,
  jobEvents: 0,
  answers: 0,
  journals: 0,
  deadLetters: 0,
  mailFiles: 0,
  mailIndex: 0,
  smsOutbox: 0,
  ...counts,
});

/** the runtime's eraser with pages of 2, so a few records cross page boundaries */
function smallPages(t: TestRuntime): RuntimeTraces {
  return new RuntimeTraces({
    redis: t.rt.redis,
    keys: t.rt.store.keys,
    logger: t.rt.logger,
    journalOf: (name) => t.rt.registry.journal(name),
    parts: () => ({
      callQueues: t.rt.jobs.queues,
      messages: t.rt.messages,
      journals: new RedisJournals(t.rt.redis, t.projectId),
    }),
    pages: { jobs: 2, entries: 2, letters: 2 },
  });
}

const lines = async (file: string) => (await fs.readFile(file, 'utf8')).split('\n').filter(Boolean);

describe('forgetting a person on a runtime with the embedded mail adapter', () => {
  let t: TestRuntime;
  let dataDir: string;
  beforeAll(async () => {
    t = await startTestRuntime({ env: { MAIL_BACKOFF_MS: '50' } });
    dataDir = t.rt.config.dataDir;
    for (const id of ['p', 'o']) expect((await call(t, 'open', id, {})).status).toBe(200);
  });
  afterAll(() => t.stop());

  test('each store loses the records holding the values, keeps the others, and says how many it removed', async () => {
    // kept answers of idempotency keys
    const personAnswer = { ...key, 'idempotency-key': `k-person-${uid}` };
    const otherAnswer = { ...key, 'idempotency-key': `k-other-${uid}` };
    expect((await call(t, 'absorb', 'p', { note: person }, personAnswer)).body).toEqual({ kept: person });
    expect((await call(t, 'absorb', 'o', { note: other }, otherAnswer)).body).toEqual({ kept: other });
    // journal entries, indexed by subject
    expect((await call(t, 'record', undefined, { subject: employeeId })).status).toBe(200);
    expect((await call(t, 'record', undefined, { subject: otherId })).status).toBe(200);
    // finished jobs: completed and failed, and the other's
    const kept = (await call(t, 'keep', 'p', { note: person })).body.jobId as string;
    const refused = (await call(t, 'keep', 'p', { note: person, refuse: true })).body.jobId as string;
    const otherKept = (await call(t, 'keep', 'o', { note: other })).body.jobId as string;
    // mail, SMS and an effect its target refuses (dead-lettered)
    const told = await call(t, 'tell', 'p', {
      mail: { to: [email], subject: `Hello ${person}`, text: `Dear ${person},\nyour number is ${employeeId}.` },
      sms: { to: [phone], text: `Hi ${person}` },
      lostNote: person,
    });
    expect(told.status).toBe(200);
    const otherTold = await call(t, 'tell', 'o', {
      mail: { to: [otherEmail], subject: `Hello ${other}`, text: `Dear ${other}` },
      sms: { to: ['+447009999999'], text: `Hi ${other}` },
      lostNote: other,
    });
    expect(otherTold.status).toBe(200);

    await finished(t, kept, 'completed');
    await finished(t, refused, 'failed');
    await finished(t, otherKept, 'completed');
    const mailDir = path.join(dataDir, 'mail');
    const sms = path.join(dataDir, 'sms', 'outbox.jsonl');
    const journal = `rt:{${t.projectId}:journal:trail}`;
    const effectsDead = t.rt.store.keys.bucket(0).effectsDead;
    const messageJobs = [told.body.mail, told.body.sms, otherTold.body.mail, otherTold.body.sms] as string[];
    await waitFor(
      async () => {
        const states = await Promise.all(
          messageJobs.map(async (id) => (await t.rt.messages.queue.getJob(id))?.getState()),
        );
        const emls = await Promise.all(
          [told.body.mail, otherTold.body.mail].map((id) =>
            fs.stat(path.join(mailDir, `${id}.eml`)).then(
              () => 1,
              () => 0,
            ),
          ),
        );
        return (
          states.every((s) => s === 'completed') &&
          emls.every(Boolean) &&
          (await redis.xlen(journal)) === 2 &&
          (await redis.xlen(effectsDead)) === 2
        );
      },
      { what: 'messages sent, journal entries and dead letters written' },
    );
    const resultKey = t.rt.store.keys.jobResult('Trail', 'p', kept);
    expect(await redis.get(resultKey)).toContain('Zoë \\"Quinn\\"');
    expect((await lines(sms)).length).toBe(2);

    const info = jest.spyOn(t.rt.logger, 'info');
    const erasure = await forget(t, [person, email, employeeId]);
    // the completed keep's event repeats its answer; mail and SMS jobs answer {sent}: no value in their events
    const expected = byStore({
      jobs: 4,
      jobEvents: 1,
      answers: 1,
      journals: 1,
      deadLetters: 1,
      mailFiles: 1,
      mailIndex: 1,
      smsOutbox: 1,
    });
    expect(erasure).toEqual({ removed: 11, byStore: expected });
    // one log line, with the counts and never a value
    const logged = info.mock.calls.filter((c) => c[1] === 'traces forgotten');
    info.mockRestore();
    expect(logged).toHaveLength(1);
    expect(logged[0][0]).toMatchObject({ removed: 11, byStore: expected, values: 3 });
    expect(JSON.stringify(logged[0])).not.toContain(uid);

    // jobs: the person's are gone (the outcome of the kept one stays without its body), the other's stays
    for (const id of [kept, refused]) expect(await t.rt.jobs.getJob(id)).toBeUndefined();
    expect(JSON.parse((await redis.get(resultKey))!)).toEqual({ status: 200, body: null, headers: {}, erased: true });
    expect((await t.rt.jobs.getJob(otherKept))?.data).toMatchObject({ body: { note: other } });
    for (const id of [told.body.mail, told.body.sms]) expect(await t.rt.messages.queue.getJob(id)).toBeUndefined();
    for (const id of [otherTold.body.mail, otherTold.body.sms])
      expect(await t.rt.messages.queue.getJob(id)).toBeDefined();
    const events = JSON.stringify(await redis.xrange(t.rt.jobs.queue.keys.events, '-', '+'));
    expect(events).not.toContain('Quinn');
    expect(events).toContain('Otto Other');

    // answers: a repeat is still not run again; it gets the first status and no body; the other's replays in full
    const again = await call(t, 'absorb', 'p', { note: person }, personAnswer);
    expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([200, null, 'true']);
    const otherAgain = await call(t, 'absorb', 'o', { note: other }, otherAnswer);
    expect([otherAgain.status, otherAgain.body]).toEqual([200, { kept: other }]);

    // journal: the entry and its place in its subject's index
    const entries = (await redis.xrange(journal, '-', '+')).map(([, f]) => f[1]);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toContain(otherId);
    expect(await redis.exists(`${journal}:s:${sha256(employeeId)}`)).toBe(0);
    expect(await redis.llen(`${journal}:s:${sha256(otherId)}`)).toBe(1);

    // dead letters: the other's effect stays
    const dead = (await redis.xrange(effectsDead, '-', '+')).map(([, f]) => f.join(' '));
    expect(dead).toHaveLength(1);
    expect(dead[0]).toContain(other);

    // mail files and their listing, SMS outbox
    await expect(fs.stat(path.join(mailDir, `${told.body.mail}.eml`))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await fs.readFile(path.join(mailDir, `${otherTold.body.mail}.eml`), 'utf8')).length).toBeGreaterThan(0);
    const index = await lines(path.join(mailDir, 'index.jsonl'));
    expect(index.map((l) => JSON.parse(l).id)).toEqual([otherTold.body.mail]);
    const outbox = await lines(sms);
    expect(outbox).toHaveLength(1);
    expect(JSON.parse(outbox[0])).toMatchObject({ text: `Hi ${other}` });
    expect((await fs.readdir(path.join(dataDir, 'sms'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    // the /dev/mail listing follows the index
    const listing = await (await fetch(`${t.base}/dev/mail`)).text();
    expect(listing).not.toContain(email);

    // a second erasure finds nothing
    expect(await forget(t, [person, email, employeeId])).toEqual({ removed: 0, byStore: byStore({}) });
  });

  test('a value only the decoded mail shows (encoded subject, quoted-printable body) is found in its .eml file', async () => {
    const name = `Zoë-${uid}`;
    const id = (
      await call(t, 'tell', 'o', {
        mail: { to: ['someone@example.com'], subject: `Für ${name}`, text: `Grüße an ${name}` },
      })
    ).body.mail as string;
    const file = path.join(dataDir, 'mail', `${id}.eml`);
    await waitFor(
      () =>
        fs.stat(file).then(
          () => true,
          () => false,
        ),
      { what: 'the mail written' },
    );
    await waitFor(async () => (await (await t.rt.messages.queue.getJob(id))?.getState()) === 'completed', {
      what: 'its job completed',
    });
    const raw = await fs.readFile(file, 'utf8');
    expect(raw).not.toContain(name);
    // the file, its listing line (by its id) and its job
    expect(await forget(t, [name])).toEqual({
      removed: 3,
      byStore: byStore({ jobs: 1, mailFiles: 1, mailIndex: 1 }),
    });
    await expect(fs.stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('values shorter than 3 characters are ignored; another project is never touched', async () => {
    const elsewhere = `rt:${uniqueProjectId('x')}:idem:${uid}`;
    await redis.set(
      elsewhere,
      JSON.stringify({ state: 'done', hash: 'h', status: 200, kind: 'json', body: other }),
      'EX',
      60,
    );
    const jobs = await t.rt.jobs.queue.getJobCounts('completed', 'failed');
    expect(await forget(t, ['Ot', ' t ', '', 'ab'])).toEqual({ removed: 0, byStore: byStore({}) });
    expect(await t.rt.jobs.queue.getJobCounts('completed', 'failed')).toEqual(jobs);
    expect((await forget(t, [other])).byStore.answers).toBe(1);
    expect(await redis.get(elsewhere)).toContain(other);
    await redis.del(elsewhere);
  });

  test('records on either side of page boundaries are all found, and only those', async () => {
    const pager = `Pager-${uid}`;
    const keeper = `Keeper-${uid}`;
    const order = [pager, keeper, pager, pager, keeper, pager, keeper];
    const jobs: string[] = [];
    for (const note of order) jobs.push((await call(t, 'keep', 'p', { note })).body.jobId);
    for (const subject of order) expect((await call(t, 'record', undefined, { subject })).status).toBe(200);
    for (const id of jobs) await finished(t, id, 'completed');
    const journal = `rt:{${t.projectId}:journal:trail}`;
    const entries = async () => (await redis.xrange(journal, '-', '+')).map(([, f]) => JSON.parse(f[1]).data.subject);
    await waitFor(async () => (await entries()).filter((s) => s === pager || s === keeper).length === 7, {
      what: 'the journal entries written',
    });

    const erasure = await smallPages(t).forget([pager]);
    expect(erasure.byStore).toEqual(byStore({ jobs: 4, jobEvents: 4, journals: 4 }));
    for (let i = 0; i < order.length; i++)
      expect({ job: i, kept: (await t.rt.jobs.getJob(jobs[i])) !== undefined }).toEqual({
        job: i,
        kept: order[i] === keeper,
      });
    expect((await entries()).filter((s) => s === pager || s === keeper)).toEqual([keeper, keeper, keeper]);
    expect((await smallPages(t).forget([pager])).removed).toBe(0);
  });
});

describe('work not done yet', () => {
  let idle: TestRuntime;
  beforeAll(async () => {
    // no worker: queued jobs wait, parked and delayed ones stay delayed, mails wait for delivery
    idle = await startTestRuntime({ env: { ROLES: 'api' } });
    expect((await call(idle, 'open', 'p', {})).status).toBe(200);
  });
  afterAll(() => idle.stop());

  test('waiting and delayed jobs holding the values are never touched', async () => {
    const head = (await call(idle, 'keep', 'p', { note: person })).body.jobId as string;
    const parked = (await call(idle, 'keep', 'p', { note: person })).body.jobId as string;
    expect((await call(idle, 'later', 'p', { note: person, delaySeconds: 3600 })).status).toBe(200);
    const mail = (await call(idle, 'tell', 'p', { mail: { to: [email], subject: 'Hello', text: person } })).body
      .mail as string;
    await waitFor(async () => (await idle.rt.messages.queue.getJob(mail)) !== undefined, { what: 'the mail queued' });
    await waitFor(async () => (await idle.rt.jobs.queue.getJobCounts('delayed')).delayed === 2, {
      what: 'the parked job and the task delayed',
    });

    expect(await forget(idle, [person, email])).toEqual({ removed: 0, byStore: byStore({}) });
    expect(await (await idle.rt.jobs.getJob(head))?.getState()).toBe('waiting');
    expect(await (await idle.rt.jobs.getJob(parked))?.getState()).toBe('delayed');
    const delayed = await idle.rt.jobs.queue.getJobs('delayed');
    expect(delayed.map((j) => JSON.stringify(j.data)).filter((d) => d.includes('Quinn'))).toHaveLength(2);
    expect(await (await idle.rt.messages.queue.getJob(mail))?.getState()).toBe('waiting');
  });
});

describe('dead-lettered messages', () => {
  let sink: SmtpSink;
  let t: TestRuntime;
  beforeAll(async () => {
    sink = await startSmtpSink();
    // every mail refused for good: dead-lettered at once
    sink.policy = () => ({ code: 550, message: 'mailbox unavailable' });
    t = await startTestRuntime({ env: { SMTP_URL: sink.url } });
    expect((await call(t, 'open', 'p', {})).status).toBe(200);
  });
  afterAll(async () => {
    await t.stop();
    await sink.close();
  });

  test("a letter holding a value leaves the list with its retry copy and its failed job; another's stays", async () => {
    const mine = (await call(t, 'tell', 'p', { mail: { to: [email], subject: 'Hi', text: 'x' } })).body.mail as string;
    const theirs = (await call(t, 'tell', 'p', { mail: { to: [otherEmail], subject: 'Hi', text: 'x' } })).body
      .mail as string;
    await waitFor(async () => (await t.rt.messages.deadLetterCount()) === 2, { what: 'both mails dead-lettered' });
    await waitFor(
      async () =>
        (await Promise.all([mine, theirs].map(async (id) => (await t.rt.messages.queue.getJob(id))?.getState()))).every(
          (s) => s === 'failed',
        ),
      { what: 'both message jobs failed' },
    );
    expect(await redis.exists(t.rt.messages.deadMarkKey(mine))).toBe(1);

    expect(await forget(t, [email])).toEqual({ removed: 2, byStore: byStore({ jobs: 1, deadLetters: 1 }) });
    expect((await t.rt.messages.deadLetters()).map((l) => l.id)).toEqual([theirs]);
    expect(await redis.exists(t.rt.messages.deadMarkKey(mine))).toBe(0);
    expect(await redis.exists(t.rt.messages.deadMarkKey(theirs))).toBe(1);
    expect(await t.rt.messages.queue.getJob(mine)).toBeUndefined();
    // nothing left to send it again from
    expect(await t.rt.messages.retryDeadLetter(mine)).toBe(false);
  });

  test('letters on either side of page boundaries are all found, and only those', async () => {
    const mine = `paged.${uid}@example.com`;
    const order = [mine, otherEmail, mine, mine, otherEmail, mine];
    const ids: string[] = [];
    for (const to of order)
      ids.push((await call(t, 'tell', 'p', { mail: { to: [to], subject: 'Hi', text: 'x' } })).body.mail);
    await waitFor(
      async () => {
        const dead = new Set((await t.rt.messages.deadLetters(1000)).map((l) => l.id));
        return ids.every((id) => dead.has(id));
      },
      { what: 'the mails dead-lettered' },
    );
    expect((await smallPages(t).forget([mine])).byStore).toMatchObject({ deadLetters: 4 });
    const left = new Set((await t.rt.messages.deadLetters(1000)).map((l) => l.id));
    expect(ids.map((id) => left.has(id))).toEqual(order.map((to) => to !== mine));
  });
});

describe('what an erasure compares records with', () => {
  test('a value, its JSON-escaped forms, and nothing for short ones', () => {
    expect(traceNeedles(['ab', '  x ', 7 as unknown as string])).toEqual([]);
    const needles = traceNeedles(['Zoë "Q" a/b']);
    expect(needles).toEqual(
      expect.arrayContaining([
        'Zoë "Q" a/b',
        'Zoë \\"Q\\" a/b',
        'Zoë \\"Q\\" a\\/b',
        'Zo\\u00eb \\"Q\\" a/b',
        'Zo\\u00EB \\"Q\\" a/b',
        'Zoë \\\\\\"Q\\\\\\" a/b',
      ]),
    );
  });

  test('a stored mail is read with its encoded words and quoted-printable parts decoded', () => {
    const eml = [
      'To: =?UTF-8?Q?Zo=C3=AB_=22Q=22?= <zoe@example.com>',
      'Subject: =?UTF-8?Q?Hello_Zo=C3=AB_the_lo?=',
      ' =?UTF-8?Q?ngest?=',
      'Content-Type: multipart/alternative; boundary="--b"',
      '',
      '----b',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Dear Zo=C3=AB-with-a-name-that-wra=',
      'ps',
      '----b',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('<p>O&#39;Brien &amp; Zo&#xEB;</p>').toString('base64'),
      '----b--',
      '',
    ].join('\n');
    const text = readableMail(Buffer.from(eml));
    for (const seen of ['Zoë "Q"', 'Hello Zoë the longest', 'Zoë-with-a-name-that-wraps', "O'Brien & Zoë"])
      expect(text).toContain(seen);
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
