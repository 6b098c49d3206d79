/**
 * The runtime's smaller Redis stores on a real Redis Cluster (the suite's
 * local one, TEST_REDIS_CLUSTER_NODES): refresh tokens (issue, rotation,
 * reuse detection, revocation, the move of keys stored before families had a
 * hash tag), idempotency keys, rate limits, the projector control channel and
 * the mail delivery queue, each through a connection made by connect(); and
 * the start-up check of REDIS_CLUSTER_NODES.
 *
 * Besides what each answers, every master is watched with MONITOR while they
 * run: a Lua script must name in KEYS every key it touches, all in one slot,
 * and a MULTI's keys must share one slot. A cluster refuses only some of these
 * mistakes (a key on another node); one that happens to be in a slot of the
 * same node runs, and fails later when the slots move. BullMQ's own scripts
 * build key names from their prefix, so for the mail queue only the slot is
 * checked.
 *
 * The refresh-token cases run on one redis-server (REDIS_URL) too.
 */
import { createHash } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { Redis } from 'ioredis';
import { RedisRateLimits } from '../../runtime/actor/rate-limit';
import {
  familyOfToken,
  migrateRefreshTokenKeys,
  RefreshKeys,
  RefreshTokenStore,
  type RefreshLookup,
} from '../../runtime/auth/refresh-tokens';
import { IDEMPOTENCY_IN_PROGRESS, IDEMPOTENCY_MISMATCH, IdempotencyStore } from '../../runtime/http/idempotency';
import type { Effect } from '../../runtime/actor/effects';
import { MessageDelivery } from '../../runtime/mail/delivery';
import type { OutboundMail, OutboundSms } from '../../runtime/mail/message';
import { PermanentDeliveryError, type MailTransport, type SmsTransport } from '../../runtime/mail/transport';
import { createLogger } from '../../runtime/logger';
import {
  connect,
  isCluster,
  parseClusterNodes,
  scanTargets,
  type RedisConnection,
  type RedisTarget,
} from '../../runtime/redis/connection';
import { askProjectors, ControlListener, controlChannel } from '../../runtime/stream/projector-control';
import { checkRedisReachable, StartupError } from '../../runtime/startup-errors';
import { redisUrl, uniqueProjectId } from '../support/redis';

const NODES_ENV = process.env.TEST_REDIS_CLUSTER_NODES;
if (!NODES_ENV) {
  throw new Error(
    'TEST_REDIS_CLUSTER_NODES is not set: this suite needs a Redis Cluster. Run it through jest (test/support/global-setup.js starts a local one) ' +
      'or set REDIS_CLUSTER_NODES=host:port,... to one of yours',
  );
}
const CLUSTER: RedisTarget = { kind: 'cluster', nodes: parseClusterNodes(NODES_ENV) };

const projectId = uniqueProjectId('aux');
const base = `rt:${projectId}`;

async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

// ---------------------------------------------------------------------------------------------
// MONITOR on every master: which keys each script and each MULTI touched

interface Seen {
  source: string;
  args: string[];
}

class KeyAudit {
  private readonly monitors: { name: string; conn: Redis; client: Redis; seen: Seen[] }[] = [];
  /** true: a script's commands come after the script in MONITOR's output (Redis 7.0), false: before */
  private scriptFirst = true;
  private readonly slots = new Map<string, number>();
  private readonly keysOf = new Map<string, string[]>();

  constructor(private readonly cluster: Cluster) {}

