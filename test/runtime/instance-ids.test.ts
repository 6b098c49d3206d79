/**
 * StateStore.instanceIds: every instance of a class, each once. SCAN may
 * return a key more than once (when Redis resizes its table mid-scan), which
 * cannot be provoked on demand, so the de-duplication is tested on its own and
 * the scan end to end.
 */
import { uniqueIds } from '../../runtime/actor/state-store';
import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

describe('uniqueIds', () => {
  it('reads each id off its key and drops every id already yielded, in this batch or an earlier one', () => {
    const yielded = new Set<string>();
    const idOf = (key: string) => key.slice(2);
    expect(uniqueIds(['p:a', 'p:b', 'p:a'], idOf, yielded)).toEqual(['a', 'b']);
    expect(uniqueIds(['p:b', 'p:c'], idOf, yielded)).toEqual(['c']);
    expect(uniqueIds([], idOf, yielded)).toEqual([]);
    expect([...yielded]).toEqual(['a', 'b', 'c']);
  });
});

describe('instanceIds against Redis', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await startTestRuntime();
  });
  afterAll(() => t.stop());

  it("yields each of a class's instances once, over several SCAN pages, and none of another class", async () => {
    const ids = Array.from({ length: 2_500 }, (_, i) => `c${i}`);
    // written as commits leave them (more than one SCAN page of 1,000)
    const pipeline = t.rt.redis.pipeline();
    for (const id of ids) pipeline.set(t.rt.store.keys.instance('Counter', id), '{}');
    await pipeline.exec();
    expect((await t.post(`/${t.projectId}/CALL/Counter/init/real`, {}, { 'x-api-key': TEST_API_KEY })).status).toBe(
      200,
    );
    await t.rt.redis.set(t.rt.store.keys.instance('Other', 'c1'), '{}');

    const seen: string[] = [];
    let batches = 0;
    for await (const batch of t.rt.store.instanceIds('Counter')) {
      batches += 1;
      seen.push(...batch);
    }
    expect(batches).toBeGreaterThan(1);
    expect(seen).toHaveLength(ids.length + 1);
    expect(new Set(seen)).toEqual(new Set([...ids, 'real']));
  });
});
