/**
 * The turn/lease manager of the exclusive path (runtime/actor/turns.ts), on a
 * real Redis: two managers stand for two processes.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { StateStore } from '../../runtime/actor/state-store';
import { TurnManager, type Turn, type TurnStart } from '../../runtime/actor/turns';
import { ActorError } from '../../runtime/errors';
import { redisUrl, uniqueProjectId } from '../support/redis';
import { waitFor } from '../support/harness';

const logger = pino({ level: 'silent' });
let redis: Redis;
let store: StateStore;

// Named, so the blocking connections the managers duplicate from it can be told apart in CLIENT LIST
const connectionName = uniqueProjectId('turns-test-');
beforeAll(() => {
  redis = new Redis(redisUrl(), { connectionName });
  store = new StateStore(redis, uniqueProjectId('turns'));
});
afterAll(() => redis.quit());

// Leases and deadlines are far longer than any stall of a loaded machine: a lease that
// expired under a stall (no renewal runs in these tests unless renewWhile does) would let a
// second holder in, and a writer past its deadline is refused, neither being the behaviour tested.
const managers: TurnManager[] = [];
const manager = (leaseTtlMs = 10_000) => {
  const m = new TurnManager({ store, logger, leaseTtlMs });
  managers.push(m);
  return m;
};
afterAll(() => managers.forEach((m) => m.close()));
const inTenSeconds = () => Date.now() + 10_000;
let n = 0;
const freshId = () => `i${++n}`;

function turnOf(start: TurnStart): Turn {
  if (start.kind !== 'turn') throw new Error(`expected a turn, got ${start.kind}`);
  return start.turn;
}

const leaseHolder = (id: string) => redis.get(store.keys.lease('C', id));

/** How many of this file's connections are blocked on a wake-up list right now. */
async function blockedWaiters(): Promise<number> {
  const list = (await redis.client('LIST')) as string;
  // flags=b: blocked now (cmd= names the last command, which an idle pooled connection keeps too)
  return list.split('\n').filter((line) => line.includes(` name=${connectionName} `) && / flags=\w*b\w* /.test(line))
    .length;
}

test('one holder across processes: a second manager waits, and is refused past its deadline', async () => {
  const id = freshId();
  const a = manager();
  const b = manager();
  const first = turnOf(await a.begin('C', id, 'upsert', false, inTenSeconds()));
  expect(await leaseHolder(id)).toBe(first.token);
  const refused = await b.begin('C', id, 'upsert', false, Date.now() + 150).catch((e: ActorError) => e);
  expect((refused as ActorError).code).toBe(1012);
  await first.abandon();
  first.end();
  expect(await leaseHolder(id)).toBeNull();
  const second = turnOf(await b.begin('C', id, 'upsert', false, inTenSeconds()));
  expect(await leaseHolder(id)).toBe(second.token);
  await second.abandon();
  second.end();
});

test('local writers take turns in arrival order', async () => {
  const id = freshId();
  const m = manager();
  const order: number[] = [];
  await Promise.all(
    [1, 2, 3].map(async (i) => {
      const turn = turnOf(await m.begin('C', id, 'upsert', false, inTenSeconds()));
      order.push(i);
      await turn.abandon();
      turn.end();
    }),
  );
  expect(order).toEqual([1, 2, 3]);
});

test('a committed lease is handed to the waiting local writer with the committed instance, no new acquire', async () => {
  const id = freshId();
  const m = manager();
  const first = turnOf(await m.begin('C', id, 'upsert', false, inTenSeconds()));
  const next = m.begin('C', id, 'upsert', false, inTenSeconds());
  await waitFor(() => m.waiting('C', id) > 0, { what: 'the second writer queued' });
  expect(first.keepAfterCommit()).toBe(true);
  const committed = { version: 7, stateJson: '{"public":{"n":1}}', lookups: {} };
  first.committed(committed, true);
  first.end();
  const second = turnOf(await next);
  expect(second.token).toBe(first.token);
  expect(second.before).toEqual(committed);
  // nobody waits after it: its lease goes back to Redis when it gives up
  expect(second.keepAfterCommit()).toBe(false);
  await second.abandon();
  second.end();
  expect(await leaseHolder(id)).toBeNull();
});

