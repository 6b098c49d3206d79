/**
 * Committed effects (runtime/actor/effects.ts): the calls to
 * other instances that belong to a change are committed with it and applied
 * after it, in order per target, effectively once; a change that throws or
 * whose commit is refused leaves none; a process killed between commit and
 * apply has its effects applied exactly once by the sweeper.
 */
import { streamEntries, streamLength } from '../support/streams';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { effectFailure, type Effect } from '../../runtime/actor/effects';
import { ActorError, runtimeError } from '../../runtime/errors';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { uniqueProjectId } from '../support/redis';

const FIXTURES = path.join(projectRoot(), 'test/runtime/effect-fixtures');
const KEY = { 'x-api-key': TEST_API_KEY };
const running: RuntimeProcess[] = [];
let t: TestRuntime;
let p: string;

beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: FIXTURES, SCHEMA_DIRS: FIXTURES } });
  p = `/${t.projectId}/CALL`;
});
afterAll(() => t.stop());
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.kill()));
});

let seq = 0;
async function fresh(): Promise<{ shop: string; ledger: string }> {
  seq += 1;
  const shop = `s${seq}`;
  const ledger = `l${seq}`;
  expect((await t.post(`${p}/Shop/open/${shop}`, {}, KEY)).status).toBe(200);
  expect((await t.post(`${p}/Ledger/open/${ledger}`, {}, KEY)).status).toBe(200);
  return { shop, ledger };
}

const entries = async (ledger: string) => (await t.get(`${p}/Ledger/get/${ledger}`, KEY)).body.entries as string[];
const pendingEntries = () => streamLength(t.rt, 'effects');

test('effects are applied after the commit, in order, before the caller is answered', async () => {
  const { shop, ledger } = await fresh();
  const r = await t.post(`${p}/Shop/sell/${shop}`, { ledger, entries: ['a', 'b', 'c'] }, KEY);
  expect(r.status).toBe(200);
  expect(r.body.effects).toHaveLength(3);
  expect(await entries(ledger)).toEqual(['a', 'b', 'c']);
  await t.post(`${p}/Shop/sell/${shop}`, { ledger, entries: ['d', 'e'] }, KEY);
  expect(await entries(ledger)).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(await pendingEntries()).toBe(0);
});

test('a handler that throws after asking for effects leaves none anywhere', async () => {
  const { shop, ledger } = await fresh();
  const r = await t.post(`${p}/Shop/sell/${shop}`, { ledger, entries: ['x', 'y'], fail: true }, KEY);
  expect([r.status, r.body.code]).toEqual([400, 99001]);
  expect(await entries(ledger)).toEqual([]);
  expect(await pendingEntries()).toBe(0);
  expect((await t.get(`${p}/Ledger/get/${ledger}`, KEY)).body.version).toBe(1);
});

test('a commit refused for a taken lookup key leaves no effect', async () => {
  const a = await fresh();
  const b = await fresh();
  expect(
    (await t.post(`${p}/Shop/sell/${a.shop}`, { ledger: a.ledger, entries: ['first'], slot: 'taken-slot' }, KEY))
      .status,
  ).toBe(200);
  const r = await t.post(
    `${p}/Shop/sell/${b.shop}`,
    { ledger: b.ledger, entries: ['second'], slot: 'taken-slot' },
    KEY,
  );
  expect([r.status, r.body.code]).toEqual([409, 1013]);
  expect(await entries(b.ledger)).toEqual([]);
  expect(await entries(a.ledger)).toEqual(['first']);
});

test("a STATIC handler's effects are applied once it answered, and none when it threw", async () => {
  const { ledger } = await fresh();
  expect((await t.post(`${p}/Shop/note`, { ledger, entries: ['n1'] }, KEY)).status).toBe(200);
  expect((await t.post(`${p}/Shop/note`, { ledger, entries: ['n2'], fail: true }, KEY)).status).toBe(400);
  expect(await entries(ledger)).toEqual(['n1']);
});

test('an effect must be a write named by instance id, on another instance', async () => {
  const { shop } = await fresh();
  for (const [kind, code] of [
    ['read', 1021],
    ['lookup', 1020],
    ['self', 1014],
    ['unknown', 1005],
  ] as const) {
    const r = await t.post(`${p}/Shop/misuse/${shop}`, { kind }, KEY);
    expect([kind, r.body.code]).toEqual([kind, code]);
  }
});

test('a redelivered effect finds itself applied and writes nothing', async () => {
  const { shop, ledger } = await fresh();
  const r = await t.post(`${p}/Shop/sell/${shop}`, { ledger, entries: ['once'] }, KEY);
  const effect: Effect = {
    id: r.body.effects[0],
    classId: 'Ledger',
    method: 'post',
    instanceId: ledger,
    body: { entry: 'once' },
    identity: { type: 'class', classId: 'Shop', instanceId: shop },
  };
  // deliver it again, as the sweeper does for an entry whose deletion was lost
  await t.rt.redis.xadd(t.rt.store.keys.bucket(0).effects, '*', 'f', JSON.stringify([effect]));
  await t.rt.dispatcher.effects.sweep(0);
  expect(await entries(ledger)).toEqual(['once']);
  expect(await pendingEntries()).toBe(0);
  // and straight through the dispatcher: refused as applied before
  const again = await t.rt.dispatcher
    .call({
      classId: 'Ledger',
      method: 'post',
      instanceId: ledger,
      body: { entry: 'once' },
      identity: effect.identity,
      origin: 'effect',
      delivery: { id: effect.id },
    })
    .catch((e: ActorError) => e);
  expect((again as ActorError).code).toBe(1025);
  expect(await entries(ledger)).toEqual(['once']);
});