  async start(): Promise<void> {
    await this.cluster.ping();
    for (const node of this.cluster.nodes('master')) {
      const { host, port } = node.options;
      // monitor() opens a connection of its own in monitor mode
      const client = new Redis({ host, port });
      const conn = await client.monitor();
      const entry = { name: `${host}:${port}`, conn, client, seen: [] as Seen[] };
      conn.on('monitor', (_time: string, args: string[], source: string) =>
        entry.seen.push({ source, args: args.map(String) }),
      );
      this.monitors.push(entry);
    }
    // which comes first in MONITOR's output on this Redis: a script or its commands
    const probe = `${base}:audit-probe`;
    await this.cluster.eval("return redis.call('EXISTS', KEYS[1])", 1, probe);
    await this.flush();
    const seen = this.monitors.flatMap((m) => m.seen);
    const script = seen.findIndex(
      (s) => s.source !== 'lua' && /^eval/i.test(s.args[0] ?? '') && s.args.includes(probe),
    );
    const command = seen.findIndex((s) => s.source === 'lua' && s.args.includes(probe));
    if (script < 0 || command < 0) throw new Error('MONITOR did not show the probe script and its command');
    this.scriptFirst = script < command;
  }

  /** Waits until every monitor has shown what its node ran before now. */
  async flush(): Promise<void> {
    const marker = `audit-flush-${Math.random().toString(36).slice(2)}`;
    for (const m of this.monitors) {
      const [host, port] = m.name.split(':');
      const c = new Redis({ host, port: Number(port) });
      try {
        await c.echo(marker);
      } finally {
        c.disconnect();
      }
    }
    await waitFor(
      () => this.monitors.every((m) => m.seen.some((s) => s.args[0]?.toLowerCase() === 'echo' && s.args[1] === marker)),
      'the monitors to catch up',
    );
  }

  async stop(): Promise<void> {
    for (const m of this.monitors) {
      m.conn.disconnect();
      m.client.disconnect();
    }
  }

  private async slotOf(key: string): Promise<number> {
    let s = this.slots.get(key);
    if (s === undefined) {
      s = Number(await this.cluster.cluster('KEYSLOT', key));
      this.slots.set(key, s);
    }
    return s;
  }

  /** the keys of one command, as Redis itself finds them (COMMAND GETKEYS) */
  private async keys(args: string[], via: Redis): Promise<string[]> {
    const id = JSON.stringify(args);
    let keys = this.keysOf.get(id);
    if (!keys) {
      keys = ((await via.call('COMMAND', 'GETKEYS', ...args).catch(() => [])) as string[]).map(String);
      this.keysOf.set(id, keys);
    }
    return keys;
  }

  /**
   * What went wrong in the scripts and transactions that touched a key `concerns` picks: one
   * line each. `slotOnly(declared)`: a script whose undeclared keys are allowed (BullMQ's), as long
   * as they are in its slot.
   */
  async problems(
    concerns: (key: string) => boolean,
    slotOnly: (declared: string[]) => boolean,
  ): Promise<{ scripts: number; multis: number; problems: string[] }> {
    await this.flush();
    const problems: string[] = [];
    let scripts = 0;
    let multis = 0;
    const via = new Redis({
      host: this.monitors[0]!.name.split(':')[0],
      port: Number(this.monitors[0]!.name.split(':')[1]),
    });
    try {
      for (const m of this.monitors) {
        const groups: { declared: string[]; commands: string[][] }[] = [];
        let pending: string[][] = [];
        let current: { declared: string[]; commands: string[][] } | undefined;
        const open = new Map<string, string[][]>();
        const closedMultis: string[][][] = [];
        for (const s of m.seen) {
          const name = s.args[0]?.toLowerCase() ?? '';
          if (s.source === 'lua') {
            if (this.scriptFirst) current?.commands.push(s.args);
            else pending.push(s.args);
            continue;
          }
          current = undefined;
          if (name === 'eval' || name === 'evalsha' || name === 'eval_ro' || name === 'evalsha_ro') {
            const n = Number(s.args[2]);
            const group = { declared: s.args.slice(3, 3 + n), commands: this.scriptFirst ? [] : pending };
            groups.push(group);
            if (this.scriptFirst) current = group;
            pending = [];
            continue;
          }
          pending = [];
          const tx = open.get(s.source);
          if (name === 'multi') open.set(s.source, []);
          else if (name === 'exec' || name === 'discard') {
            if (tx) closedMultis.push(tx);
            open.delete(s.source);
          } else if (tx) tx.push(s.args);
        }
        for (const g of groups) {
          const touched: string[] = [];
          for (const c of g.commands) touched.push(...(await this.keys(c, via)));
          if (![...g.declared, ...touched].some(concerns)) continue;
          scripts++;
          const declaredSlots = new Set(await Promise.all(g.declared.map((k) => this.slotOf(k))));
          if (declaredSlots.size > 1)
            problems.push(`${m.name}: a script declares keys in ${declaredSlots.size} slots: ${g.declared.join(' ')}`);
          const lenient = slotOnly(g.declared);
          for (const k of touched) {
            if (lenient) {
              if (!declaredSlots.has(await this.slotOf(k)))
                problems.push(
                  `${m.name}: a script touches ${k}, outside the slot of its keys (${g.declared.join(' ')})`,
                );
            } else if (!g.declared.includes(k)) {
              problems.push(
                `${m.name}: a script touches ${k}, which it does not declare (declared: ${g.declared.join(' ') || 'none'})`,
              );
            }
          }
        }
        for (const tx of closedMultis) {
          const keys: string[] = [];
          for (const c of tx) keys.push(...(await this.keys(c, via)));
          if (!keys.some(concerns)) continue;
          multis++;
          const slots = new Set(await Promise.all(keys.map((k) => this.slotOf(k))));
          if (slots.size > 1) problems.push(`${m.name}: a MULTI spans ${slots.size} slots: ${keys.join(' ')}`);
        }
      }
    } finally {
      via.disconnect();
    }
    return { scripts, multis, problems: [...new Set(problems)] };
  }
}

