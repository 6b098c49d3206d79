import * as fs from 'node:fs';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, testEnv, TEST_API_KEY, waitFor } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { uniqueProjectId } from '../support/redis';

const run = promisify(execFile);
const projectId = uniqueProjectId('cl');
let svc: RuntimeProcess;

function cli(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', path.join(projectRoot(), 'runtime/cli.ts'), ...args], {
    cwd: projectRoot(),
    env: { ...process.env, ...testEnv(projectId, { LOG_LEVEL: 'warn' }) },
  });
}

beforeAll(async () => {
  svc = await spawnRuntime(projectId);
});
afterAll(() => svc.stop());

const p = `/${projectId}/CALL/Counter`;

test("the CLI tells its version, the package's", async () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  const { stdout } = await cli('--version');
  expect(stdout.trim()).toBe(version);
});

test("the CLI lists a user's sessions and ends one of them, or all", async () => {
  // sessions are started as a class's sign-in starts them (ctx.tokens), here by a runtime in this process on the same project
  const rt = await startTestRuntime({ projectId, env: { ROLES: 'api' } });
  try {
    const sub = `cli-user-${Date.now()}`;
    const first = await rt.rt.sessions.issue({ sub, type: 'enduser', refresh: true });
    const second = await rt.rt.sessions.issue({ sub, type: 'enduser', tenant: 'c-1', refresh: true });
    const listed = JSON.parse((await cli('sessions', 'enduser', sub)).stdout) as {
      sessions: { family: string; issuedAt: string; expiresAt: string; tenant?: string }[];
    };
    expect(listed.sessions).toHaveLength(2);
    // newest first; no token in the listing
    expect(listed.sessions[0]).toMatchObject({ tenant: 'c-1' });
    expect(JSON.stringify(listed)).not.toContain(first.refreshToken!);
    for (const s of listed.sessions) expect(Date.parse(s.expiresAt)).toBeGreaterThan(Date.parse(s.issuedAt));

    const one = listed.sessions[0]!.family;
    expect(JSON.parse((await cli('sessions:revoke', 'enduser', sub, '--family', one)).stdout)).toEqual({ revoked: 1 });
    const refresh = (token: string) => rt.post(`/${projectId}/auth/refresh`, { refreshToken: token });
    expect((await refresh(second.refreshToken!)).status).toBe(401);
    const renewed = await refresh(first.refreshToken!);
    expect(renewed.status).toBe(200);
    expect((await rt.rt.sessions.list(sub, 'enduser')).map((s) => s.family)).toEqual([listed.sessions[1]!.family]);

    expect(JSON.parse((await cli('sessions:revoke', 'enduser', sub)).stdout)).toEqual({ revoked: 1 });
    expect((await refresh(renewed.body.refreshToken)).status).toBe(401);
    expect(await rt.rt.sessions.list(sub, 'enduser')).toEqual([]);
  } finally {
    await rt.stop();
  }
});

test('the CLI creates an API key that a running service accepts, and revokes it', async () => {
  const created = JSON.parse((await cli('apikey:create', 'hr-integration')).stdout);
  expect(created.key).toMatch(/^ik_/);
  const headers = { 'x-api-key': created.key, 'content-type': 'application/json' };
  expect((await fetch(`${svc.base}${p}/init/k1`, { method: 'POST', headers, body: '{}' })).status).toBe(200);
  const listed = JSON.parse((await cli('apikey:list')).stdout);
  expect(listed.map((k: { id: string }) => k.id)).toContain(created.record.id);
  expect(JSON.stringify(listed)).not.toContain(created.key);
  await cli('apikey:revoke', created.record.id);
  // the service caches positive key checks for up to 5 s
  await waitFor(async () => (await fetch(`${svc.base}${p}/get/k1`, { headers })).status === 401, {
    what: 'revocation',
  });
}, 60_000);

test('the CLI mints development tokens the service accepts', async () => {
  const token = (await cli('token', 'enduser', 'user-7')).stdout.trim();
  const r = await fetch(`${svc.base}${p}/get/k1`, { headers: { authorization: `Bearer ${token}` } });
  expect(r.status).toBe(200);
  await expect(cli('token', 'integration_user', 'x')).rejects.toThrow(/identity must be one of/);
}, 60_000);

test('the CLI reprojects and calls methods as the system identity', async () => {
  const called = JSON.parse((await cli('call', 'Counter', 'increment', 'k1', '--body', '{"by":4}')).stdout);
  expect(called).toMatchObject({ status: 200, body: { count: 4 } });
  const re = JSON.parse((await cli('reproject', 'Counter')).stdout);
  expect(re).toMatchObject({ reprojected: 1, store: 'embedded' });
}, 60_000);

test('request logs carry request id, class, method, instance, identity and duration, and never the API key', async () => {
  await fetch(`${svc.base}${p}/get/k1`, { headers: { 'x-api-key': TEST_API_KEY, 'x-request-id': 'log-check-1' } });
  const line = await waitFor(
    () =>
      svc
        .output()
        .split('\n')
        .find((l) => l.includes('"requestId":"log-check-1"')),
    {
      what: 'request log line',
    },
  );
  const entry = JSON.parse(line!);
  expect(entry).toMatchObject({
    requestId: 'log-check-1',
    classId: 'Counter',
    classMethod: 'get',
    instanceId: 'k1',
    identity: { type: 'integration_user', userId: 'env-1' },
    status: 200,
  });
  expect(typeof entry.durationMs).toBe('number');
  expect(svc.output()).not.toContain(TEST_API_KEY);
});
