import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let p: string;
const key = { 'x-api-key': TEST_API_KEY };

beforeAll(async () => {
  t = await startTestRuntime();
  p = `/${t.projectId}/CALL/Counter`;
});
afterAll(() => t.stop());

async function count(id: string): Promise<{ count: number; version: number }> {
  return (await t.get(`${p}/get/${id}`, key)).body;
}

describe('READ', () => {
  test('cannot change state: the attempt fails and nothing changes', async () => {
    await t.post(`${p}/init/r1`, { start: 1 }, key);
    const r = await t.post(`${p}/sneakyWrite/r1`, {}, key);
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ code: 1018, classId: 'Counter' });
    expect(await count('r1')).toMatchObject({ count: 1, version: 1 });
  });

  test('reads a committed snapshot and does not wait for a running WRITE', async () => {
    await t.post(`${p}/init/r2`, {}, key);
    let writeDone = false;
    const slowWrite = t.post(`${p}/increment/r2`, { by: 5, delayMs: 4000 }, key).then((r) => {
      writeDone = true;
      return r;
    });
    // the write holds the instance; reads keep answering with the last committed state
    const reads = await Promise.all(Array.from({ length: 20 }, () => count('r2')));
    expect(writeDone).toBe(false);
    for (const r of reads) expect(r).toMatchObject({ count: 0, version: 1 });
    expect((await slowWrite).body).toEqual({ count: 5 });
    expect(await count('r2')).toMatchObject({ count: 5, version: 2 });
  });
});

describe('WRITE', () => {
  test('a busy instance makes callers wait their turn, not fail', async () => {
    await t.post(`${p}/init/w1`, {}, key);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t.post(`${p}/increment/w1`, { delayMs: 30 }, key)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.map((r) => r.body.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await count('w1')).toMatchObject({ count: 10, version: 11 });
  });

  test('on a hot instance, failures among queued writers commit nothing and do not disturb the others', async () => {
    await t.post(`${p}/init/hot1`, {}, key);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => t.post(`${p}/increment/hot1`, { by: 1, failAfter: i % 3 === 0 }, key)),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(40);
    expect(results.filter((r) => r.status === 400)).toHaveLength(20);
    expect(ok.map((r) => r.body.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await count('hot1')).toMatchObject({ count: 40, version: 41 });
    // the lease kept between local writers is given back once nobody waits
    await waitFor(async () => (await t.rt.redis.exists(t.rt.store.keys.lease('Counter', 'hot1'))) === 0, {
      what: 'lease released',
    });
  });

  test('a handler that throws commits nothing', async () => {
    await t.post(`${p}/init/w2`, { start: 7 }, key);
    const r = await t.post(`${p}/increment/w2`, { by: 3, failAfter: true }, key);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ code: 'REQUESTED_FAILURE', message: 'failed after changing state', classId: 'Counter' });
    expect(await count('w2')).toMatchObject({ count: 7, version: 1 });
  });

  test('a handler that passes its budget fails and commits nothing; the instance stays usable', async () => {
    await t.post(`${p}/init/w3`, { start: 1 }, key);
    const r = await t.post(`${p}/slow/w3`, {}, key);
    expect(r.status).toBe(504);
    expect(r.body).toMatchObject({ code: 1011, classId: 'Counter' });
    expect(await count('w3')).toMatchObject({ count: 1, version: 1 });
    expect((await t.post(`${p}/increment/w3`, {}, key)).body).toEqual({ count: 2 });
  });

  test('a write that changes nothing makes no new version', async () => {
    await t.post(`${p}/init/w4`, {}, key);
    await t.post(`${p}/increment/w4`, { by: 0 }, key);
    expect(await count('w4')).toMatchObject({ count: 0, version: 1 });
  });
});

test('an upsert WRITE creates a missing instance; a plain WRITE does not', async () => {
  expect((await t.post(`${p}/increment/up1`, {}, key)).status).toBe(500);
  expect((await t.post(`${p}/touch/up1`, {}, key)).body).toEqual({ count: 1, createdNow: true });
  expect((await t.post(`${p}/touch/up1`, {}, key)).body).toEqual({ count: 2, createdNow: false });
  expect(await count('up1')).toMatchObject({ count: 2, version: 2 });
});

describe('class-to-class calls', () => {
  test('carry the calling class and instance as identity', async () => {
    await t.post(`${p}/init/a1`, {}, key);
    await t.post(`${p}/init/b1`, {}, key);
    const r = await t.post(`${p}/poke/a1`, { target: 'b1' }, key);
    expect(r.body).toEqual({ type: 'class', classId: 'Counter', instanceId: 'a1' });
  });

  test('methods open to one class only refuse other callers', async () => {
    const r = await t.get(`${p}/whoCalls/a1`, key);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(1008);
  });

  test('a WRITE calling a WRITE on its own instance gets a clear error, not a deadlock', async () => {
    await t.post(`${p}/init/s1`, {}, key);
    const r = await t.post(`${p}/selfCall/s1`, {}, key);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 1014, classId: 'Counter' });
    expect(r.body.message).toContain("'s1'");
    expect(await count('s1')).toMatchObject({ count: 0, version: 1 });
  });

  test('a cycle through other instances is caught the same way', async () => {
    await t.post(`${p}/init/c1`, {}, key);
    await t.post(`${p}/init/c2`, {}, key);
    // c1.poke -> c2.poke -> c1.poke: c1 is already held for writing
    const r = await t.post(`${p}/poke/c1`, { target: 'c2', depth: 2 }, key);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe(1014);
  });

  test('call depth is limited', async () => {
    const deep = await startTestRuntime({ env: { MAX_CALL_DEPTH: '1' } });
    try {
      const dp = `/${deep.projectId}/CALL/Counter`;
      for (const id of ['d1', 'd2', 'd3']) await deep.post(`${dp}/init/${id}`, {}, key);
      const ok = await deep.post(`${dp}/poke/d1`, { target: 'd2' }, key);
      expect(ok.status).toBe(200);
      const r = await deep.post(`${dp}/poke/d1`, { target: 'd2', depth: 1 }, key);
      expect(r.status).toBe(508);
      expect(r.body.code).toBe(1015);
    } finally {
      await deep.stop();
    }
  });

  test('INTERNAL methods are callable by classes', async () => {
    await t.post(`${p}/init/n1`, {}, key);
    const r = await t.rt.dispatcher.call({
      classId: 'Counter',
      method: 'internalBump',
      instanceId: 'n1',
      identity: { type: 'class', classId: 'Other' },
      origin: 'class',
    });
    expect(r.body).toMatchObject({ count: 1 });
  });
});