// ---------------------------------------------------------------------------------------------

let cluster: RedisConnection;
let audit: KeyAudit;

beforeAll(async () => {
  cluster = connect(CLUSTER, {});
  expect(isCluster(cluster)).toBe(true);
  audit = new KeyAudit(cluster as Cluster);
  await audit.start();
});

afterAll(async () => {
  await audit?.stop();
  cluster?.disconnect();
});

async function allKeys(conn: RedisConnection, pattern: string): Promise<string[]> {
  const out: string[] = [];
  for (const node of scanTargets(conn)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      out.push(...keys);
    } while (cursor !== '0');
  }
  return out;
}

type Live = Extract<RefreshLookup, { kind: 'live' }>;

describe.each([
  ['a Redis Cluster', 'cluster'],
  ['one redis-server', 'single'],
] as const)('refresh tokens on %s', (_name, topology) => {
  let conn: RedisConnection;
  let store: RefreshTokenStore;
  const prefix = topology === 'cluster' ? base : `rt:${uniqueProjectId('rfs')}`;
  const ttlSeconds = 3600;

  beforeAll(() => {
    conn = topology === 'cluster' ? cluster : connect({ kind: 'single', url: redisUrl() }, {});
    store = new RefreshTokenStore(conn, prefix, ttlSeconds);
  });
  afterAll(() => {
    if (topology !== 'cluster') conn.disconnect();
  });

  const live = async (token: string): Promise<Live> => {
    const found = await store.lookup(token);
    expect(found.kind).toBe('live');
    return found as Live;
  };

  test('issue, rotate, and a reused token revokes its family only', async () => {
    const first = await store.create({ sub: 'u1', type: 'program_management_user', methods: ['Staff.get'] });
    expect(first).toMatch(/^rt_[A-Za-z0-9_-]{64}$/);
    const found = await live(first);
    expect(found.record).toMatchObject({
      sub: 'u1',
      type: 'program_management_user',
      methods: ['Staff.get'],
      family: familyOfToken(first),
    });
    // stored as its hash, under its family's tag, expiring with it
    const keys = new RefreshKeys(prefix);
    const key = keys.token(found.record.family, sha256(first));
    expect(key).toBe(`rt:{${prefix.slice(3)}:rf:${found.record.family}}:rft:${sha256(first)}`);
    expect(await conn.pttl(key)).toBeGreaterThan((ttlSeconds - 60) * 1000);

    const second = (await store.rotate(found))!;
    expect(second).toMatch(/^rt_[A-Za-z0-9_-]{64}$/);
    expect(familyOfToken(second)).toBe(found.record.family);
    const other = await store.create({ sub: 'u1', type: 'program_management_user' });

    const reused = await store.lookup(first);
    expect(reused).toEqual({ kind: 'reused', family: found.record.family });
    await store.revokeFamily(found.record.family);
    expect((await store.lookup(second)).kind).toBe('unknown');
    expect((await store.lookup(first)).kind).toBe('reused');
    expect((await store.lookup(other)).kind).toBe('live');
    expect(await conn.exists(keys.family(found.record.family))).toBe(0);
    // and marked: no sign-in that raced with the revocation gives it a token
    expect(await conn.exists(keys.revoked(found.record.family))).toBe(1);
    const late = sha256('late');
    const created = await (
      conn as unknown as { refreshCreate(...a: (string | number)[]): Promise<number> }
    ).refreshCreate(
      keys.token(found.record.family, late),
      keys.family(found.record.family),
      keys.revoked(found.record.family),
      JSON.stringify(found.record),
      late,
      60_000,
    );
    expect(created).toBe(0);
    expect(await conn.exists(keys.token(found.record.family, late))).toBe(0);
  });

  test('concurrent rotations of one token: one wins', async () => {
    const token = await store.create({ sub: 'u2', type: 'program_management_user' });
    const found = await live(token);
    const results = await Promise.all(Array.from({ length: 6 }, () => store.rotate(found)));
    const won = results.filter((r): r is string => r !== null);
    expect(won).toHaveLength(1);
    expect((await store.lookup(won[0]!)).kind).toBe('live');
    expect((await store.lookup(token)).kind).toBe('reused');
  });

  test("revokeAll revokes every family of the subject (spread over slots) and no one else's", async () => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => store.create({ sub: 'u3', type: 'enduser' })));
    const rotated = (await store.rotate(await live(tokens[0]!)))!;
    const otherType = await store.create({ sub: 'u3', type: 'program_management_user' });
    const otherSub = await store.create({ sub: 'u4', type: 'enduser' });
    if (topology === 'cluster') {
      const slots = new Set(
        await Promise.all(
          tokens.map((t) => cluster.cluster('KEYSLOT', new RefreshKeys(prefix).familyTag(familyOfToken(t)!))),
        ),
      );
      expect(slots.size).toBeGreaterThan(1);
    }
    await store.revokeAll('u3', 'enduser');
    for (const t of [rotated, ...tokens.slice(1)]) expect((await store.lookup(t)).kind).toBe('unknown');
    expect((await store.lookup(otherType)).kind).toBe('live');
    expect((await store.lookup(otherSub)).kind).toBe('live');
    expect(await conn.scard(new RefreshKeys(prefix).subject('enduser', 'u3'))).toBe(0);
  });

  test("a token that names no family, or not this store's format, is unknown", async () => {
    expect((await store.lookup('rt_' + 'A'.repeat(64))).kind).toBe('unknown');
    expect((await store.lookup('rt_' + 'A'.repeat(43))).kind).toBe('unknown');
    expect((await store.lookup('nonsense')).kind).toBe('unknown');
  });

  test('tokens stored before families had a hash tag are moved, and still rotate and detect reuse', async () => {
    const family = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const liveToken = `rt_${'L'.repeat(43)}`;
    const spentToken = `rt_${'S'.repeat(43)}`;
    const liveHash = sha256(liveToken);
    const spentHash = sha256(spentToken);
    const record = { sub: 'u5', type: 'enduser', family, createdMs: Date.now() - 1000 };
    // the layout before: rt:<project>:rft:<hash>, :rfx:<hash>, :rff:<family>, :rfs:<subject>
    await conn.set(`${prefix}:rft:${liveHash}`, JSON.stringify(record), 'PX', 1_800_000);
    await conn.set(`${prefix}:rfx:${spentHash}`, family, 'PX', 1_800_000);
    await conn.sadd(`${prefix}:rff:${family}`, liveHash);
    await conn.pexpire(`${prefix}:rff:${family}`, 1_800_000);
    const keys = new RefreshKeys(prefix);
    await conn.sadd(keys.subject('enduser', 'u5'), family);

    expect(await migrateRefreshTokenKeys(conn, prefix)).toBe(3);
    expect(await migrateRefreshTokenKeys(conn, prefix)).toBe(0);
    expect(await allKeys(conn, `${prefix}:rf[txf]:*`)).toEqual([]);
    const ttl = await conn.pttl(keys.token(family, liveHash));
    expect(ttl).toBeGreaterThan(1_700_000);
    expect(ttl).toBeLessThanOrEqual(1_800_000);

    const found = await live(liveToken);
    expect(found.record).toMatchObject(record);
    expect(await store.lookup(spentToken)).toEqual({ kind: 'reused', family });
    const next = (await store.rotate(found))!;
    expect(familyOfToken(next)).toBe(family);
    expect(await store.lookup(liveToken)).toEqual({ kind: 'reused', family });
    await store.revokeAll('u5', 'enduser');
    expect((await store.lookup(next)).kind).toBe('unknown');
  });
});

