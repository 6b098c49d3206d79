/**
 * State versions (ClassOptions.state): a class that changes its state's shape
 * declares the version it reads and the migrations to it. Pure checks of the
 * declaration and of loading, then two runtimes on one Redis and project: the
 * Ledger fixture as first written (version 1) writes instances, the Ledger two
 * shape changes later (version 3) reads them migrated, commits the new shape
 * at its next write, and migrate-state brings the rest; the old code then
 * refuses to read a state newer than itself.
 */
import * as path from 'node:path';
import { serializeState } from '../../runtime/actor/state-store';
import { checkStateVersioning, loadState } from '../../runtime/actor/state-versions';
import { ActorError } from '../../runtime';
import { migrateState } from '../../runtime/migrate-state';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const noop = () => undefined;

describe('the declaration', () => {
  test('one migration to each version above 1, in order', () => {
    expect(() => checkStateVersioning('X', { version: 1, migrations: [] })).not.toThrow();
    expect(() =>
      checkStateVersioning('X', {
        version: 3,
        migrations: [
          { to: 2, description: 'a', migrate: noop },
          { to: 3, description: 'b', migrate: noop },
        ],
      }),
    ).not.toThrow();
    expect(() =>
      checkStateVersioning('X', { version: 3, migrations: [{ to: 3, description: 'b', migrate: noop }] }),
    ).toThrow(/from 2 to 3 in order \(got 3\)/);
    expect(() =>
      checkStateVersioning('X', {
        version: 3,
        migrations: [
          { to: 3, description: 'b', migrate: noop },
          { to: 2, description: 'a', migrate: noop },
        ],
      }),
    ).toThrow(/in order/);
    expect(() => checkStateVersioning('X', { version: 0, migrations: [] })).toThrow(/integer from 1/);
    expect(() => checkStateVersioning('X', { version: 2.5, migrations: [] })).toThrow(/integer from 1/);
  });
});

describe('loading a stored state', () => {
  const versioning = {
    version: 3,
    migrations: [
      { to: 2, description: 'rename', migrate: (s: any) => void ((s.private.b = s.private.a), delete s.private.a) },
      { to: 3, description: 'double', migrate: (s: any) => ({ ...s, private: { b: s.private.b * 2 } }) },
    ],
  };

  test('a version-1 state (no "v") runs every migration; a version-2 state only the last', () => {
    expect(loadState('X', versioning, '{"private":{"a":2}}').private).toEqual({ b: 4 });
    expect(loadState('X', versioning, '{"private":{"b":5},"v":2}').private).toEqual({ b: 10 });
    expect(loadState('X', versioning, '{"private":{"b":7},"v":3}').private).toEqual({ b: 7 });
  });

  test('a class without versions reads its state as stored', () => {
    expect(loadState('X', undefined, '{"private":{"a":2}}')).toEqual({
      public: {},
      private: { a: 2 },
      user: {},
      role: {},
    });
  });

  test('a state newer than the code is refused (503 1029, retryable), never read', () => {
    let caught: unknown;
    try {
      loadState('X', versioning, '{"private":{},"v":4}');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ActorError);
    expect(caught).toMatchObject({ status: 503, code: 1029, retryable: true });
    expect(() => loadState('X', undefined, '{"v":2}')).toThrow(/version 2, newer than the 1/);
  });

  test('a migration that throws names the class and the version', () => {
    const broken = {
      version: 2,
      migrations: [
        {
          to: 2,
          description: 'x',
          migrate: () => {
            throw new Error('boom');
          },
        },
      ],
    };
    expect(() => loadState('X', broken, '{"private":{}}')).toThrow('X: the state migration to version 2 failed: boom');
  });

  test('the version is stored from 2 on: a version-1 state is written as before', () => {
    const s = { public: {}, private: { a: 1 }, user: {}, role: {} };
    expect(serializeState(s)).toBe('{"private":{"a":1}}');
    expect(serializeState(s, 1)).toBe('{"private":{"a":1}}');
    expect(serializeState(s, 3)).toBe('{"private":{"a":1},"v":3}');
  });
});

