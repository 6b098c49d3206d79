import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Background } from '../background';
import type { ClassRegistry, RegisteredClass } from '../actor/registry';
import type { BucketStreams, StateStore } from '../actor/state-store';
import { loadState } from '../actor/state-versions';
import { duplicate, type RedisConnection } from '../redis/connection';
import type { InstanceState } from '../types/state';
import type { DocumentStore } from './document-store';
import { blockingConnectionOverrides, startupRetryLogger, untilRedisAnswers, type RedisHealth } from '../redis/client';
import { ControlListener, type ControlRequest } from './projector-control';
import { collectionIndexes } from './listing';
import { DEFAULT_CLAIM_IDLE_MS, defaultProjectorName } from './projector-settings';

const GROUP = 'projector';
/** longest blocking read of the outbox (its connection's command time-out is this much longer) */
const READ_BLOCK_MS = 1000;
const EMBEDDED_OUTBOX_RETENTION_MS = 10 * 60_000;
/** lag() counts at most this many entries behind (embedded store: it reads them to count) */
const LAG_COUNT_MAX = 1000;
/** entries read (or claimed) at once from the consumer group */
const GROUP_READ_COUNT = 200;
/**
 * a consumer of the group holding no entry and idle this long is removed from
 * it: a live one reads every READ_BLOCK_MS, so only the names of gone
 * processes (an old host name, a former slot) are forgotten, and the group
 * does not grow with every host a projector ever ran on
 */
const CONSUMER_FORGET_MS = 3600_000;
/** instances whose last projected version each process remembers (see SeenVersions) */
export const SEEN_MAX = 100_000;

/**
 * The last version projected per instance, so that outbox entries already
 * applied (by the inline projection after a commit, or an earlier entry of
 * the same instance) are skipped without reading the state again. Only an
 * optimisation: a forgotten instance is projected again, which the store's
 * version checks make a no-op. Bounded: past `max` instances the one projected
 * longest ago is forgotten first.
 */
export class SeenVersions {
  private readonly versions = new Map<string, number>();

  constructor(readonly max = SEEN_MAX) {}

  get size(): number {
    return this.versions.size;
  }

  get(key: string): number | undefined {
    return this.versions.get(key);
  }

  set(key: string, version: number): void {
    // re-inserted, so the Map's order is the order of last projection
    this.versions.delete(key);
    this.versions.set(key, version);
    while (this.versions.size > this.max) this.versions.delete(this.versions.keys().next().value as string);
  }

  /** forgets the instances of a class (its collections were dropped) */
  forgetClass(classId: string): void {
    for (const key of [...this.versions.keys()]) if (key.startsWith(`${classId}\u0000`)) this.versions.delete(key);
  }
}

export interface ProjectorOptions {
  /** this process's consumer name in the outbox's group (PROJECTOR_NAME); stable across restarts */
  consumer?: string;
  /**
   * after a batch smaller than a full read, wait this long before reading
   * again, so that under load one read brings many entries instead of one
   * read (and one socket write) per commit; an idle outbox is still picked
   * up at once by the blocking read
   */
  batchMs?: number;
  /** entries another consumer holds unacknowledged this long are claimed (PROJECTOR_CLAIM_IDLE_MS) */
  claimIdleMs?: number;
  /** bound of the versions remembered (SEEN_MAX) */
  seenMax?: number;
}

/** seconds from an outbox entry's addition (its id's time) to `now`, 0 for none */
function ageOf(id: string | undefined, now: number): number {
  return id ? Math.max(0, (now - Number(id.split('-')[0])) / 1000) : 0;
}

/** What waits to be projected: outbox entries and the oldest one's age in seconds (0 when none). */
export interface ProjectorLag {
  entries: number;
  seconds: number;
  /**
   * by collection (when asked for): the entries whose class projects into it
   * and the oldest one's age; counted over the first `counted` entries
   */
  collections?: Record<string, { entries: number; seconds: number }>;
  /** set when the entries were too many to all be read for `collections` */
  counted?: number;
}