test('the lease is renewed while the handler runs, and a lost lease is reported', async () => {
  const id = freshId();
  // renewed every second (ticks every 500 ms, so at most 1.5 s apart): a stall of a second and a half still leaves the 3 s lease alive
  const m = manager(3000);
  expect(m.renewEveryMs).toBe(1000);
  const turn = turnOf(await m.begin('C', id, 'upsert', false, inTenSeconds()));
  let lost = false;
  const done = turn.renewWhile(
    async () => {
      // three renewals seen (the time-to-live jumps back up): past the 3000 ms a lease lives unrenewed
      let renewals = 0;
      let last = await redis.pttl(store.keys.lease('C', id));
      await waitFor(
        async () => {
          const now = await redis.pttl(store.keys.lease('C', id));
          if (now > last) renewals++;
          last = now;
          return renewals >= 3;
        },
        { timeoutMs: 15_000, intervalMs: 50, what: 'three lease renewals' },
      );
      expect(lost).toBe(false);
      expect(await leaseHolder(id)).toBe(turn.token);
      await redis.del(store.keys.lease('C', id)); // taken away
      // the next renewal (due within 1 s, ticks every 500 ms) finds it gone; room for stalls
      await waitFor(() => lost, { timeoutMs: 10_000, what: 'the lost lease reported' });
      return 'ok';
    },
    () => (lost = true),
  );
  expect(await done).toBe('ok');
  turn.lost();
  await turn.abandon();
  turn.end();
});

test('missing, existing and lease-free starts', async () => {
  const m = manager();
  const missing = await m.begin('C', freshId(), 'write', false, inTenSeconds());
  expect(missing.kind).toBe('missing');
  if (missing.kind !== 'turn') missing.end();
  const free = turnOf(await m.begin('C', freshId(), 'init', true, inTenSeconds()));
  expect(free.token).toBe('');
  expect(free.keepAfterCommit()).toBe(false);
  free.end();
  // an instance that exists refuses an INIT
  const id = freshId();
  await redis.hset(store.keys.instance('C', id), 'v', 1, 's', '{}');
  const exists = await m.begin('C', id, 'init', false, inTenSeconds());
  expect(exists.kind).toBe('exists');
  if (exists.kind !== 'turn') exists.end();
  expect(await leaseHolder(id)).toBeNull();
});

test('a release while another process waits hands the lease to that waiter instead of freeing it', async () => {
  const id = freshId();
  const a = manager();
  const b = manager();
  const first = turnOf(await a.begin('C', id, 'upsert', false, inTenSeconds()));
  const waiting = b.begin('C', id, 'upsert', false, inTenSeconds());
  // b registered as a waiter of the lease
  await waitFor(async () => (await redis.zcard(store.keys.leaseWaiters('C', id))) === 1, {
    what: 'b waiting for the lease',
  });
  await first.abandon();
  first.end();
  // never free in between: handed over ('handoff'), then b's
  expect(await leaseHolder(id)).not.toBeNull();
  const second = turnOf(await waiting);
  expect(await leaseHolder(id)).toBe(second.token);
  expect(await redis.zcard(store.keys.leaseWaiters('C', id))).toBe(0);
  await second.abandon();
  second.end();
  expect(await leaseHolder(id)).toBeNull();
});

test('hand-over is fair across processes: a process arriving after the release queues behind the one that waited', async () => {
  const id = freshId();
  const [a, b, c] = [manager(), manager(), manager()];
  const first = turnOf(await a.begin('C', id, 'upsert', false, inTenSeconds()));
  const order: string[] = [];
  const waitingB = b.begin('C', id, 'upsert', false, inTenSeconds()).then((s) => (order.push('b'), turnOf(s)));
  // Redis wakes the longest-blocked waiter: b counts as waiting once it is registered and blocked,
  // which are two round trips apart
  await waitFor(
    async () => (await redis.zcard(store.keys.leaseWaiters('C', id))) === 1 && (await blockedWaiters()) === 1,
    {
      what: 'b registered and blocked on the wake-up list',
    },
  );
  await first.abandon();
  first.end();
  // c arrives once the lease is released to the waiters: it must not take it before b
  const arrivingC = c.begin('C', id, 'upsert', false, inTenSeconds()).then((s) => (order.push('c'), turnOf(s)));
  const second = await waitingB;
  expect(order).toEqual(['b']);
  await second.abandon();
  second.end();
  const third = await arrivingC;
  expect(order).toEqual(['b', 'c']);
  await third.abandon();
  third.end();
});

test('a waiter that gives up leaves the waiters, so the next release frees the lease', async () => {
  const id = freshId();
  const a = manager();
  const b = manager();
  const first = turnOf(await a.begin('C', id, 'upsert', false, inTenSeconds()));
  const refused = await b.begin('C', id, 'upsert', false, Date.now() + 200).catch((e: ActorError) => e);
  expect((refused as ActorError).code).toBe(1012);
  await waitFor(async () => (await redis.zcard(store.keys.leaseWaiters('C', id))) === 0, {
    what: 'b gone from the waiters',
  });
  await first.abandon();
  first.end();
  expect(await leaseHolder(id)).toBeNull();
});
