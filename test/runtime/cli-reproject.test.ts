/**
 * `cli reproject` and the projector lag in `cli status`,
 * against a service run as a child process with the embedded document store:
 * the store lives in the service's memory, so the CLI asks the service to
 * rebuild it, and says plainly when no service takes the request.
 */
import { Keys } from '../../runtime/actor/state-store';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { projectRoot } from '../../runtime/config';
import { testEnv, TEST_API_KEY, waitFor } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { redisUrl, uniqueProjectId } from '../support/redis';

const run = promisify(execFile);
const FIXTURES = path.join(__dirname, 'reproject-fixtures');
const env = { CLASS_DIRS: FIXTURES, LOG_LEVEL: 'warn' };

interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** the CLI's exit code and output, whether it succeeded or not */
function cli(projectId: string, ...args: string[]): Promise<CliOutcome> {
  return run(process.execPath, ['--import', 'tsx', path.join(projectRoot(), 'runtime/cli.ts'), ...args], {
    cwd: projectRoot(),
    env: { ...process.env, ...testEnv(projectId, env) },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: CliOutcome) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

function failureLines(outcome: CliOutcome): string[] {
  return `${outcome.stdout}${outcome.stderr}`.trim().split('\n');
}

describe('without a running service', () => {
  const projectId = uniqueProjectId('rpn');

  test('reproject refuses an unknown class, and one that projects nothing, naming the classes it takes', async () => {
    const unknown = await cli(projectId, 'reproject', 'NoSuchClass');
    expect(unknown.code).toBe(1);
    expect(failureLines(unknown)).toEqual([
      expect.stringMatching(/unknown class NoSuchClass.*classes with projections: Gauge$/),
    ]);

    const plain = await cli(projectId, 'reproject', 'Gauge', 'Plain');
    expect(plain.code).toBe(1);
    expect(failureLines(plain)).toEqual([
      expect.stringMatching(/Plain \(it projects no documents\).*classes with projections: Gauge$/),
    ]);
  }, 60_000);

  test('reproject on the embedded store says that no running service took the request, and exits 1', async () => {
    const outcome = await cli(projectId, 'reproject');
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    expect(failureLines(outcome)).toEqual([expect.stringContaining('no running service took the request')]);
  }, 60_000);

  test('status says that no projector process is running', async () => {
    const outcome = await cli(projectId, 'status');
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout).projector).toEqual({
      store: 'embedded',
      processes: [],
      note: expect.stringContaining('no running projector'),
    });
  }, 60_000);
});