export interface RebuildOptions {
  /** empty the collections first (reproject): every instance is projected again */
  drop?: boolean;
  /** instances projected so far, and how many there are (counted first when this is given) */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Streams committed actor state into the document store.
 *
 * Every commit appends `{class, instance, version}` to the project's outbox
 * stream in the same Lua step as the state. The projector reads the outbox,
 * loads the instance's current state, and upserts the documents the class
 * projects, idempotently by version; documents the instance no longer
 * projects are deleted. Because it always projects current state, a stopped
 * projector catches up on restart and a projection can be rebuilt at any time.
 *
 * A shared store (MongoDB) is fed by a consumer group: each entry is handled
 * by one projector process, acknowledged and deleted. A process's consumer
 * name is stable (PROJECTOR_NAME, by default `projector@<host>`), so after a
 * restart it first reads the entries it had been handed and not acknowledged;
 * entries a consumer holds unacknowledged past PROJECTOR_CLAIM_IDLE_MS (it
 * died and is not coming back under that name, or it failed on them) are
 * claimed by a live one (XAUTOCLAIM). An entry may so be projected twice,
 * which the store's version checks make harmless. An embedded store lives
 * in each process: it is rebuilt from actor state at start, then follows the
 * outbox from that point; the outbox is trimmed by age. As no other process
 * can reach it, the CLI's `reproject` and `status` ask its running projectors
 * to rebuild it and to tell their lag (projector-control.ts).
 */
export class Projector {
  private running = false;
  /** one blocking reader per bucket's outbox (a blocking read holds its connection) */
  private readers: RedisConnection[] = [];
  private loops: Promise<void>[] = [];
  /** last version projected per instance, to skip entries already applied */
  private readonly seen: SeenVersions;
  private readonly consumer: string;
  private readonly batchMs: number;
  private readonly claimIdleMs: number;
  /** the last outbox entry this process read per bucket (embedded store: it follows each outbox from there) */
  private readonly lastRead = new Map<number, string>();
  /** inline projections started after commits, which a stop waits for */
  background?: Background;
  /** set by stop(): a rebuild in progress gives up */
  private stopping = false;
  /** told of Redis outages (one log line each) instead of logging every failed read */
  redisHealth?: RedisHealth;
  /** embedded store: takes the CLI's reproject and lag requests (projector-control.ts) */
  private control?: ControlListener;

  constructor(
    private readonly store: StateStore,
    private readonly documents: DocumentStore,
    private readonly registry: ClassRegistry,
    private readonly logger: Logger,
    options: ProjectorOptions = {},
  ) {
    this.consumer = options.consumer ?? defaultProjectorName();
    this.batchMs = options.batchMs ?? 10;
    this.claimIdleMs = options.claimIdleMs ?? DEFAULT_CLAIM_IDLE_MS;
    this.seen = new SeenVersions(options.seenMax);
  }

  /** this process's consumer name in the outbox's group */
  get consumerName(): string {
    return this.consumer;
  }

  /** instances whose projected version this process remembers (at most SEEN_MAX) */
  get seenSize(): number {
    return this.seen.size;
  }

  /** the pause after a short batch (nothing when the read was full: more is waiting) */
  private async pauseAfter(count: number, full: number): Promise<void> {
    if (this.batchMs > 0 && count < full && this.running) await new Promise((r) => setTimeout(r, this.batchMs));
  }

  private streamed(): RegisteredClass[] {
    return this.registry.list().filter((c) => c.options.stream);
  }

  /** the classes that project documents (what reproject takes) */
  streamedClassIds(): string[] {
    return this.streamed().map((c) => c.id);
  }

  async ensureIndexes(): Promise<void> {
    for (const cls of this.streamed()) {
      for (const [collection, def] of Object.entries(cls.options.stream!.collections)) {
        // the declared indexes and those the collection's listings need (listing.ts)
        await this.documents.ensureIndexes(collection, collectionIndexes(collection, def));
      }
    }
  }

  /** Project one instance from the state given (or read from Redis). */
  async project(
    classId: string,
    instanceId: string,
    known?: { version: number; stateJson: string; state?: InstanceState },
    /** project even when this version was projected (a rebuild after its collections were dropped) */
    force = false,
  ): Promise<void> {
    const cls = this.registry.get(classId);
    const stream = cls?.options.stream;
    if (!stream) return;
    const key = `${classId}\u0000${instanceId}`;
    let current = known;
    if (!current) {
      const stored = await this.store.read(classId, instanceId);
      if (!stored) return;
      current = { version: stored.version, stateJson: stored.stateJson };
    }
    if (!force && (this.seen.get(key) ?? 0) >= current.version) return;
    // documents are built here, before any await, and the store copies what it keeps
    const docs = stream.toDocuments(
      current.state ?? loadState(classId, cls.options.state, current.stateJson),
      instanceId,
    );
    // a versioned class's documents say which state shape made them (a reproject brings older ones up)
    const shape = cls.options.state ? { _sv: cls.options.state.version } : undefined;
    for (const d of docs) {
      if (!(d.collection in stream.collections)) {
        throw new Error(`${classId} projected into undeclared collection '${d.collection}'`);
      }
      await this.documents.upsertIfNewer(d.collection, {
        ...d.doc,
        ...shape,
        _id: d.id,
        _v: current.version,
        _instance: instanceId,
        _class: classId,
      });
    }
    for (const collection of Object.keys(stream.collections)) {
      await this.documents.deleteStale(collection, instanceId, current.version);
    }
    this.seen.set(key, current.version);
  }