describe('idempotency keys on a Redis Cluster', () => {
  let store: IdempotencyStore;
  beforeAll(() => {
    store = new IdempotencyStore(cluster, base);
  });
  const request = { method: 'POST', path: '/x/CALL/C/m/1', body: { a: 1, b: [2] } };

  test('begin claims, settle stores the answer, a repeat replays it; another request is 422', async () => {
    for (let i = 0; i < 5; i++) {
      // keys of several callers: several slots
      const headers = { 'idempotency-key': `k-${i}` };
      const first = (await store.begin(headers, `api_key:caller-${i}`, request, 1000))!;
      expect(first.claim).toBeDefined();
      await expect(store.begin(headers, `api_key:caller-${i}`, request, 1000)).rejects.toMatchObject({
        status: 409,
        code: IDEMPOTENCY_IN_PROGRESS,
      });
      await first.claim!.settle({
        status: 201,
        headers: { 'content-type': 'application/json', 'x-request-id': 'r1' },
        body: { ok: i },
      });
      const again = (await store.begin(headers, `api_key:caller-${i}`, { ...request, body: { b: [2], a: 1 } }, 1000))!;
      expect(again.replay).toEqual({
        status: 201,
        headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' },
        body: { ok: i },
      });
      await expect(
        store.begin(headers, `api_key:caller-${i}`, { ...request, body: { a: 2 } }, 1000),
      ).rejects.toMatchObject({ status: 422, code: IDEMPOTENCY_MISMATCH });
    }
  });

  test('a 5xx releases the key: the retry runs', async () => {
    const headers = { 'idempotency-key': 'retry-me' };
    const first = (await store.begin(headers, 'api_key:c', request, 1000))!;
    await first.claim!.settle({ status: 503, headers: {}, body: { code: 1026 } });
    const retry = (await store.begin(headers, 'api_key:c', request, 1000))!;
    expect(retry.claim).toBeDefined();
    await retry.claim!.settle({ status: 204, headers: {}, body: undefined });
    expect((await store.begin(headers, 'api_key:c', request, 1000))!.replay).toMatchObject({
      status: 204,
      body: undefined,
    });
  });
});

