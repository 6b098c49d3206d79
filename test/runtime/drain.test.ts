/**
 * Graceful drain: on SIGTERM a runtime process answers /ready with
 * 503, stops accepting connections, lets the calls in flight finish and
 * commit, closes idle kept-alive connections, and exits 0.
 */
import { spawnSync } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { Redis } from 'ioredis';
import { Keys } from '../../runtime/actor/state-store';
import { startTestRuntime, TEST_API_KEY, testEnv, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { redisUrl, uniqueProjectId } from '../support/redis';

const running: RuntimeProcess[] = [];
const inProcess: TestRuntime[] = [];
let redis: Redis;

beforeAll(() => {
  redis = new Redis(redisUrl());
});
afterAll(() => redis.disconnect());
afterEach(async () => {
  await Promise.all(
    running.splice(0).map((r) => (r.proc.exitCode === null && r.proc.signalCode === null ? r.kill() : undefined)),
  );
  await Promise.all(inProcess.splice(0).map((r) => r.stop()));
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  socket: import('node:net').Socket;
}

/** one request over `agent` (kept-alive connections), with the socket it used */
function request(agent: http.Agent, port: number, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { 'x-api-key': TEST_API_KEY, ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        // the agent takes the socket back once the answer ends
        const socket = res.socket;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null, socket }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** a fresh connection's answer to GET /ready, or the connection error's code */
async function readyOnNewConnection(port: number): Promise<number | string> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    return (await request(agent, port, 'GET', '/ready')).status;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  } finally {
    agent.destroy();
  }
}

function exitCode(proc: RuntimeProcess['proc']): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
}

test('SIGTERM during a 6 s WRITE: /ready 503, new connections refused, the WRITE answered and committed, idle connections closed, exit 0', async () => {
  const projectId = uniqueProjectId('dr');
  // three seconds of 503 before the listener closes, so a fresh connection can see it even if this process stalls a while
  // READ_CACHE_MB=0: no cached snapshot, so the WRITE runs under the lease, which tells it is running
  const svc = await spawnRuntime(projectId, { DRAIN_GRACE_MS: '3000', READ_CACHE_MB: '0' });
  running.push(svc);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const p = `/${projectId}/CALL/Counter`;

  expect((await request(agent, svc.port, 'POST', `${p}/init/d1`, {})).status).toBe(200);
  expect(await readyOnNewConnection(svc.port)).toBe(200);
  // a kept-alive connection left idle: closed by the drain
  const idle = await request(new http.Agent({ keepAlive: true }), svc.port, 'GET', '/health');
  expect(idle.status).toBe(200);
  let idleClosed = false;
  idle.socket.once('close', () => (idleClosed = true));

  // the WRITE is running once it holds the instance's lease; it outlasts the grace by 3 s, so it is still in flight when the listener closes
  const lease = new Keys(projectId).lease('Counter', 'd1');
  await waitFor(async () => (await redis.exists(lease)) === 0, { what: 'the init call released its lease' });
  const write = request(agent, svc.port, 'POST', `${p}/increment/d1`, { by: 5, delayMs: 6000 });
  await waitFor(async () => (await redis.exists(lease)) === 1, { what: 'the WRITE running' });

  const exit = exitCode(svc.proc);
  svc.proc.kill('SIGTERM');
  await waitFor(async () => (await readyOnNewConnection(svc.port)) === 503, {
    timeoutMs: 10_000,
    intervalMs: 50,
    what: '/ready 503 while draining',
  });
  await waitFor(async () => (await readyOnNewConnection(svc.port)) === 'ECONNREFUSED', {
    timeoutMs: 10_000,
    intervalMs: 50,
    what: 'new connections refused',
  });
  await waitFor(() => idleClosed, { timeoutMs: 10_000, what: 'the idle kept-alive connection closed' });

  const answered = await write;
  expect(answered.status).toBe(200);
  expect(answered.body).toEqual({ count: 5 });
  // its connection is not kept for another request
  expect(answered.headers.connection).toBe('close');
  expect(await exit).toBe(0);
  expect(svc.output()).toContain('"msg":"HTTP drained"');
  agent.destroy();

  // committed: another runtime on the same Redis reads it
  const reader = await startTestRuntime({ projectId, env: { ROLES: 'api' } });
  inProcess.push(reader);
  const got = await reader.get(`${p}/get/d1`, { 'x-api-key': TEST_API_KEY });
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({ count: 5, version: 2 });
}, 60_000);

