/**
 * The projector across process deaths, with real processes on one Redis: a
 * shared store's consumer group (projector-fixtures/shared-projector.ts, the
 * embedded store posing as MongoDB) and the PROCESSES supervisor's slots.
 */
import { Keys } from '../../runtime/actor/state-store';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { askProjectors } from '../../runtime/stream/projector-control';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { redisUrl, uniqueProjectId } from '../support/redis';

const FIXTURE = path.join(__dirname, 'projector-fixtures/shared-projector.ts');
const key = { 'x-api-key': TEST_API_KEY };
/** far beyond any test's deadline: no claim can be what moved an entry */
const NEVER_MS = '3600000';

/** entries of the outbox's group pending per consumer */
async function pendingByConsumer(redis: Redis, outbox: string): Promise<Record<string, number>> {
  const [, , , consumers] = (await redis.xpending(outbox, 'projector')) as [
    number,
    string | null,
    string | null,
    [string, string][] | null,
  ];
  return Object.fromEntries((consumers ?? []).map(([name, count]) => [name, Number(count)]));
}

/** a gauge's value in a process's /metrics, or undefined when it has none */
async function metric(proc: RuntimeProcess, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${proc.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** a projector process on the shared store */
function projector(projectId: string, env: Record<string, string>): Promise<RuntimeProcess> {
  return spawnRuntime(projectId, { ROLES: 'projector', METRICS_PORT: '0', ...env }, { script: FIXTURE });
}

describe('a projector process that dies holding outbox entries (shared store, consumer group)', () => {
  const projectId = uniqueProjectId('pj');
  const outbox = new Keys(projectId).bucket(0).outbox;
  let api: TestRuntime;
  let redis: Redis;
  const started: RuntimeProcess[] = [];
  let counter = 0;

  /** commits `n` changes through the API process (which runs no projector): n outbox entries */
  async function commit(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const r = await api.post(`/${projectId}/CALL/Counter/init/c${++counter}`, { start: counter }, key);
      expect(r.status).toBe(200);
    }
  }

  /** a projector that takes entries and never acknowledges them, then is killed: `n` entries left pending under `name` */
  async function dieHolding(name: string, n: number): Promise<void> {
    await commit(n);
    const holder = await projector(projectId, {
      PROJECTOR_NAME: name,
      HANG_PROJECTION: '1',
      PROJECTOR_CLAIM_IDLE_MS: NEVER_MS,
    });
    started.push(holder);
    await waitFor(async () => (await pendingByConsumer(redis, outbox))[name] === n, {
      what: `${n} entries pending for ${name}`,
    });
    await holder.kill();
    expect(await redis.xlen(outbox)).toBe(n);
  }

  beforeAll(async () => {
    api = await startTestRuntime({ projectId, env: { ROLES: 'api' } });
    redis = new Redis(redisUrl());
  });

  afterAll(async () => {
    for (const p of started) await p.kill();
    await api.stop();
    redis.disconnect();
  });

  test('another projector claims the entries once idle past PROJECTOR_CLAIM_IDLE_MS, and its lag metric falls to 0', async () => {
    await dieHolding('projector@gone-host', 4);

    const live = await projector(projectId, { PROJECTOR_NAME: 'projector@live-host', PROJECTOR_CLAIM_IDLE_MS: '300' });
    started.push(live);
    await waitFor(async () => (await metric(live, 'runtime_projector_backlog_entries')) === 0, {
      what: 'the backlog metric at 0',
    });
    expect(await metric(live, 'runtime_projector_lag_entries{collection="counters"}')).toBe(0);
    expect(await redis.xlen(outbox)).toBe(0);
    expect(await pendingByConsumer(redis, outbox)).toEqual({});
    expect(live.output()).toMatch(
      /"claimed":4,"consumer":"projector@live-host".*left unacknowledged past PROJECTOR_CLAIM_IDLE_MS/,
    );

    // and it goes on projecting what comes next
    await commit(2);
    await waitFor(
      async () => (await redis.xlen(outbox)) === 0 && (await metric(live, 'runtime_projector_backlog_entries')) === 0,
      { what: 'new entries projected' },
    );
    await live.stop();
  }, 90_000);

  test('a projector restarted under the same name resumes its own pending entries first, without waiting for a claim', async () => {
    await dieHolding('projector@same-host', 3);

    const again = await projector(projectId, {
      PROJECTOR_NAME: 'projector@same-host',
      PROJECTOR_CLAIM_IDLE_MS: NEVER_MS,
    });
    started.push(again);
    await waitFor(async () => (await metric(again, 'runtime_projector_backlog_entries')) === 0, {
      what: 'the backlog metric at 0',
    });
    expect(await redis.xlen(outbox)).toBe(0);
    expect(await pendingByConsumer(redis, outbox)).toEqual({});
    expect(again.output()).not.toContain('"claimed"');
    await again.stop();
  }, 90_000);
});

test('PROCESSES=2 names each projector after its slot, and a replacement of a killed process takes its slot', async () => {
  const projectId = uniqueProjectId('pjs');
  const redis = new Redis(redisUrl());
  const base = `rt:${projectId}`;
  const svc = await spawnRuntime(projectId, {
    ROLES: 'projector',
    PROCESSES: '2',
    PROJECTOR_NAME: 'projector@test-host',
  });
  const startedPids = () =>
    svc
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"runtime started"'))
      .map((line) => (JSON.parse(line) as { pid: number }).pid);
  /** the projector names answering a control request (the embedded store's listeners: `<consumer>-<random>`) */
  const names = async () => {
    const answer = await askProjectors(redis, base, { command: 'lag' }, { idleMs: 5000 });
    return [...answer.reports.keys()].map((name) => name.replace(/-[0-9a-f]{6}$/, '')).sort();
  };
  try {
    await waitFor(() => startedPids().length === 2, { timeoutMs: 60_000, what: 'both runtime processes' });
    await waitFor(async () => (await names()).length === 2, { what: 'both projectors listening' });
    expect(await names()).toEqual(['projector@test-host#0', 'projector@test-host#1']);

    process.kill(startedPids()[0]!, 'SIGKILL');
    await waitFor(() => startedPids().length === 3, { timeoutMs: 60_000, what: 'a replacement process' });
    await waitFor(async () => (await names()).length === 2, { what: 'two projectors again' });
    expect(await names()).toEqual(['projector@test-host#0', 'projector@test-host#1']);
  } finally {
    await svc.stop();
    redis.disconnect();
  }
}, 120_000);