  /** Inline projection right after a commit (embedded store: read-your-writes in this process). */
  applyCommitted(classId: string, instanceId: string, version: number, stateJson: string, state?: InstanceState): void {
    if (!this.running) return;
    const projection = this.project(classId, instanceId, { version, stateJson, state });
    (this.background?.track(projection) ?? projection).catch((err) =>
      this.logger.warn({ err, classId, instanceId }, 'inline projection failed; the outbox will retry'),
    );
  }

  /** Re-project every instance of the given classes (default: all streamed classes). */
  async rebuild(classIds?: string[], opts: RebuildOptions = {}): Promise<number> {
    const classes = this.streamed().filter((cls) => !classIds || classIds.includes(cls.id));
    let total = 0;
    if (opts.onProgress) {
      for (const cls of classes) for await (const ids of this.store.instanceIds(cls.id)) total += ids.length;
      opts.onProgress(0, total);
    }
    let count = 0;
    for (const cls of classes) {
      if (opts.drop) {
        for (const collection of Object.keys(cls.options.stream!.collections)) await this.documents.drop(collection);
        this.seen.forgetClass(cls.id);
      }
      for await (const ids of this.store.instanceIds(cls.id)) {
        if (this.stopping) throw new Error('the projector is stopping');
        for (const id of ids) {
          // after a drop every instance is projected again, even one the outbox loop projected meanwhile
          await this.project(cls.id, id, undefined, opts.drop);
          count += 1;
          if (count > total) total = count;
          opts.onProgress?.(count, total);
        }
      }
    }
    return count;
  }

  /**
   * What waits to be projected, read when metrics are scraped: outbox entries
   * not projected yet and the age of the oldest (0 when none). Shared store:
   * projected entries are deleted, so every entry left waits; embedded: the
   * entries after the last this process read (at most LAG_COUNT_MAX counted).
   * Undefined when this process does not project.
   */
  async lag(opts: { byCollection?: boolean } = {}): Promise<ProjectorLag | undefined> {
    if (!this.running) return undefined;
    return this.backlog(opts);
  }

  /**
   * lag() without the running check: with a shared store the backlog is the
   * outbox's, whoever projects it (the CLI's status reads it so); embedded, it
   * is this process's own. `byCollection` adds each collection's share.
   */
  async backlog(opts: { byCollection?: boolean } = {}): Promise<ProjectorLag> {
    const redis = this.store.redis;
    let entries = 0;
    const behind: [string, string[]][] = [];
    for (const b of this.store.keys.all) {
      if (this.documents.shared) {
        const [n, first] = await Promise.all([
          redis.xlen(b.outbox),
          redis.xrange(b.outbox, '-', '+', 'COUNT', opts.byCollection ? LAG_COUNT_MAX : 1),
        ]);
        entries += n;
        behind.push(...first);
      } else {
        const mine = await redis.xrange(
          b.outbox,
          `(${this.lastRead.get(b.bucket) ?? '0-0'}`,
          '+',
          'COUNT',
          LAG_COUNT_MAX,
        );
        entries += mine.length;
        behind.push(...mine);
      }
    }
    // oldest first across buckets (entry ids are times)
    behind.sort((x, y) => compareEntryIds(x[0], y[0]));
    // one instant for every age in the answer: the oldest collection's age is the whole backlog's
    const now = Date.now();
    const lag: ProjectorLag = { entries, seconds: ageOf(behind[0]?.[0], now) };
    if (!opts.byCollection) return lag;
    const collections: Record<string, { entries: number; seconds: number }> = {};
    for (const cls of this.streamed())
      for (const c of Object.keys(cls.options.stream!.collections)) collections[c] ??= { entries: 0, seconds: 0 };
    for (const [id, fields] of behind) {
      const classId = fields[fields.indexOf('c') + 1];
      for (const c of Object.keys(this.registry.get(classId)?.options.stream?.collections ?? {})) {
        const share = collections[c];
        // entries are read oldest first: the first one seen is the oldest
        if (share.entries === 0) share.seconds = ageOf(id, now);
        share.entries += 1;
      }
    }
    return { ...lag, collections, ...(behind.length >= LAG_COUNT_MAX ? { counted: behind.length } : {}) };
  }

