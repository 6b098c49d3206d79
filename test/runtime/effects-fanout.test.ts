/**
 * One commit's effects on many targets (runtime/actor/effects.ts): effects on
 * different targets are applied at once, those on one target one after the
 * other in commit order, and an effect that must be retried holds back only
 * the effects behind it on its own target; redelivered, the entry applies
 * what is left, once.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { byTarget, type Effect } from '../../runtime/actor/effects';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

const FIXTURES = path.join(projectRoot(), 'test/runtime/effect-fanout-fixtures');
const KEY = { 'x-api-key': TEST_API_KEY };
let t: TestRuntime;
let p: string;

beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: FIXTURES, SCHEMA_DIRS: FIXTURES } });
  p = `/${t.projectId}/CALL`;
});
afterAll(() => t.stop());

let seq = 0;
async function boards(n: number): Promise<string[]> {
  seq += 1;
  const ids = Array.from({ length: n }, (_, i) => `b${seq}-${i}`);
  for (const id of ids) expect((await t.post(`${p}/Board/open/${id}`, {}, KEY)).status).toBe(200);
  return ids;
}

const entries = async (board: string) => (await t.get(`${p}/Board/get/${board}`, KEY)).body.entries as string[];

function post(board: string, body: Record<string, unknown>): Effect {
  return {
    id: randomUUID(),
    classId: 'Board',
    method: 'post',
    instanceId: board,
    body,
    identity: { type: 'class', classId: 'Board', instanceId: 'source' },
  };
}

/** the effects as one committed entry, applied as the committing process applies it */
async function commitAndApply(effects: Effect[]): Promise<{ entryId: string; applied: boolean }> {
  const entryId = (await t.rt.redis.xadd(t.rt.store.keys.bucket(0).effects, '*', 'f', JSON.stringify(effects)))!;
  return { entryId, applied: await t.rt.dispatcher.effects.apply({ bucket: 0, id: entryId }, effects) };
}

const entryLeft = async (entryId: string) =>
  (await t.rt.redis.xrange(t.rt.store.keys.bucket(0).effects, entryId, entryId)).length > 0;

test('effects on different targets are applied at once', async () => {
  const [a, b, c] = await boards(3);
  // a's effect waits for b's: applied one after the other, a's would give up after 5 s and wait for a retry
  const { entryId, applied } = await commitAndApply([
    post(a!, { entry: 'a1', after: { board: b, entry: 'b1' } }),
    post(b!, { entry: 'b1' }),
    post(c!, { entry: 'c1' }),
  ]);
  expect(applied).toBe(true);
  expect([await entries(a!), await entries(b!), await entries(c!)]).toEqual([['a1'], ['b1'], ['c1']]);
  expect(await entryLeft(entryId)).toBe(false);
});

test("one target's effects are applied in commit order, interleaved with other targets'", async () => {
  const ids = await boards(12);
  const effects: Effect[] = [];
  // round k posts entry k to every board; the first entry of each board is the slowest
  for (let k = 0; k < 3; k++)
    for (const id of ids) effects.push(post(id, { entry: `${id}:${k}`, ...(k === 0 ? { delayMs: 30 } : {}) }));
  const { entryId, applied } = await commitAndApply(effects);
  expect(applied).toBe(true);
  for (const id of ids) expect(await entries(id)).toEqual([`${id}:0`, `${id}:1`, `${id}:2`]);
  expect(await entryLeft(entryId)).toBe(false);
});

test('an effect that must be retried holds back its own target only; redelivered, the rest is applied once, in order', async () => {
  const [a, b, gate] = await boards(3);
  const effects = [
    post(a!, { entry: 'a1', requires: { board: gate, entry: 'open' } }),
    post(b!, { entry: 'b1' }),
    post(a!, { entry: 'a2' }),
    post(b!, { entry: 'b2' }),
  ];
  const first = await commitAndApply(effects);
  expect(first.applied).toBe(false);
  expect(await entries(a!)).toEqual([]);
  expect(await entries(b!)).toEqual(['b1', 'b2']);
  expect(await entryLeft(first.entryId)).toBe(true);

  expect((await t.post(`${p}/Board/post/${gate}`, { entry: 'open' }, KEY)).status).toBe(200);
  // as the sweeper delivers it again
  expect(await t.rt.dispatcher.effects.apply({ bucket: 0, id: first.entryId }, effects, true)).toBe(true);
  expect(await entries(a!)).toEqual(['a1', 'a2']);
  expect(await entries(b!)).toEqual(['b1', 'b2']);
  expect(await entryLeft(first.entryId)).toBe(false);
});

test('byTarget: groups by target, each in the given order, groups in order of first appearance', () => {
  const [a1, b1, a2, c1, b2] = [
    post('a', { entry: '1' }),
    post('b', { entry: '1' }),
    post('a', { entry: '2' }),
    post('c', { entry: '1' }),
    post('b', { entry: '2' }),
  ];
  const mail: Effect = { ...post('m', {}), classId: '@mail', port: 'mail' };
  expect(byTarget([a1!, b1!, mail, a2!, c1!, b2!])).toEqual([[a1, a2], [b1, b2], [mail], [c1]]);
  expect(byTarget([])).toEqual([]);
});