describe('rate limits on a Redis Cluster', () => {
  test('max hits per window for each key, refused past it, open again after reset', async () => {
    const limits = new RedisRateLimits(cluster, base);
    for (const key of ['a@example.com', 'b@example.com', '10.0.0.1']) {
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await limits.hit('sign-in', key, { max: 3, windowSeconds: 60 }));
      expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
      expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
      expect(results[3]!.retryAfterSeconds).toBeGreaterThan(0);
      await limits.reset('sign-in', key);
      expect((await limits.hit('sign-in', key, { max: 3, windowSeconds: 60 })).allowed).toBe(true);
    }
  });
});

describe('projector control on a Redis Cluster', () => {
  test('every listener (subscribed through any node) is counted, answers, and its reports arrive', async () => {
    const errors: unknown[] = [];
    const listeners = ['p1', 'p2', 'p3'].map(
      (name) =>
        new ControlListener(
          cluster,
          base,
          name,
          async (request, report) => {
            if (request.command === 'lag') return { lag: name };
            report(1, 2);
            return { count: 2, classIds: request.classIds };
          },
          (err) => errors.push(err),
        ),
    );
    await Promise.all(listeners.map((l) => l.start()));
    try {
      await waitFor(async () => {
        const counts = await Promise.all(
          (cluster as Cluster)
            .nodes('all')
            .map((n) => n.pubsub('NUMSUB', controlChannel(base)) as Promise<[string, number]>),
        );
        return counts.reduce((a, c) => a + Number(c[1]), 0) === 3;
      }, 'the listeners to subscribe');
      const lag = await askProjectors(cluster, base, { command: 'lag' }, { idleMs: 5000 });
      expect(lag.receivers).toBe(3);
      expect(lag.unfinished).toBe(0);
      expect([...lag.reports.values()].map((r) => [r.process, r.state, r.result]).sort()).toEqual([
        ['p1', 'done', { lag: 'p1' }],
        ['p2', 'done', { lag: 'p2' }],
        ['p3', 'done', { lag: 'p3' }],
      ]);
      const seen: string[] = [];
      const rebuild = await askProjectors(
        cluster,
        base,
        { command: 'reproject', classIds: ['Member'] },
        { idleMs: 5000, onReport: (r) => seen.push(`${r.process}:${r.state}`) },
      );
      expect(rebuild.receivers).toBe(3);
      expect([...rebuild.reports.values()].every((r) => r.state === 'done' && r.done === 2)).toBe(true);
      expect(seen.filter((s) => s.endsWith(':started'))).toHaveLength(3);
      expect(errors).toEqual([]);
      // the reply streams are removed once read
      expect(await allKeys(cluster, `${base}:projector:reply:*`)).toEqual([]);
    } finally {
      await Promise.all(listeners.map((l) => l.stop()));
    }
  });

  test('no listener: no receiver, answered at once', async () => {
    const answer = await askProjectors(cluster, `${base}-none`, { command: 'lag' }, { idleMs: 5000 });
    expect(answer).toMatchObject({ receivers: 0, unfinished: 0 });
  });
});

