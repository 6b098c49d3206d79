import { EmbeddedDocumentStore } from '../../runtime/stream/embedded-document-store';
import { streamLength } from '../support/streams';
import { loadConfig } from '../../runtime/config';
import { Runtime } from '../../runtime/runtime';
import { createLogger } from '../../runtime/logger';
import { startTestRuntime, TEST_API_KEY, testEnv, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const key = { 'x-api-key': TEST_API_KEY };
const enduser = (t: TestRuntime) => ({ authorization: `Bearer ${t.token('enduser', 'u1')}` });

/** The embedded store posing as a shared one, to drive the consumer-group path that MongoDB uses. */
class SharedEmbeddedStore extends EmbeddedDocumentStore {
  override readonly shared = true;
}

describe('embedded document store (per process)', () => {
  let t: TestRuntime;
  let p: string;
  beforeAll(async () => {
    t = await startTestRuntime();
    p = `/${t.projectId}/CALL/Counter`;
  });
  afterAll(() => t.stop());

  test('committed changes are listed, stamped with the instance version', async () => {
    await t.post(`${p}/init/s1`, { start: 10, label: 'ten' }, key);
    await t.post(`${p}/increment/s1`, { by: 5 }, key);
    const doc = await waitFor(async () => {
      const d = await t.rt.documents.get('counters', 's1');
      return d?._v === 2 ? d : undefined;
    });
    expect(doc).toMatchObject({ _id: 's1', _v: 2, _instance: 's1', _class: 'Counter', count: 15, label: 'ten' });
    const listed = await waitFor(async () => {
      const r = await t.get(`${p}/list?min=15`, enduser(t));
      return r.body.total === 1 ? r.body : undefined;
    });
    expect(listed.items[0]).toMatchObject({ _id: 's1', count: 15 });
  });

  test('a stopped projector catches up on start with nothing lost', async () => {
    await t.post(`${p}/init/s2`, {}, key);
    await waitFor(async () => (await t.rt.documents.get('counters', 's2'))?._v === 1);
    await t.rt.projector.stop();
    for (let i = 0; i < 5; i++) await t.post(`${p}/increment/s2`, { by: 1 }, key);
    await t.post(`${p}/init/s3`, { start: 3 }, key);
    expect((await t.rt.documents.get('counters', 's2'))?.count).toBe(0);
    expect(await t.rt.documents.get('counters', 's3')).toBeNull();
    await t.rt.projector.start();
    await waitFor(async () => (await t.rt.documents.get('counters', 's2'))?.count === 5);
    expect(await t.rt.documents.get('counters', 's3')).toMatchObject({ count: 3, _v: 1 });
  });

  test('reproject rebuilds a collection from actor state', async () => {
    await t.rt.documents.drop('counters');
    expect((await t.rt.documents.find('counters', {})).total).toBe(0);
    const n = await t.rt.projector.rebuild(['Counter'], { drop: true });
    expect(n).toBeGreaterThanOrEqual(3);
    expect((await t.rt.documents.find('counters', {})).total).toBe(n);
  });

  test('a new process rebuilds its embedded store from actor state at start', async () => {
    const other = await startTestRuntime({ projectId: t.projectId, env: { ROLES: 'projector' } });
    try {
      expect(await other.rt.documents.get('counters', 's2')).toMatchObject({ count: 5 });
    } finally {
      await other.stop();
    }
  });
});

describe('shared document store (consumer group, as with MongoDB)', () => {
  let rt: Runtime;
  let store: SharedEmbeddedStore;
  const projectId = uniqueProjectId('sh');
  const call = (method: string, id: string, body: unknown = {}) =>
    rt.dispatcher.call({
      classId: 'Counter',
      method,
      instanceId: id,
      body,
      identity: { type: 'system' },
      origin: 'system',
    });

  beforeAll(async () => {
    const env = testEnv(projectId);
    store = new SharedEmbeddedStore();
    rt = await Runtime.create(loadConfig(env), env.REDIS_URL, { logger: createLogger('silent'), documents: store });
    await rt.start(0);
  });
  afterAll(() => rt.stop());

  test('entries are projected, acknowledged and removed from the outbox', async () => {
    await call('init', 'g1', { start: 1 });
    await call('increment', 'g1', { by: 1 });
    await waitFor(async () => (await store.get('counters', 'g1'))?.count === 2);
    await waitFor(async () => (await streamLength(rt, 'outbox')) === 0, { what: 'outbox drained' });
  });

  test('stop the projector, commit, start it: the documents catch up', async () => {
    await rt.projector.stop();
    await call('init', 'g2', { start: 4 });
    await call('increment', 'g1', { by: 10 });
    expect(await store.get('counters', 'g2')).toBeNull();
    expect(await streamLength(rt, 'outbox')).toBe(2);
    await rt.projector.start();
    await waitFor(async () => (await store.get('counters', 'g2'))?.count === 4);
    await waitFor(async () => (await store.get('counters', 'g1'))?.count === 12);
    await waitFor(async () => (await streamLength(rt, 'outbox')) === 0);
  });

  test('writes are idempotent by version: an older projection never overwrites a newer one', async () => {
    const current = await store.get('counters', 'g1');
    await store.upsertIfNewer('counters', { ...current!, _v: current!._v - 1, count: -1 });
    expect((await store.get('counters', 'g1'))?.count).toBe(12);
  });
});
