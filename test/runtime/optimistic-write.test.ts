/**
 * WRITEs on a cached snapshot (dispatcher runTurn, turns.ts tryOptimistic):
 * a process that has the instance's committed state cached runs the handler on
 * it without the lease and commits with a version check. Two runtimes on one
 * Redis and one project play two processes; every outcome is what a leased
 * write would have answered.
 */
import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

let a: TestRuntime;
let b: TestRuntime;
let p: string;
const H = { 'x-api-key': TEST_API_KEY };

beforeAll(async () => {
  a = await startTestRuntime();
  b = await startTestRuntime({ projectId: a.projectId });
  p = `/${a.projectId}/CALL/Counter`;
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const counts = (t: TestRuntime) => ({ ...t.rt.dispatcher.optimisticWrites });

test('a write of an instance this process wrote before commits without the lease, in one round trip', async () => {
  expect((await a.post(`${p}/init/ow-1`, { start: 1 }, H)).status).toBe(200);
  const before = counts(a);
  const r = await a.post(`${p}/increment/ow-1`, { by: 2 }, H);
  expect(r).toMatchObject({ status: 200, body: { count: 3 } });
  expect(counts(a)).toEqual({ answered: before.answered + 1, retried: before.retried });
  expect((await b.get(`${p}/get/ow-1`, H)).body).toMatchObject({ count: 3, version: 2 });
});

test("a plain write's commit leaves the outbox entry a leased write leaves: its class, instance and version", async () => {
  expect((await a.post(`${p}/init/ow-ob.1`, { start: 1 }, H)).status).toBe(200);
  const before = counts(a);
  expect((await a.post(`${p}/increment/ow-ob.1`, {}, H)).status).toBe(200);
  expect(counts(a).answered).toBe(before.answered + 1);
  const outbox = a.rt.store.keys.of('Counter', 'ow-ob.1').outbox;
  const entries = await a.rt.redis.xrevrange(outbox, '+', '-', 'COUNT', 50);
  const fields = entries.map(([, f]) => f).filter((f) => f[3] === 'ow-ob.1');
  expect(fields[0]).toEqual(['c', 'Counter', 'i', 'ow-ob.1', 'v', '2']);
});

test('reads and writes still answer after Redis forgot the scripts (SCRIPT FLUSH, as after a restart)', async () => {
  expect((await a.post(`${p}/init/ow-flush`, { start: 1 }, H)).status).toBe(200);
  await a.rt.redis.script('FLUSH');
  expect((await a.post(`${p}/increment/ow-flush`, {}, H)).body).toEqual({ count: 2 });
  await a.rt.redis.script('FLUSH');
  expect((await a.get(`${p}/get/ow-flush`, H)).body).toMatchObject({ count: 2, version: 2 });
});

test('a snapshot the other process has moved past is not committed: the write runs again on the current state', async () => {
  await a.post(`${p}/init/ow-2`, { start: 0 }, H);
  // b writes: a's cached version 1 is old now
  expect((await b.post(`${p}/increment/ow-2`, { by: 10 }, H)).body).toEqual({ count: 10 });
  const before = counts(a);
  // on a's snapshot (0) the cap of 5 lets it through; on the current state (10) it refuses
  const r = await a.post(`${p}/capped/ow-2`, { max: 5 }, H);
  expect(r.status).toBe(409);
  expect(r.body).toMatchObject({ code: 'AT_CAP', message: 'count 10 has reached 5' });
  expect(counts(a).retried).toBe(before.retried + 1);
  expect((await a.get(`${p}/get/ow-2`, H)).body).toMatchObject({ count: 10, version: 2 });
});

test('a refusal judged on an old snapshot is not answered: the write runs again and commits on the current state', async () => {
  await a.post(`${p}/init/ow-3`, { start: 10 }, H);
  // b brings the count under the cap behind a's cache
  expect((await b.post(`${p}/increment/ow-3`, { by: -8 }, H)).body).toEqual({ count: 2 });
  const before = counts(a);
  const r = await a.post(`${p}/capped/ow-3`, { max: 5, by: 1 }, H);
  expect(r).toMatchObject({ status: 200, body: { count: 3 } });
  expect(counts(a).retried).toBe(before.retried + 1);
  // a refusal on the current state stands without a second run
  const again = counts(a);
  expect((await a.post(`${p}/capped/ow-3`, { max: 3 }, H)).status).toBe(409);
  expect(counts(a)).toEqual({ answered: again.answered + 1, retried: again.retried });
});

test('a handler that writes another instance runs once: its optimistic run is stopped at the call and run under the lease', async () => {
  await a.post(`${p}/init/ow-4`, { start: 0 }, H);
  await a.post(`${p}/init/ow-4-target`, { start: 0 }, H);
  const before = counts(a);
  const r = await a.post(`${p}/bumpOther/ow-4`, { target: 'ow-4-target' }, H);
  expect(r).toMatchObject({ status: 200, body: { count: 1, other: 1 } });
  expect(counts(a).retried).toBe(before.retried + 1);
  // bumpOther is known to need the lease now: no optimistic run of it, no second run; the
  // internalBump it calls (a plain write of the target, cached here) is answered optimistically
  const known = counts(a);
  expect((await a.post(`${p}/bumpOther/ow-4`, { target: 'ow-4-target' }, H)).body).toEqual({ count: 2, other: 2 });
  expect(counts(a)).toEqual({ answered: known.answered + 1, retried: known.retried });
  expect((await b.get(`${p}/get/ow-4-target`, H)).body).toMatchObject({ count: 2, version: 3 });
});

test('a method declared optimistic: false always runs under the lease', async () => {
  await a.post(`${p}/init/ow-7`, { start: 0 }, H);
  const before = counts(a);
  expect((await a.post(`${p}/leasedIncrement/ow-7`, {}, H)).body).toEqual({ count: 1 });
  expect((await a.post(`${p}/leasedIncrement/ow-7`, {}, H)).body).toEqual({ count: 2 });
  expect(counts(a)).toEqual(before);
});

test('a lookup change is made under the lease', async () => {
  await a.post(`${p}/init/ow-5`, { start: 0 }, H);
  const r = await a.post(`${p}/setSlot/ow-5`, { slot: 'ow-5-slot' }, H);
  expect(r.status).toBe(200);
  expect((await b.get(`${p}/get/slot!ow-5-slot`, H)).body).toMatchObject({ id: 'ow-5', slot: 'ow-5-slot' });
});

test('concurrent writes of one instance from two processes lose no update', async () => {
  await a.post(`${p}/init/ow-6`, { start: 0 }, H);
  await b.get(`${p}/get/ow-6`, H);
  const n = 60;
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) => (i % 2 ? a : b).post(`${p}/increment/ow-6`, { by: 1 }, H)),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(n).fill(200));
  // every answer saw a distinct count: the writes were applied one after another
  expect(new Set(answers.map((r) => r.body.count)).size).toBe(n);
  expect((await a.get(`${p}/get/ow-6`, H)).body).toMatchObject({ count: n, version: n + 1 });
});

test('the optimistic writes are counted on /metrics', async () => {
  const text = await (await fetch(`${a.base}/metrics`)).text();
  const answered = Number(/runtime_optimistic_writes_total\{outcome="answered"\} (\d+)/.exec(text)?.[1]);
  const retried = Number(/runtime_optimistic_writes_total\{outcome="retried"\} (\d+)/.exec(text)?.[1]);
  expect(answered).toBe(a.rt.dispatcher.optimisticWrites.answered);
  expect(retried).toBe(a.rt.dispatcher.optimisticWrites.retried);
  expect(retried).toBeGreaterThanOrEqual(3);
});