describe('mail delivery on a Redis Cluster', () => {
  const sent: string[] = [];
  let refuse = false;
  const mail: MailTransport = {
    kind: 'embedded',
    async send(m: OutboundMail) {
      if (refuse) throw new PermanentDeliveryError('550 no such user', 550);
      sent.push(m.id);
    },
    async close() {},
  };
  const sms: SmsTransport = { kind: 'outbox', async send(_s: OutboundSms) {}, async close() {} };
  let delivery: MessageDelivery;

  beforeAll(() => {
    delivery = new MessageDelivery({
      redis: CLUSTER,
      projectId,
      mail,
      sms,
      logger: createLogger('silent'),
      attempts: 2,
      backoffMs: 20,
      concurrency: 2,
      lockMs: 5000,
    });
    delivery.startWorker();
  });
  afterAll(() => delivery.close());

  function mailEffect(n: number): Effect {
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const body: OutboundMail = { id, to: ['anna@example.com'], subject: `m ${n}`, html: '<p>x</p>' };
    return {
      id,
      port: 'mail',
      classId: '@mail',
      method: 'send',
      instanceId: id,
      body,
      identity: { type: 'class', classId: 'Mailer', instanceId: 'i1' },
    };
  }

  test('messages are queued once, sent once, and a refused one is dead-lettered', async () => {
    const effects = [1, 2, 3].map(mailEffect);
    await Promise.all([...effects, effects[0]!].map((e) => delivery.hand(e)));
    for (const e of effects) await waitFor(() => delivery.wasSent(e.id), `message ${e.id} sent`);
    expect(sent.sort()).toEqual(effects.map((e) => e.id).sort());

    refuse = true;
    const refused = mailEffect(4);
    await delivery.hand(refused);
    const [letter] = await waitFor(async () => {
      const letters = await delivery.deadLetters();
      return letters.length ? letters : undefined;
    }, 'the dead letter');
    expect(letter).toMatchObject({ id: refused.id, port: 'mail', reason: expect.stringMatching(/^refused: 550/) });

    // every BullMQ key of the queue is under its hash-tagged prefix, on one node and in one slot
    expect(delivery.queuePrefix).toBe(`rt:{${projectId}:msg}`);
    const queueKeys = await allKeys(cluster, `${delivery.queuePrefix}:*`);
    expect(queueKeys.length).toBeGreaterThan(0);
    expect(new Set(await Promise.all(queueKeys.map((k) => cluster.cluster('KEYSLOT', k)))).size).toBe(1);
  });
});