  /** a CLI request (projector-control.ts): rebuild this process's store, or tell its lag */
  private async onControl(request: ControlRequest, report: (done: number, total: number) => void): Promise<unknown> {
    if (request.command === 'lag') return this.backlog({ byCollection: true });
    const known = new Set(this.streamedClassIds());
    const unknown = (request.classIds ?? []).filter((id) => !known.has(id));
    // this process may run other class code than the CLI that asked
    if (unknown.length) throw new Error(`this process has no projection for ${unknown.join(', ')}`);
    const classIds = request.classIds?.length ? request.classIds : undefined;
    this.logger.info({ classIds: classIds ?? 'all' }, 'reproject requested: rebuilding the embedded document store');
    const count = await this.rebuild(classIds, { drop: true, onProgress: report });
    this.logger.info({ count }, 'reproject done');
    return { count };
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    const redis = this.store.redis;
    const buckets = this.store.keys.all;
    this.readers = buckets.map(() => {
      const reader = duplicate(redis, blockingConnectionOverrides(redis, READ_BLOCK_MS));
      this.redisHealth?.watch(reader, 'projector');
      return reader;
    });
    const retry = { onRetry: startupRetryLogger(this.logger) };
    await this.ensureIndexes();
    if (this.documents.shared) {
      await untilRedisAnswers(
        'projector consumer groups',
        async () => {
          for (const b of buckets) {
            try {
              await redis.xgroup('CREATE', b.outbox, GROUP, '0', 'MKSTREAM');
            } catch (err) {
              if (!/BUSYGROUP/.test((err as Error).message)) throw err;
            }
          }
        },
        retry,
      );
      this.loops = buckets.map((b, i) => this.followGroup(b, this.readers[i]));
    } else {
      const from = new Map<number, string>();
      await untilRedisAnswers(
        'projector stream positions',
        async () => {
          for (const b of buckets) {
            const last = await redis.xrevrange(b.outbox, '+', '-', 'COUNT', 1);
            from.set(b.bucket, last.length ? last[0][0] : '0-0');
            this.lastRead.set(b.bucket, from.get(b.bucket)!);
          }
        },
        retry,
      );
      // upserts by version: a rebuild cut short by a time-out is run again whole
      await untilRedisAnswers('projection rebuild', () => this.rebuild(), retry);
      this.loops = buckets.map((b, i) => this.follow(b, this.readers[i], from.get(b.bucket)!));
      this.control = new ControlListener(
        redis,
        this.store.keys.base,
        // unique even for several runtimes in one process (tests)
        `${this.consumer}-${randomBytes(3).toString('hex')}`,
        (request, report) => this.onControl(request, report),
        (err) => {
          if (!this.redisHealth?.failed(err)) this.logger.error({ err }, 'projector control request failed');
        },
        this.redisHealth,
      );
      await this.control.start();
    }
  }

  private async handle(entries: [string, string[] | null][]): Promise<void> {
    // one projection per instance per batch: it projects current state, which covers every entry
    const latest = new Map<string, { classId: string; instanceId: string; version: number }>();
    for (const [, fields] of entries) {
      // an entry deleted from the stream while still pending is read back without its fields
      if (!fields) continue;
      let c: string | undefined;
      let id: string | undefined;
      let v: string | undefined;
      for (let i = 0; i < fields.length; i += 2) {
        const name = fields[i];
        if (name === 'c') c = fields[i + 1];
        else if (name === 'i') id = fields[i + 1];
        else if (name === 'v') v = fields[i + 1];
      }
      const key = `${c}\u0000${id}`;
      const version = Number(v);
      // most entries were projected already (inline after this process's own commits): nothing kept for them
      if ((this.seen.get(key) ?? 0) >= version) continue;
      if ((latest.get(key)?.version ?? 0) < version) latest.set(key, { classId: c!, instanceId: id!, version });
    }
    for (const [key, e] of latest) {
      if ((this.seen.get(key) ?? 0) >= e.version) continue;
      await this.project(e.classId, e.instanceId);
    }
  }

  /** acknowledged and deleted: a shared store's outbox holds only what waits (its length is the lag) */
  private async acknowledge(b: BucketStreams, ids: string[]): Promise<void> {
    await this.store.redis
      .multi()
      .xack(b.outbox, GROUP, ...ids)
      .xdel(b.outbox, ...ids)
      .exec();
  }

