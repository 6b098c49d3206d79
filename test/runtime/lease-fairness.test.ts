/**
 * A hot instance written through two processes: while another process waits,
 * the process holding the lease keeps it for its own next writers only for a
 * short run (FAIR_RUN), so a writer of the other process gets its turn after a
 * few writes, not after all of the first process's queued writers. Two runtimes on one
 * Redis, real HTTP.
 */
import { FAIR_RUN } from '../../runtime/actor/turns';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const key = { 'x-api-key': TEST_API_KEY };
let a: TestRuntime;
let b: TestRuntime;
let p: string;

beforeAll(async () => {
  const projectId = uniqueProjectId('fair');
  a = await startTestRuntime({ projectId, env: { ROLES: 'api' } });
  b = await startTestRuntime({ projectId, env: { ROLES: 'api' } });
  p = `/${projectId}/CALL/Counter`;
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

test("a writer of another process is served after a short run of writes, not after the holder's queue of local writers", async () => {
  expect((await a.post(`${p}/init/hot`, {}, key)).status).toBe(200);
  // 20 writers queued in process a, each holding the instance 50 ms: a run of local hand-overs would last a second
  const local = Array.from({ length: 20 }, () => a.post(`${p}/increment/hot`, { by: 1, delayMs: 50 }, key));
  await waitFor(() => a.rt.store.redis.exists(a.rt.store.keys.lease('Counter', 'hot')).then((n) => n === 1), {
    what: 'a holding the lease',
  });
  const remote = await b.post(`${p}/increment/hot`, { by: 1 }, key);
  const locals = await Promise.all(local);
  expect(remote.status).toBe(200);
  expect(locals.every((r) => r.status === 200)).toBe(true);
  // every write counted once
  expect([...locals.map((r) => r.body.count), remote.body.count].sort((x, y) => x - y)).toEqual(
    Array.from({ length: 21 }, (_, i) => i + 1),
  );
  // b's write committed after a short run of a's (FAIR_RUN), while most of a's were still queued
  // (a run of local hand-overs while b waited would put it after all 20)
  expect(remote.body.count).toBeLessThanOrEqual(2 * FAIR_RUN);
});
