/**
 * A projector restarted under its own name while it holds outbox entries whose
 * projection keeps failing (a poisoned Gauge, reproject-fixtures): it must go
 * on projecting new changes and leave the failing entries pending for the
 * claim pass, not re-read the same failing batch for ever, which would freeze
 * every listing behind one bad instance. Real processes on one Redis, the
 * shared store's consumer group (projector-fixtures/shared-projector.ts).
 */
import { Keys } from '../../runtime/actor/state-store';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { redisUrl, uniqueProjectId } from '../support/redis';

const FIXTURE = path.join(__dirname, 'projector-fixtures/shared-projector.ts');
const CLASS_DIRS = path.join(__dirname, 'reproject-fixtures');
const NAME = 'projector@poison-host';
/** beyond the test's deadlines: only the projector's own read, never a claim, can move the healthy entry */
const CLAIM_IDLE_MS = '60000';
const key = { 'x-api-key': TEST_API_KEY };

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

/** the "projector error; retrying" lines a process has logged */
function failures(proc: RuntimeProcess): number {
  return proc
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"projector error; retrying"')).length;
}

describe('a projector restarted while its own pending entries keep failing', () => {
  const projectId = uniqueProjectId('pjp');
  const outbox = new Keys(projectId).bucket(0).outbox;
  const gauge = `/${projectId}/CALL/Gauge`;
  let api: TestRuntime;
  let redis: Redis;
  const started: RuntimeProcess[] = [];

  /** a projector process on the shared store, always under the same consumer name */
  async function projector(): Promise<RuntimeProcess> {
    const proc = await spawnRuntime(
      projectId,
      { ROLES: 'projector', CLASS_DIRS, PROJECTOR_NAME: NAME, PROJECTOR_CLAIM_IDLE_MS: CLAIM_IDLE_MS },
      { script: FIXTURE },
    );
    started.push(proc);
    return proc;
  }

  beforeAll(async () => {
    // the API process runs no projector: every commit waits in the outbox for the spawned one
    api = await startTestRuntime({ projectId, env: { ROLES: 'api', CLASS_DIRS } });
    redis = new Redis(redisUrl());
  });

  afterAll(async () => {
    for (const p of started) await p.kill();
    await api?.stop();
    redis?.disconnect();
  });

  test('reads and projects a new healthy change, leaving the failing entries pending', async () => {
    // two entries of one instance whose current state cannot be projected
    expect((await api.post(`${gauge}/init/bad`, { value: 1 }, key)).status).toBe(200);
    expect((await api.post(`${gauge}/set/bad`, { value: 2, poisoned: true }, key)).status).toBe(200);

    const first = await projector();
    await waitFor(async () => failures(first) > 0 && (await pendingByConsumer(redis, outbox))[NAME] === 2, {
      what: 'the poisoned entries failing and pending under the projector name',
    });
    await first.kill();

    // same name: after the restart it is handed its own pending (failing) entries first
    const again = await projector();
    await waitFor(() => failures(again) > 0, { what: 'the restarted projector failing on its pending entries' });

    expect((await api.post(`${gauge}/init/good`, { value: 7 }, key)).status).toBe(200);
    const [[healthyId]] = await redis.xrevrange(outbox, '+', '-', 'COUNT', 1);
    // projected entries are acknowledged and deleted from a shared store's outbox
    await waitFor(async () => (await redis.xrange(outbox, healthyId!, healthyId!)).length === 0, {
      timeoutMs: 10_000,
      what: 'the healthy change projected (its outbox entry acknowledged)',
    });
    expect(await pendingByConsumer(redis, outbox)).toEqual({ [NAME]: 2 });
    expect(await redis.xlen(outbox)).toBe(2);
    expect(again.output()).not.toContain('"claimed"');
  }, 40_000);
});
