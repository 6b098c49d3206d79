/**
 * The READ cache (runtime/actor/read-cache.ts): a READ never answers from a
 * state older than the committed one, even when another process wrote it,
 * and an unchanged instance is served from the cache.
 */
import { ReadCache } from '../../runtime/actor/read-cache';
import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

const entry = (version: number, bytes: number) => ({
  version,
  stateJson: '{}',
  state: { public: {}, private: {}, user: {}, role: {} },
  lookups: {},
  bytes,
});

describe('ReadCache', () => {
  test('keeps the most recently used entries within its byte budget', () => {
    const c = new ReadCache(100);
    c.set('a', entry(1, 40));
    c.set('b', entry(1, 40));
    expect(c.get('a')?.version).toBe(1); // a is now the most recent
    c.set('c', entry(1, 40)); // 120 > 100: the least recently used (b) goes
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBeDefined();
    expect(c.get('c')).toBeDefined();
    expect(c.usedBytes).toBe(80);
  });

  test('replacing an entry counts its bytes once; an entry larger than the budget is not kept', () => {
    const c = new ReadCache(100);
    c.set('a', entry(1, 60));
    c.set('a', entry(2, 70));
    expect(c.usedBytes).toBe(70);
    expect(c.get('a')?.version).toBe(2);
    c.set('a', entry(3, 101));
    expect(c.get('a')).toBeUndefined();
    expect(c.usedBytes).toBe(0);
  });

  test('a budget of 0 keeps nothing', () => {
    const c = new ReadCache(0);
    c.set('a', entry(1, 1));
    expect(c.enabled).toBe(false);
    expect(c.size).toBe(0);
  });
});

// two runtime processes' worth of runtime on one Redis and one project
let a: TestRuntime;
let b: TestRuntime;
const H = { 'x-api-key': TEST_API_KEY };
beforeAll(async () => {
  a = await startTestRuntime();
  b = await startTestRuntime({ projectId: a.projectId });
});
afterAll(async () => {
  await b.stop();
  await a.stop();
});

describe('READ through the cache, two processes on one Redis', () => {
  test('a write by the other process is seen by the next READ; an unchanged instance is a cache hit', async () => {
    const p = `/${a.projectId}/CALL/Counter`;
    expect((await a.post(`${p}/init/rc-1`, { start: 5 }, H)).status).toBe(200);
    const cache = a.rt.dispatcher.readCache;
    const hits0 = cache.hits;
    // the INIT's commit left the instance in a's cache: both READs are hits
    expect((await a.get(`${p}/get/rc-1`, H)).body).toMatchObject({ count: 5, version: 1 });
    expect((await a.get(`${p}/get/rc-1`, H)).body).toMatchObject({ count: 5, version: 1 });
    expect(cache.hits).toBe(hits0 + 2);

    // b writes; a's cached version 1 is now old
    const misses0 = cache.misses;
    expect((await b.post(`${p}/increment/rc-1`, { by: 2 }, H)).status).toBe(200);
    expect((await a.get(`${p}/get/rc-1`, H)).body).toMatchObject({ count: 7, version: 2 });
    expect(cache.misses).toBe(misses0 + 1);
  });

  test('a READ still cannot change the cached state', async () => {
    const p = `/${a.projectId}/CALL/Counter`;
    expect((await a.post(`${p}/init/rc-2`, { start: 1 }, H)).status).toBe(200);
    await a.get(`${p}/get/rc-2`, H); // cached
    const sneaky = await a.post(`${p}/sneakyWrite/rc-2`, {}, H);
    expect(sneaky.status).toBeGreaterThanOrEqual(400);
    expect((await a.get(`${p}/get/rc-2`, H)).body).toMatchObject({ count: 1, version: 1 });
  });

  test('an instance deleted behind the cache answers as unknown', async () => {
    const p = `/${a.projectId}/CALL/Counter`;
    expect((await a.post(`${p}/init/rc-3`, {}, H)).status).toBe(200);
    await a.get(`${p}/get/rc-3`, H); // cached
    await a.rt.redis.del(a.rt.store.keys.instance('Counter', 'rc-3'));
    const gone = await a.get(`${p}/get/rc-3`, H);
    expect(gone.status).toBe(500);
    expect(gone.body.message).toContain('rc-3');
  });
});

describe('calls by lookup through the lookup cache, two processes on one Redis', () => {
  test('a lookup moved by the other process is followed, for READs and for writes; an unchanged one is a cache hit', async () => {
    const p = `/${a.projectId}/CALL/Counter`;
    await a.post(`${p}/init/lk-1`, { start: 1, slot: 'desk' }, H);
    await a.post(`${p}/init/lk-2`, { start: 100 }, H);
    expect((await a.get(`${p}/get/slot!desk`, H)).body).toMatchObject({ id: 'lk-1' });
    const hits0 = a.rt.dispatcher.lookupCache.hits;
    expect((await a.get(`${p}/get/slot!desk`, H)).body).toMatchObject({ id: 'lk-1' });
    expect(a.rt.dispatcher.lookupCache.hits).toBe(hits0 + 1);

    // b moves the lookup from lk-1 to lk-2; a still has desk → lk-1 cached
    expect((await b.post(`${p}/setSlot/lk-1`, {}, H)).status).toBe(200);
    expect((await b.post(`${p}/setSlot/lk-2`, { slot: 'desk' }, H)).status).toBe(200);
    expect((await a.get(`${p}/get/slot!desk`, H)).body).toMatchObject({ id: 'lk-2', count: 100 });

    // and back, then a write by lookup from a goes to the instance that holds it now
    expect((await b.post(`${p}/setSlot/lk-2`, {}, H)).status).toBe(200);
    expect((await b.post(`${p}/setSlot/lk-1`, { slot: 'desk' }, H)).status).toBe(200);
    expect((await a.post(`${p}/increment/slot!desk`, { by: 5 }, H)).status).toBe(200);
    expect((await a.get(`${p}/get/lk-1`, H)).body).toMatchObject({ count: 6 });
    expect((await a.get(`${p}/get/lk-2`, H)).body).toMatchObject({ count: 100 });
  });

  test('a lookup removed behind the cache answers as unknown, for READs and writes', async () => {
    const p = `/${a.projectId}/CALL/Counter`;
    await a.post(`${p}/init/lk-3`, { slot: 'gone-soon' }, H);
    expect((await a.get(`${p}/get/slot!gone-soon`, H)).status).toBe(200); // cached
    expect((await b.post(`${p}/setSlot/lk-3`, {}, H)).status).toBe(200);
    expect((await a.get(`${p}/get/slot!gone-soon`, H)).status).toBe(500);
    await a.post(`${p}/setSlot/lk-3`, { slot: 'gone-later' }, H);
    expect((await a.post(`${p}/increment/slot!gone-later`, {}, H)).status).toBe(200); // cached
    expect((await b.post(`${p}/setSlot/lk-3`, {}, H)).status).toBe(200);
    const w = await a.post(`${p}/increment/slot!gone-later`, {}, H);
    expect(w.status).toBe(500);
    expect(w.body.message).toContain('gone-later');
    expect((await a.get(`${p}/get/lk-3`, H)).body).toMatchObject({ count: 1 });
  });
});
