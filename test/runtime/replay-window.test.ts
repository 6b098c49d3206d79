/**
 * MethodOptions.replayWindowSeconds over HTTP and real Redis: a repeat of the
 * same request by the same caller within the window gets the first answer
 * (Idempotent-Replayed) and runs nothing, also when it arrives while the
 * first still runs; another body, another caller or a repeat after the
 * window runs; a 4xx answer is replayed like a success; an Idempotency-Key
 * still takes precedence; the decorator refuses windows it could not keep.
 */
import * as path from 'node:path';
import { ActorClass, Read, Write } from '../../runtime';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const KEY = { 'x-api-key': TEST_API_KEY };
const OTHER_KEY = 'another-integration-key-0123456789';
let t: TestRuntime;

beforeAll(async () => {
  t = await startTestRuntime({
    env: {
      CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'replay-fixtures')}`,
      INTEGRATION_API_KEYS: `${TEST_API_KEY},${OTHER_KEY}`,
    },
  });
});
afterAll(() => t.stop());

const id = () => `r-${uniqueProjectId('')}`;
const bump = (
  instance: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = KEY,
  method = 'bump',
) => t.post(`/${t.projectId}/CALL/Repeat/${method}/${instance}`, body, headers);
const state = async (instance: string) => (await t.get(`/${t.projectId}/CALL/Repeat/get/${instance}`, KEY)).body;

test('a repeat within the window gets the first answer and changes nothing; another body runs', async () => {
  const i = id();
  const first = await bump(i, { by: 5 });
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ total: 5, calls: 1 });
  const again = await bump(i, { by: 5 });
  expect(again.status).toBe(200);
  expect(again.body).toEqual({ total: 5, calls: 1 });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect(await state(i)).toEqual({ total: 5, calls: 1 });
  // a newer record, then the late retry of the first: the retry does not undo it
  expect((await bump(i, { by: 2 })).body).toEqual({ total: 7, calls: 2 });
  expect((await bump(i, { by: 5 })).body).toEqual({ total: 5, calls: 1 });
  expect(await state(i)).toEqual({ total: 7, calls: 2 });
});

test('repeats that arrive while the first runs wait for its answer: applied once', async () => {
  const i = id();
  const answers = await Promise.all(Array.from({ length: 5 }, () => bump(i, { by: 1, holdMs: 300 })));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
  expect(new Set(answers.map((a) => JSON.stringify(a.body)))).toEqual(
    new Set([JSON.stringify({ total: 1, calls: 1 })]),
  );
  expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
  expect(await state(i)).toEqual({ total: 1, calls: 1 });
});

test('scoped per caller; a refusal is replayed too; an Idempotency-Key takes precedence', async () => {
  const i = id();
  expect((await bump(i, { by: 3 })).body.calls).toBe(1);
  const other = await bump(i, { by: 3 }, { 'x-api-key': OTHER_KEY });
  expect(other.body).toEqual({ total: 6, calls: 2 });

  const refused = await bump(i, { by: 1, fail: true });
  expect(refused.status).toBe(409);
  const refusedAgain = await bump(i, { by: 1, fail: true });
  expect(refusedAgain.status).toBe(409);
  expect(refusedAgain.headers.get('idempotent-replayed')).toBe('true');

  const keyed = await bump(i, { by: 3 }, { ...KEY, 'idempotency-key': `k-${i}` });
  expect(keyed.headers.get('idempotent-replayed')).toBeNull();
  expect(keyed.body).toEqual({ total: 9, calls: 3 });
});

test('after the window a repeat runs again', async () => {
  const i = id();
  expect((await bump(i, { by: 1 }, KEY, 'bumpBriefly')).body).toEqual({ total: 1 });
  await waitFor(async () => (await bump(i, { by: 1 }, KEY, 'bumpBriefly')).body.total === 2, {
    timeoutMs: 10_000,
    intervalMs: 200,
    what: 'a repeat after the window runs',
  });
});

test('the decorator refuses a window it could not keep', () => {
  expect(() => {
    @ActorClass({ id: 'Bad' })
    class Bad {
      @Write({ access: ['integration_user'], schema: false, replayWindowSeconds: 0 })
      w() {
        return null;
      }
    }
    return Bad;
  }).toThrow('method w: replayWindowSeconds must be an integer from 1 to 86400, or a function of the settings');
  expect(() => {
    @ActorClass({ id: 'Bad' })
    class Bad {
      @Read({ access: ['integration_user'], schema: false, replayWindowSeconds: 10 })
      r() {
        return null;
      }
    }
    return Bad;
  }).toThrow('method r: replayWindowSeconds is for methods that change something');
});