  /**
   * Takes over the entries any consumer of the group (this one included, after
   * a failed batch) has held unacknowledged for claimIdleMs, projects and
   * acknowledges them; then forgets consumers gone for good. Returns the
   * number of entries claimed.
   */
  private async claimIdle(b: BucketStreams): Promise<number> {
    const redis = this.store.redis;
    const outbox = b.outbox;
    let cursor = '0-0';
    let claimed = 0;
    do {
      const [next, entries] = (await redis.xautoclaim(
        outbox,
        GROUP,
        this.consumer,
        this.claimIdleMs,
        cursor,
        'COUNT',
        GROUP_READ_COUNT,
      )) as [string, ([string, string[] | null] | null)[]];
      // Redis 7 leaves out (and drops from the pending list) entries deleted from the stream meanwhile; 6.2 answers them as nil
      const live = entries.filter((e): e is [string, string[] | null] => Array.isArray(e));
      if (live.length) {
        await this.handle(live);
        await this.acknowledge(
          b,
          live.map((e) => e[0]),
        );
        claimed += live.length;
      }
      cursor = next;
    } while (cursor !== '0-0' && this.running);
    if (claimed)
      this.logger.info(
        { claimed, consumer: this.consumer, bucket: b.bucket },
        'projector claimed outbox entries left unacknowledged past PROJECTOR_CLAIM_IDLE_MS',
      );
    await this.forgetGoneConsumers(b);
    return claimed;
  }

  private async forgetGoneConsumers(b: BucketStreams): Promise<void> {
    const redis = this.store.redis;
    const outbox = b.outbox;
    const consumers = (await redis.xinfo('CONSUMERS', outbox, GROUP)) as unknown[][];
    for (const fields of consumers) {
      const info: Record<string, unknown> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) info[String(fields[i])] = fields[i + 1];
      const name = String(info.name);
      if (name !== this.consumer && Number(info.pending) === 0 && Number(info.idle) > CONSUMER_FORGET_MS) {
        await redis.xgroup('DELCONSUMER', outbox, GROUP, name);
      }
    }
  }

  private async followGroup(b: BucketStreams, reader: RedisConnection): Promise<void> {
    const outbox = b.outbox;
    let pendingFirst = true; // after a restart, entries handed to this name and not acknowledged come first
    // entries other consumers left are looked for at start, then every half of the idle bound
    const claimEveryMs = Math.max(50, Math.floor(this.claimIdleMs / 2));
    let nextClaim = 0;
    while (this.running) {
      try {
        if (!pendingFirst && Date.now() >= nextClaim) {
          nextClaim = Date.now() + claimEveryMs;
          await this.claimIdle(b);
        }
        const res = await reader.xreadgroup(
          'GROUP',
          GROUP,
          this.consumer,
          'COUNT',
          GROUP_READ_COUNT,
          'BLOCK',
          READ_BLOCK_MS,
          'STREAMS',
          outbox,
          pendingFirst ? '0' : '>',
        );
        const entries = res?.[0]?.[1] ?? [];
        if (pendingFirst && entries.length === 0) pendingFirst = false;
        if (!entries.length) continue;
        await this.handle(entries);
        await this.acknowledge(
          b,
          entries.map((e) => e[0]),
        );
        await this.pauseAfter(entries.length, GROUP_READ_COUNT);
      } catch (err) {
        if (!this.running) return;
        // a batch that keeps failing must not hold the loop on its own pending entries: they stay
        // pending and come back through the claim pass once idle, while new entries go on being read
        pendingFirst = false;
        if (!this.redisHealth?.failed(err)) this.logger.error({ err }, 'projector error; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async follow(b: BucketStreams, reader: RedisConnection, from: string): Promise<void> {
    const outbox = b.outbox;
    let last = from;
    let lastTrim = 0;
    while (this.running) {
      try {
        const res = await reader.xread('COUNT', 500, 'BLOCK', READ_BLOCK_MS, 'STREAMS', outbox, last);
        const entries = res?.[0]?.[1] ?? [];
        if (entries.length) {
          await this.handle(entries);
          last = entries[entries.length - 1][0];
          this.lastRead.set(b.bucket, last);
          await this.pauseAfter(entries.length, 500);
        }
        if (Date.now() - lastTrim > 60_000) {
          lastTrim = Date.now();
          await this.store.redis.xtrim(outbox, 'MINID', '~', `${Date.now() - EMBEDDED_OUTBOX_RETENTION_MS}`);
        }
      } catch (err) {
        if (!this.running) return;
        if (!this.redisHealth?.failed(err)) this.logger.error({ err }, 'projector error; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    await this.control?.stop();
    this.control = undefined;
    for (const r of this.readers) r.disconnect();
    await Promise.all(this.loops.map((l) => l.catch(() => undefined)));
    this.readers = [];
    this.loops = [];
  }
}

/** Orders two stream entry ids (`<ms>-<seq>`) by time, then sequence. */
export function compareEntryIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am - bm || as - bs;
}
