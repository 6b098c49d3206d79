/** The projector's pure parts: its settings, its bounded memory of projected versions, and that correctness does not need that memory. */
import { loadConfig } from '../../runtime/config';
import { Runtime } from '../../runtime/runtime';
import { createLogger } from '../../runtime/logger';
import { fromConfigError } from '../../runtime/startup-errors';
import { EmbeddedDocumentStore } from '../../runtime/stream/embedded-document-store';
import { Projector, SEEN_MAX, SeenVersions } from '../../runtime/stream/projector';
import {
  DEFAULT_CLAIM_IDLE_MS,
  defaultProjectorName,
  projectorSettings,
  slotProjectorName,
} from '../../runtime/stream/projector-settings';
import { testEnv, waitFor } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

describe('projector settings', () => {
  test('default: projector@<host>, claims after 30 s', () => {
    expect(projectorSettings({}, 'web-7')).toEqual({ consumer: 'projector@web-7', claimIdleMs: DEFAULT_CLAIM_IDLE_MS });
    expect(DEFAULT_CLAIM_IDLE_MS).toBe(30_000);
    expect(defaultProjectorName('h')).toBe('projector@h');
  });

  test('PROJECTOR_NAME and PROJECTOR_CLAIM_IDLE_MS are taken as given', () => {
    expect(projectorSettings({ PROJECTOR_NAME: 'projector@pod-1', PROJECTOR_CLAIM_IDLE_MS: '5000' }, 'h')).toEqual({
      consumer: 'projector@pod-1',
      claimIdleMs: 5000,
    });
  });

  test('the supervisor names each slot after the process name', () => {
    expect(slotProjectorName('projector@web-7', 0)).toBe('projector@web-7#0');
    expect(slotProjectorName('custom', 3)).toBe('custom#3');
  });

  test.each([
    ['a name with a space', { PROJECTOR_NAME: 'has space' }, 'PROJECTOR_NAME'],
    ['a name of 201 characters', { PROJECTOR_NAME: 'x'.repeat(201) }, 'PROJECTOR_NAME'],
    ['a claim bound under 100 ms', { PROJECTOR_CLAIM_IDLE_MS: '99' }, 'PROJECTOR_CLAIM_IDLE_MS'],
    ['a claim bound over an hour', { PROJECTOR_CLAIM_IDLE_MS: '3600001' }, 'PROJECTOR_CLAIM_IDLE_MS'],
    ['a claim bound that is no number', { PROJECTOR_CLAIM_IDLE_MS: 'soon' }, 'PROJECTOR_CLAIM_IDLE_MS'],
  ])('%s stops the start naming %s', (_label, env, setting) => {
    let thrown: unknown;
    try {
      loadConfig({ ...env });
    } catch (err) {
      thrown = err;
    }
    expect(fromConfigError(thrown)).toMatchObject({ setting });
  });
});

describe('SeenVersions', () => {
  test('keeps at most its bound, forgetting the instance projected longest ago', () => {
    const seen = new SeenVersions(3);
    for (const [key, v] of [
      ['a', 1],
      ['b', 1],
      ['c', 1],
    ] as const)
      seen.set(key, v);
    seen.set('a', 2); // projected again: now the most recent
    seen.set('d', 1);
    expect(seen.size).toBe(3);
    expect(seen.get('b')).toBeUndefined();
    expect([seen.get('a'), seen.get('c'), seen.get('d')]).toEqual([2, 1, 1]);
  });

  test('forgets the instances of one class', () => {
    const seen = new SeenVersions();
    seen.set('A\u0000x', 1);
    seen.set('B\u0000x', 1);
    seen.forgetClass('A');
    expect([seen.get('A\u0000x'), seen.get('B\u0000x')]).toEqual([undefined, 1]);
    expect(SEEN_MAX).toBe(100_000);
  });
});

test('a projector that remembers one instance projects every change of many right: the memory only spares reads', async () => {
  const projectId = uniqueProjectId('psb');
  const env = testEnv(projectId, { ROLES: 'api' });
  const rt = await Runtime.create(loadConfig(env), env.REDIS_URL, { logger: createLogger('silent') });
  await rt.start(0);
  const store = new EmbeddedDocumentStore();
  const projector = new Projector(rt.store, store, rt.registry, createLogger('silent'), {
    consumer: 'projector@test',
    seenMax: 1,
  });
  const call = (method: string, id: string, body: unknown) =>
    rt.dispatcher.call({
      classId: 'Counter',
      method,
      instanceId: id,
      body,
      identity: { type: 'system' },
      origin: 'system',
    });
  try {
    await projector.start();
    for (const id of ['a', 'b', 'c']) await call('init', id, { start: 1 });
    for (let round = 0; round < 3; round++) for (const id of ['a', 'b', 'c']) await call('increment', id, { by: 1 });
    await waitFor(async () => (await store.find('counters', { count: 4 })).total === 3, { what: 'every counter at 4' });
    expect(projector.seenSize).toBeLessThanOrEqual(1);
    // projecting again what was forgotten writes nothing new
    await projector.rebuild(['Counter']);
    expect((await store.find('counters', {}, { sort: { _id: 1 } })).items.map((d) => [d._id, d.count, d._v])).toEqual([
      ['a', 4, 4],
      ['b', 4, 4],
      ['c', 4, 4],
    ]);
  } finally {
    await projector.stop();
    await rt.stop();
  }
});