describe('a class whose state changes shape, over two deploys', () => {
  const key = { 'x-api-key': TEST_API_KEY };
  const projectId = uniqueProjectId();
  const fixtures = path.join(__dirname, 'state-fixtures');
  let v1: TestRuntime;
  let v3: TestRuntime;
  const call = (t: TestRuntime, method: string, id: string, body?: unknown) =>
    t.post(`/${projectId}/CALL/Ledger/${method}/${id}`, body ?? {}, key);
  const storedVersion = async (id: string) => {
    const stored = await v3.rt.store.read('Ledger', id);
    return (JSON.parse(stored!.stateJson) as { v?: number }).v ?? 1;
  };

  beforeAll(async () => {
    v1 = await startTestRuntime({ projectId, env: { CLASS_DIRS: path.join(fixtures, 'v1') } });
    for (let i = 0; i < 30; i++) {
      const made = await v1.post(
        `/${projectId}/CALL/Ledger/open/l${i}`,
        { owner: `Owner ${i}`, amount: i + 0.25 },
        key,
      );
      expect(made.status).toBe(200);
    }
    v3 = await startTestRuntime({ projectId, env: { CLASS_DIRS: path.join(fixtures, 'v3') } });
  });
  afterAll(async () => {
    await v1?.stop();
    await v3?.stop();
  });

  test('a READ sees the current shape; the stored state is not written by it', async () => {
    const shown = await call(v3, 'show', 'l2');
    expect([shown.status, shown.body]).toEqual([200, { holder: { name: 'Owner 2' }, amountCents: 225 }]);
    expect(await storedVersion('l2')).toBe(1);
  });

  test('the next write commits the migrated state at version 3, even one that changes nothing itself', async () => {
    const credited = await call(v3, 'credit', 'l3', { cents: 10 });
    expect([credited.status, credited.body]).toEqual([200, { holder: { name: 'Owner 3' }, amountCents: 335 }]);
    expect(await storedVersion('l3')).toBe(3);
    const peeked = await call(v3, 'peek', 'l4');
    expect([peeked.status, peeked.body]).toEqual([200, { amountCents: 425 }]);
    expect(await storedVersion('l4')).toBe(3);
    const stored = JSON.parse((await v3.rt.store.read('Ledger', 'l4'))!.stateJson);
    expect(stored).toEqual({ private: { holder: { name: 'Owner 4' }, amountCents: 425 }, v: 3 });
  });

  test('the projection is built from the migrated state and says its version', async () => {
    await call(v3, 'credit', 'l5', { cents: 1 });
    const doc = await waitFor(async () => {
      const found = await v3.rt.documents.find<Record<string, unknown>>('ledgers', { _id: 'l5' }, {});
      return found.items[0]?.holder === 'Owner 5' ? found.items[0] : undefined;
    });
    expect(doc).toMatchObject({ holder: 'Owner 5', _sv: 3 });
  });

  test('migrate-state writes every instance still behind, once; run again, it finds them current', async () => {
    const seen: number[] = [];
    const [first] = await migrateState(v3.rt, ['Ledger'], { concurrency: 4, onProgress: (_c, n) => seen.push(n) });
    expect(first).toMatchObject({ classId: 'Ledger', version: 3, instances: 30, current: 3, failed: 0, migrated: 27 });
    expect(seen[seen.length - 1]).toBe(30);
    for (let i = 0; i < 30; i++) expect({ i, v: await storedVersion(`l${i}`) }).toEqual({ i, v: 3 });
    const [again] = await migrateState(v3.rt, []);
    expect(again).toMatchObject({ instances: 30, current: 30, migrated: 0, failed: 0 });
    // values survive the migration: l3 was credited 10 cents before, nothing else changed
    expect((await call(v3, 'show', 'l3')).body).toEqual({ holder: { name: 'Owner 3' }, amountCents: 335 });
    expect((await call(v3, 'show', 'l29')).body).toEqual({ holder: { name: 'Owner 29' }, amountCents: 2925 });
  });

  test('the old code refuses a state newer than itself (503 1029) and writes nothing over it', async () => {
    const read = await call(v1, 'show', 'l7');
    expect([read.status, read.body.code]).toEqual([503, 1029]);
    const write = await call(v1, 'credit', 'l7', { amount: 1 });
    expect([write.status, write.body.code]).toEqual([503, 1029]);
    expect(JSON.parse((await v3.rt.store.read('Ledger', 'l7'))!.stateJson)).toEqual({
      private: { holder: { name: 'Owner 7' }, amountCents: 725 },
      v: 3,
    });
  });

  test('migrate-state names a class without versions instead of guessing', async () => {
    await expect(migrateState(v1.rt, ['Ledger'])).rejects.toThrow(
      'migrate-state: Ledger declares no state version; versioned classes: none',
    );
  });
});
