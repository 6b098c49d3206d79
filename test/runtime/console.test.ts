/**
 * The operator console (/admin/queues, Bull Board; /admin/dead-letters) over
 * real HTTP on a real runtime and Redis: who may open it, and list, retry,
 * remove and promote through Bull Board's own API, as its page calls it.
 */
import * as path from 'node:path';
import { consoleReadOnly, loadConfig } from '../../runtime/config';
import { consoleToken, crossSite, jobDataForConsole, messageDataForConsole } from '../../runtime/http/console';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let readOnly: TestRuntime;
const OPS_USER = 'ops-user-1';

beforeAll(async () => {
  const env = { CLASS_DIRS: path.join(__dirname, 'console-fixtures'), CONSOLE_USERS: OPS_USER };
  t = await startTestRuntime({ env });
  readOnly = await startTestRuntime({ projectId: t.projectId, env: { ...env, CONSOLE_READ_ONLY: 'true' } });
}, 60_000);
afterAll(async () => {
  await readOnly?.stop();
  await t?.stop();
});

const developer = () =>
  t.rt.tokens.sign({ sub: 'dev-1', identity: 'program_management_user', roles: [], developer: true });
const bearer = () => ({ authorization: `Bearer ${developer()}` });

async function consoleCall(
  method: string,
  pathname: string,
  headers: Record<string, string> = bearer(),
  base = t.base,
) {
  const res = await fetch(base + pathname, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(method === 'PUT' || method === 'POST' ? { body: '{}' } : {}),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* html */
  }
  return { status: res.status, body, headers: res.headers };
}

async function call(method: string, instanceId: string, body: unknown = {}) {
  return t.rt.call('Switch', method, instanceId, body);
}

async function jobEnded(jobId: string) {
  return waitFor(
    async () => {
      const { status } = await t.rt.jobs.status(jobId);
      return status.status === 'completed' || status.status === 'failed' ? status : undefined;
    },
    { what: `job ${jobId} to end` },
  );
}