test('an effect its target refuses is dead-lettered, not retried forever', async () => {
  const { ledger } = await fresh();
  const effect: Effect = {
    id: `dead-${Date.now()}`,
    classId: 'Ledger',
    method: 'post',
    instanceId: 'no-such-ledger',
    body: { entry: 'lost' },
    identity: { type: 'class', classId: 'Shop', instanceId: 'sx' },
  };
  await t.rt.redis.xadd(t.rt.store.keys.bucket(0).effects, '*', 'f', JSON.stringify([effect]));
  await t.rt.dispatcher.effects.sweep(0);
  expect(await pendingEntries()).toBe(0);
  const dead = await streamEntries(t.rt, 'effectsDead');
  expect(dead.some(([, fields]) => fields.join(' ').includes(effect.id))).toBe(true);
  expect(await entries(ledger)).toEqual([]);
  // dead-lettered once: delivered again, it is not sent to its target (nor dead-lettered) a second time
  await t.rt.redis.xadd(t.rt.store.keys.bucket(0).effects, '*', 'f', JSON.stringify([effect]));
  await t.rt.dispatcher.effects.sweep(0);
  const deadAgain = await streamEntries(t.rt, 'effectsDead');
  expect(deadAgain.filter(([, fields]) => fields.join(' ').includes(effect.id))).toHaveLength(1);
  expect(await pendingEntries()).toBe(0);
  // an operator sees them on /metrics, with the messages given up on
  const text = await (await fetch(`${t.base}/metrics`)).text();
  expect(Number(/^runtime_dead_letters\{kind="effect"\} (\d+)$/m.exec(text)?.[1])).toBe(deadAgain.length);
  expect(Number(/^runtime_dead_letters\{kind="message"\} (\d+)$/m.exec(text)?.[1])).toBe(
    await t.rt.messages.deadLetterCount(),
  );
});

test("effectFailure: what an effect's error means", () => {
  expect(effectFailure(runtimeError('ALREADY_APPLIED', 'x'))).toBe('applied');
  expect(effectFailure(runtimeError('INSTANCE_BUSY', 'x'))).toBe('retry');
  expect(effectFailure(runtimeError('TIMEOUT', 'x'))).toBe('retry');
  expect(effectFailure(new Error('socket closed'))).toBe('retry');
  expect(effectFailure(runtimeError('VALIDATION', 'x'))).toBe('dead');
  expect(effectFailure(new ActorError(404, 5000, 'no such member'))).toBe('dead');
  expect(effectFailure(new ActorError(500, 'UNKNOWN_INSTANCE', 'no instance'))).toBe('dead');
});

test('a process killed between commit and apply: the effect is applied exactly once after restart', async () => {
  const projectId = uniqueProjectId('fx');
  const env = { CLASS_DIRS: FIXTURES, SCHEMA_DIRS: FIXTURES, LEASE_TTL_MS: '1500' };
  const child = await spawnRuntime(projectId, { ...env, ROLES: 'api' });
  running.push(child);
  const base = `${child.base}/${projectId}/CALL`;
  const post = (pathname: string, body: unknown) =>
    fetch(base + pathname, {
      method: 'POST',
      headers: { ...KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await post('/Shop/open/s', {})).status).toBe(200);
  expect((await post('/Ledger/open/l', {})).status).toBe(200);
  // the observer is started before the sale, so that the target's 3 s below need cover only seeing the effect, one read and the kill
  const observer = await startTestRuntime({ projectId, env: { ...env, ROLES: 'api' } });
  try {
    // the effect's target waits 3 s before its own commit: the shop's change is committed, its effect not yet applied
    const sale = post('/Shop/sell/s', { ledger: 'l', entries: ['paid'], delayMs: 3000 }).catch(() => null);
    const keys = observer.rt.store.keys;
    await waitFor(async () => (await observer.rt.redis.xlen(keys.of('Shop', 's').effects)) === 1, {
      what: 'the committed effect in the outbox',
    });
    const shop = await observer.rt.store.read('Shop', 's');
    expect(JSON.parse(shop!.stateJson).public.sales).toBe(1);
    await child.kill();
    await sale;
    const ledger = () =>
      observer.rt.store.read('Ledger', 'l').then((s) => JSON.parse(s!.stateJson).public.entries as string[]);
    expect(await ledger()).toEqual([]);
    // a process with the worker role sweeps the outbox at start
    const restarted = await startTestRuntime({ projectId, env: { ...env, ROLES: 'worker' } });
    try {
      await waitFor(
        async () => (await ledger()).length > 0 && (await observer.rt.redis.xlen(keys.of('Shop', 's').effects)) === 0,
        { timeoutMs: 20_000, what: 'the effect applied after the restart' },
      );
      expect(await ledger()).toEqual(['paid']);
      // sweeping again (or a second sweeper) applies nothing more
      await restarted.rt.dispatcher.effects.sweep(0);
      expect(await ledger()).toEqual(['paid']);
    } finally {
      await restarted.stop();
    }
  } finally {
    await observer.stop();
  }
}, 60_000);
