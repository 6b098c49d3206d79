/**
 * Idempotency keys (runtime/http/idempotency.ts) on a real runtime over HTTP:
 * replay, another body, concurrent duplicates, 5xx not stored, bad keys and
 * callers' scopes.
 */
import { ReadCache } from '../../runtime/actor/read-cache';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let p: string;
const apiKey = { 'x-api-key': TEST_API_KEY };
let n = 0;
const fresh = (what: string) => `${what}-${++n}-${Date.now()}`;

beforeAll(async () => {
  t = await startTestRuntime({
    env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'idempotency-fixtures')}` },
  });
  p = `/${t.projectId}/CALL/Counter`;
});
afterAll(() => t.stop());

async function counter(id: string): Promise<number> {
  const r = await t.post(`${p}/get/${id}`, {}, apiKey);
  expect(r.status).toBe(200);
  return r.body.count as number;
}

async function newCounter(): Promise<string> {
  const id = fresh('c');
  expect((await t.post(`${p}/init/${id}`, {}, apiKey)).status).toBe(200);
  return id;
}

test('a repeat with the same key and body replays the first answer; the call ran once', async () => {
  const id = await newCounter();
  const headers = { ...apiKey, 'idempotency-key': fresh('k') };
  const first = await t.post(`${p}/increment/${id}`, { by: 5 }, headers);
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ count: 5 });
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const again = await t.post(`${p}/increment/${id}`, { by: 5 }, headers);
  expect(again.status).toBe(200);
  expect(again.body).toEqual({ count: 5 });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await counter(id)).toBe(5);
  // without the header the call runs every time
  expect((await t.post(`${p}/increment/${id}`, { by: 5 }, apiKey)).body).toEqual({ count: 10 });
});

test('a 4xx answer is stored and replayed too', async () => {
  const id = await newCounter();
  const headers = { ...apiKey, 'idempotency-key': fresh('k') };
  const first = await t.post(`${p}/increment/${id}`, { by: 1, failAfter: true }, headers);
  expect(first.status).toBe(400);
  const again = await t.post(`${p}/increment/${id}`, { by: 1, failAfter: true }, headers);
  expect(again.status).toBe(400);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
});

test('a QUEUED_WRITE answer (its job id) is replayed: the job is queued once', async () => {
  const id = await newCounter();
  const headers = { ...apiKey, 'idempotency-key': fresh('k') };
  const first = await t.post(`${p}/queuedAdd/${id}`, { by: 2 }, headers);
  expect(first.status).toBe(202);
  const again = await t.post(`${p}/queuedAdd/${id}`, { by: 2 }, headers);
  expect(again.status).toBe(202);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
});

test('the same key with another body (or another target) answers 422 and runs nothing', async () => {
  const id = await newCounter();
  const headers = { ...apiKey, 'idempotency-key': fresh('k') };
  expect((await t.post(`${p}/increment/${id}`, { by: 1 }, headers)).status).toBe(200);
  const other = await t.post(`${p}/increment/${id}`, { by: 2 }, headers);
  expect(other.status).toBe(422);
  expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  const otherTarget = await t.post(`${p}/touch/${id}`, { by: 1 }, headers);
  expect(otherTarget.status).toBe(422);
  expect(await counter(id)).toBe(1);
  // the same fields in another order are the same body
  const reordered = await t.post(`${p}/increment/${id}`, '{"by":1}', headers);
  expect(reordered.headers.get('idempotent-replayed')).toBe('true');
});

test('1,000 concurrent duplicates: applied once, the others 409 while it runs or replayed', async () => {
  const id = await newCounter();
  const headers = { ...apiKey, 'idempotency-key': fresh('k') };
  const body = { by: 1, delayMs: 300 };
  const answers: { status: number; replayed: boolean; body: unknown }[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const rs = await Promise.all(Array.from({ length: 100 }, () => t.post(`${p}/increment/${id}`, body, headers)));
    for (const r of rs)
      answers.push({ status: r.status, replayed: r.headers.get('idempotent-replayed') === 'true', body: r.body });
  }
  expect(answers).toHaveLength(1000);
  const ran = answers.filter((a) => a.status === 200 && !a.replayed);
  expect(ran).toHaveLength(1);
  for (const a of answers) {
    if (a.status === 409) expect(a.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_PROGRESS' });
    else expect(a).toMatchObject({ status: 200, body: { count: 1 } });
  }
  expect(await counter(id)).toBe(1);
});

test('a 503 is not stored: a retry with the same key runs the call', async () => {
  const id = await newCounter();
  const key = fresh('k');
  const headers = { ...apiKey, 'idempotency-key': key };
  // another process holds the instance: `slow` (1 s budget) waits for it and answers 503 INSTANCE_BUSY
  const lease = t.rt.store.keys.lease('Counter', id);
  await t.rt.redis.set(lease, 'another-process', 'PX', 20_000);
  // not cached here: the write takes the lease path and waits (a run on a cached snapshot would time out first)
  t.rt.dispatcher.readCache.delete(ReadCache.key('Counter', id));
  const busy = await t.post(`${p}/slow/${id}`, {}, headers);
  expect(busy.status).toBe(503);
  expect(await t.rt.redis.exists(await storedName(key))).toBe(0);
  await t.rt.redis.del(lease);
  // runs now: it passes its 1 s budget (504), an answer the busy one could not have been
  const retried = await t.post(`${p}/slow/${id}`, {}, headers);
  expect(retried.status).toBe(504);
  expect(retried.headers.get('idempotent-replayed')).toBeNull();
  // a 2xx with the same key is kept under that name
  const ok = { ...apiKey, 'idempotency-key': `${key}-ok` };
  expect((await t.post(`${p}/increment/${id}`, {}, ok)).status).toBe(200);
  const okName = await storedName(`${key}-ok`);
  expect(await t.rt.redis.exists(okName)).toBe(1);
  const ttl = await t.rt.redis.ttl(okName);
  expect(ttl).toBeGreaterThan(23 * 3600);
  expect(ttl).toBeLessThanOrEqual(24 * 3600);
});

/** the Redis key an answer of the test API key's caller is kept under */
async function storedName(key: string): Promise<string> {
  const identity = await t.rt.identities.identify({ 'x-api-key': TEST_API_KEY });
  return `rt:${t.projectId}:idem:${createHash('sha256')
    .update(`${identity.type}:${identity.userId ?? ''}\n${key}`)
    .digest('hex')}`;
}

test('a bad key answers 400 naming the header', async () => {
  const id = await newCounter();
  for (const bad of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
    const r = await t.post(`${p}/increment/${id}`, {}, { ...apiKey, 'idempotency-key': bad });
    expect(r.status).toBe(400);
    expect(r.body.details.errors[0]).toMatchObject({ field: 'Idempotency-Key' });
  }
  expect(await counter(id)).toBe(0);
  expect((await t.post(`${p}/increment/${id}`, {}, { ...apiKey, 'idempotency-key': 'x'.repeat(255) })).status).toBe(
    200,
  );
});

test("two callers' keys do not collide", async () => {
  const id = await newCounter();
  const key = fresh('k');
  const alice = { authorization: `Bearer ${t.token('enduser', 'alice')}`, 'idempotency-key': key };
  const bob = { authorization: `Bearer ${t.token('enduser', 'bob')}`, 'idempotency-key': key };
  expect((await t.post(`${p}/increment/${id}`, { by: 1 }, alice)).body).toEqual({ count: 1 });
  // another body under the same key: bob's own, not a 422
  const b = await t.post(`${p}/increment/${id}`, { by: 10 }, bob);
  expect(b.status).toBe(200);
  expect(b.body).toEqual({ count: 11 });
  expect(b.headers.get('idempotent-replayed')).toBeNull();
  expect(
    (await t.post(`${p}/increment/${id}`, { by: 1 }, { ...apiKey, 'idempotency-key': key })).headers.get(
      'idempotent-replayed',
    ),
  ).toBeNull();
  expect(await counter(id)).toBe(12);
  // each caller's repeat replays its own answer
  const aliceAgain = await t.post(`${p}/increment/${id}`, { by: 1 }, alice);
  expect(aliceAgain.body).toEqual({ count: 1 });
  expect(aliceAgain.headers.get('idempotent-replayed')).toBe('true');
  const bobAgain = await t.post(`${p}/increment/${id}`, { by: 10 }, bob);
  expect(bobAgain.body).toEqual({ count: 11 });
  expect(bobAgain.headers.get('idempotent-replayed')).toBe('true');
  expect(await counter(id)).toBe(12);
});

test('a route alias (as the HR endpoints are) replays too, and its error envelope shapes the refusals', async () => {
  const id = fresh('tally');
  const headers = { ...apiKey, 'idempotency-key': fresh('k') };
  const first = await t.post(`/tallies/${id}/add`, { by: 3 }, headers);
  expect(first).toMatchObject({ status: 200, body: { ok: true, count: 3 } });
  const again = await t.post(`/tallies/${id}/add`, { by: 3 }, headers);
  expect(again).toMatchObject({ status: 200, body: { ok: true, count: 3 } });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  const other = await t.post(`/tallies/${id}/add`, { by: 4 }, headers);
  expect(other).toMatchObject({ status: 422, body: { ok: false, code: 'IDEMPOTENCY_KEY_REUSED' } });
  expect((await t.post(`/${t.projectId}/CALL/Tally/get/${id}`, {}, apiKey)).body).toEqual({ count: 3 });
});

test("an anonymous caller's key is ignored: public answers (sign-in tokens) are neither kept nor replayed to another anonymous caller", async () => {
  const headers = { 'idempotency-key': fresh('anon') };
  const first = await t.post(`/${t.projectId}/CALL/Tally/issue`, {}, headers);
  const second = await t.post(`/${t.projectId}/CALL/Tally/issue`, {}, headers);
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(second.headers.get('idempotent-replayed')).toBeNull();
  expect(second.body.secret).not.toBe(first.body.secret);
});