describe('who may open it', () => {
  test('nobody without credentials: 401 asking for Basic authentication; an API key is no credential here', async () => {
    const none = await consoleCall('GET', '/admin/queues', {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm="operator console"/);
    expect(
      (await consoleCall('GET', '/admin/queues/api/queues', { 'x-api-key': 'test-integration-key-0123456789' })).status,
    ).toBe(401);
    expect((await consoleCall('GET', '/admin/dead-letters', { authorization: 'Bearer not-a-token' })).status).toBe(401);
  });

  test('a back-office user who is no developer and not named by CONSOLE_USERS, or a member: 403', async () => {
    const plain = t.rt.tokens.sign({ sub: 'someone', identity: 'program_management_user', roles: [] });
    expect((await consoleCall('GET', '/admin/queues/api/queues', { authorization: `Bearer ${plain}` })).status).toBe(
      403,
    );
    const member = t.rt.tokens.sign({ sub: 'm-1', identity: 'enduser', roles: [], developer: true });
    expect((await consoleCall('GET', '/admin/queues/api/queues', { authorization: `Bearer ${member}` })).status).toBe(
      403,
    );
  });

  test('a developer with a bearer token, or as the Basic password (a browser); a user CONSOLE_USERS names', async () => {
    const page = await consoleCall('GET', '/admin/queues', bearer());
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('__UI_CONFIG__');
    const basic = `Basic ${Buffer.from(`anyone:${developer()}`).toString('base64')}`;
    expect((await consoleCall('GET', '/admin/queues/api/queues', { authorization: basic })).status).toBe(200);
    const named = t.rt.tokens.sign({ sub: OPS_USER, identity: 'program_management_user', roles: [] });
    expect((await consoleCall('GET', '/admin/dead-letters', { authorization: `Bearer ${named}` })).status).toBe(200);
  });
});

test('lists every queue of the runtime: QUEUED_WRITE and delayed tasks, and mail delivery', async () => {
  const { status, body } = await consoleCall('GET', '/admin/queues/api/queues');
  expect(status).toBe(200);
  const names = (body.queues as { name: string }[]).map((q) => q.name);
  expect(names).toEqual(expect.arrayContaining(['jobs', `msg-${t.projectId}`]));
});

test('a failed QUEUED_WRITE is listed as failed and retried from the console: it runs again and commits', async () => {
  await call('open', 's-retry');
  const { jobId } = (await call('flip', 's-retry', { pin: '9876', note: 'kept' })).body as { jobId: string };
  expect(await jobEnded(jobId)).toMatchObject({ status: 'failed', error: { status: 409 } });
  const listed = await consoleCall(
    'GET',
    '/admin/queues/api/queues?activeQueue=jobs&status=failed&page=1&jobsPerPage=50',
  );
  const jobs = (listed.body.queues as { name: string; jobs: { id: string; data: any }[] }[]).find(
    (q) => q.name === 'jobs',
  )!.jobs;
  expect(jobs.map((j) => j.id)).toContain(jobId);
  // the class's sensitive fields are masked in what the console shows
  const shown = jobs.find((j) => j.id === jobId)!.data;
  expect(shown.body.note).toBe('kept');
  expect(JSON.stringify(listed.body)).not.toContain('9876');

  // from another site a browser would send the credentials too: refused
  expect(
    (
      await consoleCall('PUT', `/admin/queues/api/queues/jobs/${encodeURIComponent(jobId)}/retry`, {
        ...bearer(),
        origin: 'https://elsewhere.example',
      })
    ).status,
  ).toBe(403);

  await call('mend', 's-retry');
  const retried = await consoleCall('PUT', `/admin/queues/api/queues/jobs/${encodeURIComponent(jobId)}/retry`);
  expect(retried.status).toBe(204);
  expect(await jobEnded(jobId)).toMatchObject({ status: 'completed', result: { body: { flips: 1 } } });
  expect((await call('get', 's-retry')).body).toMatchObject({ flips: 1, broken: false });
});

test('adding a job, editing its data, emptying or obliterating a queue is refused', async () => {
  expect((await consoleCall('PUT', `/admin/queues/api/queues/msg-${t.projectId}/empty`)).status).toBe(405);
  expect((await consoleCall('POST', '/admin/queues/api/queues/jobs/add')).status).toBe(405);
  expect((await consoleCall('PATCH', '/admin/queues/api/queues/jobs/some-id/update-data')).status).toBe(405);
  expect((await consoleCall('PUT', '/admin/queues/api/queues/jobs/obliterate')).status).toBe(405);
});

test('CONSOLE_USERS and CONSOLE_READ_ONLY as loadConfig reads them', () => {
  expect(consoleReadOnly({})).toBe(false);
  expect(consoleReadOnly({ CONSOLE_READ_ONLY: 'true' })).toBe(true);
  expect(() => consoleReadOnly({ CONSOLE_READ_ONLY: 'yes' })).toThrow(
    "CONSOLE_READ_ONLY must be true or false, got 'yes'",
  );
  expect(loadConfig({ CONSOLE_USERS: ' ops-1, ops-2 ' }).consoleUsers).toEqual(['ops-1', 'ops-2']);
});

test('a change from another site: judged by Sec-Fetch-Site when the browser sends it, else by Origin', () => {
  expect(crossSite({ 'sec-fetch-site': 'same-origin', origin: 'null' }, 'h:1', 'http')).toBe(false);
  expect(crossSite({ 'sec-fetch-site': 'cross-site', origin: 'http://h:1' }, 'h:1', 'http')).toBe(true);
  expect(crossSite({ 'sec-fetch-site': 'same-site' }, 'h:1', 'http')).toBe(true);
  expect(crossSite({ origin: 'https://evil.example' }, 'h:1', 'http')).toBe(true);
  expect(crossSite({ origin: 'http://h:1' }, 'h:1', 'http')).toBe(false);
  expect(crossSite({}, 'h:1', 'http')).toBe(false);
  expect(consoleToken(`Basic ${Buffer.from('any:tok:en').toString('base64')}`)).toBe('tok:en');
  expect(consoleToken('Bearer abc')).toBe('abc');
  expect(consoleToken(`Basic ${Buffer.from('user:').toString('base64')}`)).toBeUndefined();
});

test('what the console shows of a message job: masked recipients, subject and sizes, never the text', () => {
  const shown = messageDataForConsole({
    port: 'mail',
    message: {
      id: 'm1',
      to: ['anna.b@example.com'],
      bcc: ['zed@example.com'],
      subject: 'Your code',
      html: '<p>code 4711</p>',
      text: 'code 4711',
    },
    from: { classId: 'Member', instanceId: 'x' },
  });
  expect(shown).toEqual({
    port: 'mail',
    id: 'm1',
    to: ['a***@example.com'],
    bcc: ['z***@example.com'],
    subject: 'Your code',
    htmlChars: 16,
    textChars: 9,
    from: { classId: 'Member', instanceId: 'x' },
  });
  expect(
    JSON.stringify(
      messageDataForConsole({ port: 'sms', message: { id: 's1', to: ['+971500000123'], text: 'code 4711' } }),
    ),
  ).not.toMatch(/4711|500000/);
  expect(
    jobDataForConsole({ kind: 'task', task: { classId: 'C', body: { secret: 's', pin: 'p', ok: 1 } } }, () => ['pin']),
  ).toEqual({
    kind: 'task',
    task: {
      classId: 'C',
      body: { secret: expect.not.stringMatching(/^s$/), pin: expect.not.stringMatching(/^p$/), ok: 1 },
    },
  });
});

test('a delayed task is promoted from the console and runs now; a failed job is removed', async () => {
  await call('open', 's-promote');
  await call('mendLater', 's-promote');
  const delayed = await waitFor(
    async () => {
      const { body } = await consoleCall(
        'GET',
        '/admin/queues/api/queues?activeQueue=jobs&status=delayed&page=1&jobsPerPage=50',
      );
      const q = (body.queues as { name: string; jobs: { id: string; data: any }[] }[]).find((x) => x.name === 'jobs')!;
      return q.jobs.find((j) => j.data?.task?.instanceId === 's-promote');
    },
    { what: 'the delayed task in the console' },
  );
  expect(
    (await consoleCall('PUT', `/admin/queues/api/queues/jobs/${encodeURIComponent(delayed!.id)}/promote`)).status,
  ).toBe(204);
  await waitFor(async () => ((await call('get', 's-promote')).body as { broken: boolean }).broken === false, {
    what: 'the promoted task to mend the switch',
  });

  await call('open', 's-remove');
  const { jobId } = (await call('flip', 's-remove')).body as { jobId: string };
  await jobEnded(jobId);
  expect((await consoleCall('PUT', `/admin/queues/api/queues/jobs/${encodeURIComponent(jobId)}/clean`)).status).toBe(
    204,
  );
  expect((await consoleCall('GET', `/admin/queues/api/queues/jobs/${encodeURIComponent(jobId)}`)).status).toBe(404);
});

test('a committed effect its target refused is a dead letter, listed and retried from the console', async () => {
  await call('open', 's-target');
  await call('open', 's-source');
  const { effect } = (await call('poke', 's-source', { target: 's-target' })).body as { effect: string };
  const row = await waitFor(
    async () =>
      ((await consoleCall('GET', '/admin/dead-letters')).body.deadLetters as any[]).find(
        (r) => r.target === 'Switch.flipNow/s-target',
      ),
    { what: 'the dead letter of the refused effect' },
  );
  expect(row).toMatchObject({
    kind: 'effect',
    id: expect.stringMatching(/^effect:\d+:\d+-\d+$/),
    from: { classId: 'Switch', instanceId: 's-source' },
  });
  expect(row.reason).toContain('90409');
  expect(effect).toEqual(expect.any(String));

  const page = await consoleCall('GET', '/admin/dead-letters', { ...bearer(), accept: 'text/html' });
  expect(page.body).toContain(`data-id="${row.id}"`);

  await call('mend', 's-target');
  const retried = await consoleCall('POST', `/admin/dead-letters/${encodeURIComponent(row.id)}/retry`);
  expect(retried).toMatchObject({ status: 200, body: { id: row.id, outcome: 'applied' } });
  expect((await call('get', 's-target')).body).toMatchObject({ flips: 1 });
  const after = (await consoleCall('GET', '/admin/dead-letters')).body.deadLetters as any[];
  expect(after.find((r) => r.id === row.id)).toBeUndefined();
  expect((await consoleCall('POST', `/admin/dead-letters/${encodeURIComponent(row.id)}/retry`)).status).toBe(404);
});

test('CONSOLE_READ_ONLY: the queues are shown, every change is refused', async () => {
  await call('open', 's-ro');
  const { jobId } = (await call('flip', 's-ro')).body as { jobId: string };
  await jobEnded(jobId);
  const seen = await consoleCall('GET', '/admin/queues/api/queues', bearer(), readOnly.base);
  expect(seen.status).toBe(200);
  expect((seen.body.queues as { readOnlyMode: boolean }[]).every((q) => q.readOnlyMode)).toBe(true);
  expect(
    (
      await consoleCall(
        'PUT',
        `/admin/queues/api/queues/jobs/${encodeURIComponent(jobId)}/retry`,
        bearer(),
        readOnly.base,
      )
    ).status,
  ).toBe(405);
  expect((await consoleCall('POST', '/admin/dead-letters/retry-all', bearer(), readOnly.base)).status).toBe(405);
  expect((await t.rt.jobs.status(jobId)).status.status).toBe('failed');
});