test('without a grace the listener closes at once, and the call in flight is still answered', async () => {
  const projectId = uniqueProjectId('dr');
  const svc = await spawnRuntime(projectId, { READ_CACHE_MB: '0' });
  running.push(svc);
  const agent = new http.Agent({ keepAlive: true });
  const p = `/${projectId}/CALL/Counter`;
  expect((await request(agent, svc.port, 'POST', `${p}/init/d2`, {})).status).toBe(200);
  const lease = new Keys(projectId).lease('Counter', 'd2');
  await waitFor(async () => (await redis.exists(lease)) === 0, { what: 'the init call released its lease' });
  const write = request(agent, svc.port, 'POST', `${p}/increment/d2`, { by: 2, delayMs: 3000 });
  await waitFor(async () => (await redis.exists(lease)) === 1, { what: 'the WRITE running' });

  const exit = exitCode(svc.proc);
  svc.proc.kill('SIGTERM');
  await waitFor(async () => (await readyOnNewConnection(svc.port)) === 'ECONNREFUSED', {
    timeoutMs: 10_000,
    intervalMs: 50,
    what: 'new connections refused',
  });
  const answered = await write;
  expect(answered.status).toBe(200);
  expect(answered.body).toEqual({ count: 2 });
  expect(await exit).toBe(0);
  agent.destroy();

  const reader = await startTestRuntime({ projectId, env: { ROLES: 'api' } });
  inProcess.push(reader);
  expect((await reader.get(`${p}/get/d2`, { 'x-api-key': TEST_API_KEY })).body).toMatchObject({ count: 2, version: 2 });
}, 60_000);

test('a wrong DRAIN_GRACE_MS stops the start with one line naming it', () => {
  const root = projectRoot();
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'runtime/main.ts')], {
    cwd: root,
    env: { ...process.env, ...testEnv(uniqueProjectId('dr'), { DRAIN_GRACE_MS: '2s' }) },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status).toBe(1);
  expect(r.stderr.trim()).toBe(
    "error: DRAIN_GRACE_MS: must be a whole number of milliseconds from 0 to 60000 (got '2s')",
  );
}, 40_000);

test('SIGTERM to a worker during a 3 s QUEUED_WRITE: the job finishes and commits before the process exits 0', async () => {
  const projectId = uniqueProjectId('dw');
  // the API in this process queues; the only worker is a separate process that is stopped
  const api = await startTestRuntime({ projectId, env: { ROLES: 'api' } });
  inProcess.push(api);
  const key = { 'x-api-key': TEST_API_KEY };
  const p = `/${projectId}/CALL/Counter`;
  expect((await api.post(`${p}/init/w1`, {}, key)).status).toBe(200);
  const worker = await spawnRuntime(projectId, { ROLES: 'worker' });
  running.push(worker);
  const queued = await api.post(`${p}/queuedAdd/w1`, { by: 7, delayMs: 3000 }, key);
  expect(queued.status).toBe(202);
  const status = async () => (await api.get(`/${projectId}/JOBS/${queued.body.jobId}`, key)).body;
  await waitFor(async () => (await status()).status === 'running', { what: 'job running' });

  const exit = exitCode(worker.proc);
  worker.proc.kill('SIGTERM');
  expect(await exit).toBe(0);
  // finished by the stopping worker, not taken over by another: there is none
  expect(await status()).toMatchObject({ status: 'completed', result: { body: { count: 7 } } });
  expect((await api.get(`${p}/get/w1`, key)).body).toMatchObject({ count: 7 });
}, 60_000);
