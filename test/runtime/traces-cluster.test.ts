/**
 * ctx.ports.traces on the run's Redis Cluster (TEST_REDIS_CLUSTER_NODES): the
 * kept idempotency answers (no hash tag: spread over the masters, found by a
 * SCAN of each), a journal's entries and subject index (one hash tag), the
 * finished jobs of the buckets' queues (16 buckets over the masters) and a
 * dead-lettered effect go; the other person's stay.
 */
import { createHash } from 'node:crypto';
import type { TraceErasure } from '../../runtime';
import { isCluster, scanTargets } from '../../runtime/redis/connection';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { clusterNodes, uniqueProjectId } from '../support/redis';

const key = { 'x-api-key': TEST_API_KEY };
const uid = uniqueProjectId('');
const person = `Zoë "Quinn" ${uid}`;
const employeeId = `E-${uid}`;
const other = `Otto ${uid}`;
const otherId = `O-${uid}`;
const instances = Array.from({ length: 6 }, (_, i) => `c${i}`);

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime({ env: { REDIS_CLUSTER_NODES: clusterNodes() } });
  expect(isCluster(t.rt.redis)).toBe(true);
  for (const id of [...instances, 'o']) expect((await call('open', id, {})).status).toBe(200);
});
afterAll(() => t.stop());

function call(method: string, instance: string | undefined, body: unknown, headers = key) {
  return t.post(`/${t.projectId}/CALL/Trail/${method}${instance ? `/${instance}` : ''}`, body, headers);
}

async function completed(jobId: string) {
  await waitFor(async () => (await t.rt.jobs.getJob(jobId).then((j) => j?.getState())) === 'completed', {
    what: `job ${jobId} completed`,
  });
}

/** how many masters hold keys `rt:<project>:idem:*` */
async function mastersWithAnswers(): Promise<number> {
  let masters = 0;
  for (const node of scanTargets(t.rt.redis)) {
    let cursor = '0';
    let found = false;
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `rt:${t.projectId}:idem:*`, 'COUNT', 1000);
      cursor = next;
      found ||= keys.length > 0;
    } while (cursor !== '0');
    if (found) masters++;
  }
  return masters;
}

test('answers, journal entries, finished jobs and dead letters holding the values go from every master', async () => {
  const redis = t.rt.redis;
  const answerKeys = instances.map((id) => ({ ...key, 'idempotency-key': `k-${id}-${uid}` }));
  for (let i = 0; i < instances.length; i++) {
    const r = await call('absorb', instances[i], { note: person }, answerKeys[i]);
    expect(r.body).toEqual({ kept: person });
  }
  const otherAnswer = { ...key, 'idempotency-key': `k-o-${uid}` };
  expect((await call('absorb', 'o', { note: other }, otherAnswer)).status).toBe(200);
  expect(await mastersWithAnswers()).toBeGreaterThan(1);

  for (const subject of [employeeId, employeeId, otherId])
    expect((await call('record', undefined, { subject })).status).toBe(200);

  const jobs = await Promise.all(instances.map(async (id) => (await call('keep', id, { note: person })).body.jobId));
  const otherJob = (await call('keep', 'o', { note: other })).body.jobId as string;
  // the instances' jobs are in several buckets' queues
  expect(new Set(jobs.map((id: string) => id.split('.')[0])).size).toBeGreaterThan(1);
  expect((await call('tell', 'c0', { lostNote: person })).status).toBe(200);

  const journal = `rt:{${t.projectId}:journal:trail}`;
  const deadOf = t.rt.store.keys.of('Trail', 'c0-nobody').effectsDead;
  for (const id of [...jobs, otherJob]) await completed(id);
  await waitFor(async () => (await redis.xlen(journal)) === 3 && (await redis.xlen(deadOf)) === 1, {
    what: 'journal entries and the dead letter written',
  });

  const r = await call('forget', undefined, { values: [person, employeeId] });
  expect(r.status).toBe(200);
  const erasure = r.body as TraceErasure;
  expect(erasure.byStore).toMatchObject({ answers: 6, journals: 2, jobs: 6, jobEvents: 6, deadLetters: 1 });
  expect(erasure.removed).toBe(6 + 2 + 6 + 6 + 1);

  // a repeat of an answered request still runs nothing: the first status, no body
  const again = await call('absorb', 'c3', { note: person }, answerKeys[3]);
  expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([200, null, 'true']);
  expect((await call('absorb', 'o', { note: other }, otherAnswer)).body).toEqual({ kept: other });

  const entries = (await redis.xrange(journal, '-', '+')).map(([, f]) => f[1]);
  expect(entries).toHaveLength(1);
  expect(entries[0]).toContain(otherId);
  const index = (subject: string) => `${journal}:s:${createHash('sha256').update(subject).digest('hex')}`;
  expect(await redis.exists(index(employeeId))).toBe(0);
  expect(await redis.llen(index(otherId))).toBe(1);

  for (const id of jobs) expect(await t.rt.jobs.getJob(id)).toBeUndefined();
  expect(await t.rt.jobs.getJob(otherJob)).toBeDefined();
  expect(await redis.xlen(deadOf)).toBe(0);

  const second = await call('forget', undefined, { values: [person, employeeId] });
  expect(second.body.removed).toBe(0);
});