describe('the start-up check of REDIS_CLUSTER_NODES', () => {
  test('a cluster that serves every slot passes', async () => {
    await expect(checkRedisReachable(CLUSTER, 5000)).resolves.toBeUndefined();
  });

  test('no node answering, or a server not in cluster mode: a StartupError naming REDIS_CLUSTER_NODES and the nodes', async () => {
    const closed = checkRedisReachable({ kind: 'cluster', nodes: [{ host: '127.0.0.1', port: 1 }] }, 1500);
    await expect(closed).rejects.toBeInstanceOf(StartupError);
    await expect(closed).rejects.toMatchObject({
      setting: 'REDIS_CLUSTER_NODES',
      reason: 'cannot reach the Redis Cluster at 127.0.0.1:1 (no seed node accepts a connection)',
    });
    const server = new URL(redisUrl());
    const single = { host: server.hostname, port: Number(server.port || 6379) };
    await expect(checkRedisReachable({ kind: 'cluster', nodes: [single] }, 1500)).rejects.toMatchObject({
      setting: 'REDIS_CLUSTER_NODES',
      reason: expect.stringContaining('cluster support disabled'),
    });
  });
});

test('the audit notices a script that touches an undeclared key, in its slot or in another of its node', async () => {
  const tag = `selfcheck-${uniqueProjectId('')}`;
  const declared = `{${tag}}:a`;
  // a key in another slot of the same node: the cluster runs such a script
  const node = (cluster as Cluster).slots[Number(await cluster.cluster('KEYSLOT', declared))]![0]!;
  let elsewhere = '';
  for (let i = 0; !elsewhere; i++) {
    const k = `${tag}:other:${i}`;
    const slot = Number(await cluster.cluster('KEYSLOT', k));
    if ((cluster as Cluster).slots[slot]![0] === node && slot !== Number(await cluster.cluster('KEYSLOT', declared)))
      elsewhere = k;
  }
  await cluster.eval(
    "redis.call('SET', KEYS[1], 1); redis.call('SET', ARGV[1], 1); redis.call('SET', ARGV[2], 1); return 1",
    1,
    declared,
    `{${tag}}:b`,
    elsewhere,
  );
  await cluster.del(declared, `{${tag}}:b`);
  await cluster.del(elsewhere);
  const { scripts, problems } = await audit.problems(
    (k) => k.includes(tag),
    () => false,
  );
  expect(scripts).toBe(1);
  expect(problems).toEqual([
    expect.stringContaining(`touches {${tag}}:b, which it does not declare`),
    expect.stringContaining(`touches ${elsewhere}, which it does not declare`),
  ]);
});

test('no script touched a key it does not declare, and no script or MULTI spanned two slots', async () => {
  const mine = (key: string) => key.includes(projectId);
  const bullmq = (declared: string[]) => declared.some((k) => k.startsWith(`rt:{${projectId}:msg}`));
  const { scripts, multis, problems } = await audit.problems(mine, bullmq);
  expect(problems).toEqual([]);
  // the audit saw the work above: rotations, revocations, settles, limits, replies, the queue's scripts
  expect(scripts).toBeGreaterThan(20);
  expect(multis).toBeGreaterThan(10);
});