describe('with a running service on the embedded store', () => {
  const projectId = uniqueProjectId('rps');
  const p = `/${projectId}/CALL/Gauge`;
  const headers = { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' };
  let svc: RuntimeProcess;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(redisUrl());
    svc = await spawnRuntime(projectId, { CLASS_DIRS: FIXTURES });
  });
  afterAll(async () => {
    await svc?.stop();
    redis?.disconnect();
  });

  async function post(method: string, body: unknown) {
    const r = await fetch(`${svc.base}${p}/${method}`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(r.status).toBe(200);
    return r.json();
  }
  /** the ids the service's listing (its embedded store) holds */
  async function listed(): Promise<string[]> {
    const r = await fetch(`${svc.base}${p}/list`, { headers });
    expect(r.status).toBe(200);
    return ((await r.json()) as { items: { _id: string }[] }).items.map((d) => d._id);
  }
  async function projectorStatus() {
    const outcome = await cli(projectId, 'status');
    expect(outcome.code).toBe(0);
    return JSON.parse(outcome.stdout).projector;
  }

  test("reproject rebuilds the service's own store: a document whose instance is gone leaves it, the others are projected again", async () => {
    await post('init/g1', { value: 1 });
    await post('init/g2', { value: 2 });
    await waitFor(async () => (await listed()).length === 2, { what: 'both gauges listed' });
    expect(await listed()).toEqual(['g1', 'g2']);
    // the instance removed behind the projector's back: the service's store still lists it
    expect(await redis.del(new Keys(projectId).instance('Gauge', 'g2'))).toBe(1);
    expect(await listed()).toEqual(['g1', 'g2']);

    const outcome = await cli(projectId, 'reproject', 'Gauge');
    expect(outcome.code).toBe(0);
    const answer = JSON.parse(outcome.stdout);
    expect(answer).toEqual({
      reprojected: 1,
      store: 'embedded',
      processes: [{ process: expect.stringMatching(/^projector@/), reprojected: 1 }],
    });
    // progress on stderr (not a terminal: its closing line)
    expect(outcome.stderr).toContain('reproject: 1/1 instances done');
    expect(await listed()).toEqual(['g1']);
  }, 90_000);

  test('status shows the projector lag by collection while a projection fails, and none once it caught up', async () => {
    const caughtUp = await projectorStatus();
    expect(caughtUp).toEqual({
      store: 'embedded',
      processes: [
        {
          process: expect.stringMatching(/^projector@/),
          entries: 0,
          seconds: 0,
          collections: { gauges: { entries: 0, seconds: 0 } },
        },
      ],
    });

    // the projection of g1 now throws: the projector stays on its outbox entry, retrying
    await post('set/g1', { value: 5, poisoned: true });
    const behind = await waitFor(
      async () => {
        const s = await projectorStatus();
        return s.processes[0]?.entries >= 1 ? s : undefined;
      },
      { timeoutMs: 60_000, what: 'the projector lag in status' },
    );
    expect(behind.processes).toHaveLength(1);
    expect(behind.processes[0]).toMatchObject({ entries: 1, collections: { gauges: { entries: 1 } } });
    expect(behind.processes[0].seconds).toBeGreaterThanOrEqual(0);
    expect(behind.processes[0].collections.gauges.seconds).toBe(behind.processes[0].seconds);

    // a later write makes it projectable again: the projector catches up
    await post('set/g1', { value: 6 });
    await waitFor(async () => (await projectorStatus()).processes[0]?.entries === 0, {
      timeoutMs: 60_000,
      what: 'the projector to catch up',
    });
  }, 180_000);
});

test('with several service processes (PROCESSES=2), each rebuilds its own store and the CLI waits for both', async () => {
  const projectId = uniqueProjectId('rpm');
  const redis = new Redis(redisUrl());
  const svc = await spawnRuntime(projectId, { CLASS_DIRS: FIXTURES, PROCESSES: '2' });
  try {
    await waitFor(() => svc.output().split('"msg":"runtime started"').length - 1 === 2, {
      timeoutMs: 60_000,
      what: 'both runtime processes',
    });
    const headers = { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' };
    for (const id of ['m1', 'm2']) {
      const r = await fetch(`${svc.base}/${projectId}/CALL/Gauge/init/${id}`, { method: 'POST', headers, body: '{}' });
      expect(r.status).toBe(200);
    }
    expect(await redis.del(new Keys(projectId).instance('Gauge', 'm2'))).toBe(1);

    const outcome = await cli(projectId, 'reproject');
    expect(outcome.code).toBe(0);
    const answer = JSON.parse(outcome.stdout);
    expect(answer.reprojected).toBe(1);
    expect(answer.processes).toHaveLength(2);
    expect(new Set(answer.processes.map((p: { process: string }) => p.process)).size).toBe(2);
    expect(answer.processes.map((p: { reprojected: number }) => p.reprojected)).toEqual([1, 1]);
    // whichever process answers the listing, its store was rebuilt
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`${svc.base}/${projectId}/CALL/Gauge/list`, {
        headers: { ...headers, connection: 'close' },
      });
      expect(((await r.json()) as { items: { _id: string }[] }).items.map((d) => d._id)).toEqual(['m1']);
    }
  } finally {
    await svc.stop();
    redis.disconnect();
  }
}, 120_000);
