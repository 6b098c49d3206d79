/**
 * The key layout a project's data was written with. The number of buckets is
 * part of every instance key's name (its hash tag), so it is fixed when the
 * project first starts and stored beside its data; a process started later
 * with another REDIS_BUCKETS would read and write other keys than the data's,
 * and is refused.
 *
 * Data written before instance keys had a hash tag (the legacy layout, only
 * ever on one redis-server) is renamed once, at start, into bucket 0 of the
 * current layout: migrateLegacyLayout.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { isCluster } from '../redis/connection';
import { Keys, type StateStore } from './state-store';
import { luaSource } from './lua-source';

export interface StoredLayout {
  buckets: number;
}

/** the layout marker's value for `buckets` */
function layoutValue(buckets: number): string {
  const layout: StoredLayout = { buckets };
  return JSON.stringify(layout);
}

/** Records the layout at first start, or checks it against the one stored. */
export async function checkLayout(store: StateStore): Promise<void> {
  const { keys, redis } = store;
  if ((await redis.set(keys.layout, layoutValue(keys.buckets), 'NX')) === 'OK') return;
  const raw = await redis.get(keys.layout);
  const stored = raw ? (JSON.parse(raw) as Partial<StoredLayout>) : undefined;
  if (stored?.buckets !== undefined && stored.buckets !== keys.buckets) {
    throw new Error(
      `REDIS_BUCKETS is ${keys.buckets}, but project '${keys.projectId}' was written with ${stored.buckets} buckets; ` +
        `the number of buckets is fixed for a project's life: set REDIS_BUCKETS=${stored.buckets}`,
    );
  }
}

// ---------------------------------------------------------------------------
// The legacy layout

/**
 * One rename from the legacy layout. `from` is an old key's name, or, ending
 * in `*`, the start of old names (the rest of the name is kept); `to` is the
 * new name, ending in `*` exactly when `from` does. In both, `<p>` stands for
 * the project id and `<tag>` for bucket 0's hash tag, `rt:{<p>:0}`.
 */
export interface LegacyRename {
  from: string;
  to: string;
}

/**
 * Every key of the legacy layout that moves, old name -> new name (one bucket).
 * Keys no rule names stay where they are: lookup keys `rt:<p>:k:…` (their
 * values, the owner's id, read as before), `rt:<p>:apikeys`, `rt:<p>:roles`,
 * `rt:<p>:idem:…`, `rt:<p>:rl:…`, and keys other code moves itself.
 */
export const LEGACY_RENAMES: readonly LegacyRename[] = [
  { from: 'rt:<p>:i:*', to: '<tag>:i:*' }, // instance state (hash v, s, k, qs)
  { from: 'rt:<p>:l:*', to: '<tag>:l:*' }, // leases
  { from: 'rt:<p>:lw:*', to: '<tag>:lw:*' }, // lease waiters
  { from: 'rt:<p>:lq:*', to: '<tag>:lq:*' }, // lease wake-up lists
  { from: 'rt:<p>:qp:*', to: '<tag>:qp:*' }, // pending QUEUED_WRITE jobs per instance
  { from: 'rt:<p>:jr:*', to: '<tag>:jr:*' }, // job results
  { from: 'rt:<p>:dl:*', to: '<tag>:dl:*' }, // delivery markers
  { from: 'rt:<p>:outbox', to: '<tag>:outbox' },
  { from: 'rt:<p>:tasks', to: '<tag>:tasks' },
  { from: 'rt:<p>:events', to: '<tag>:events' },
  { from: 'rt:<p>:effects', to: '<tag>:effects' },
  { from: 'rt:<p>:effects:dead', to: '<tag>:effects:dead' },
  { from: 'rt:<p>:effects:attempts', to: '<tag>:effects:attempts' },
  // BullMQ: default prefix 'bull', queue 'rt-<p>' -> prefix <tag>, queue 'jobs' (runtime/queue/job-queue.ts)
  { from: 'bull:rt-<p>:*', to: '<tag>:jobs:*' },
  // the mail and SMS queue: prefix 'bull' -> 'rt:{<p>:msg}', same queue name (runtime/mail/delivery.ts)
  { from: 'bull:msg-<p>:*', to: 'rt:{<p>:msg}:msg-<p>:*' },
];

/** LEGACY_RENAMES made concrete for one project. */
export class LegacyNames {
  private readonly exact = new Map<string, string>();
  /** longest prefix first */
  private readonly prefixes: { from: string; to: string }[] = [];
  /** the SCAN patterns that find every old key (each rule's name up to the ':' after the project id) */
  readonly patterns: string[];

  constructor(
    readonly projectId: string,
    rules: readonly LegacyRename[] = LEGACY_RENAMES,
  ) {
    const tag = new Keys(projectId, 1).bucket(0).tag;
    const fill = (s: string) => s.split('<p>').join(projectId).split('<tag>').join(tag);
    const roots = new Set<string>();
    for (const rule of rules) {
      const star = rule.from.endsWith('*');
      if (
        star !== rule.to.endsWith('*') ||
        rule.from.slice(0, -1).includes('*') ||
        rule.to.slice(0, -1).includes('*')
      ) {
        throw new Error(`legacy rename ${rule.from} -> ${rule.to}: '*' may only end both names`);
      }
      if (rule.from.includes('<tag>')) throw new Error(`legacy rename ${rule.from}: an old name has no bucket tag`);
      const from = fill(star ? rule.from.slice(0, -1) : rule.from);
      const to = fill(star ? rule.to.slice(0, -1) : rule.to);
      if (star) this.prefixes.push({ from, to });
      else this.exact.set(from, to);
      roots.add(rootOf(rule.from, projectId, from));
    }
    this.prefixes.sort((a, b) => b.from.length - a.from.length);
    // a root inside another's is found by that one's SCAN
    const sorted = [...roots].sort((a, b) => a.length - b.length);
    const kept: string[] = [];
    for (const r of sorted) if (!kept.some((k) => r.startsWith(k))) kept.push(r);
    this.patterns = kept.map((r) => `${globEscape(r)}*`);
  }

  /** the new name of old key `key`, undefined when no rule names it */
  newName(key: string): string | undefined {
    const exact = this.exact.get(key);
    if (exact !== undefined) return exact;
    for (const p of this.prefixes)
      if (key.startsWith(p.from) && key.length > p.from.length) return p.to + key.slice(p.from.length);
    return undefined;
  }
}

/**
 * The literal start every old key of a rule begins with: its name up to the
 * first ':' after the project id (`rt:<p>:`, `bull:rt-<p>:`), or all of it.
 * `filled` is the rule's `from` made concrete, without its '*'.
 */
function rootOf(template: string, projectId: string, filled: string): string {
  const at = template.indexOf('<p>');
  if (at < 0) return filled;
  const colon = filled.indexOf(':', at + projectId.length);
  return colon < 0 ? filled : filled.slice(0, colon + 1);
}

function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** What migrateLegacyLayout found and did. */
export interface LegacyMigration {
  /**
   * cluster: not looked at (a cluster never held the legacy layout);
   * current: the layout marker was there; none: no legacy key, the marker written;
   * migrated: this process renamed the legacy keys; waited: another process did
   */
  outcome: 'cluster' | 'current' | 'none' | 'migrated' | 'waited';
  /** keys renamed by this process */
  renamed: number;
  /** keys gone before their rename (renamed by another process, or expired) */
  gone: number;
  /** old keys left in place because their new name holds a key already (for an operator) */
  conflicts: { from: string; to: string }[];
}

export interface LegacyMigrationOptions {
  /** how long a process waits for another's migration before it gives up (ms) */
  waitMs?: number;
  /** the migration lock's time-to-live (ms), renewed every third of it while the migration runs */
  lockMs?: number;
  /** how often a waiting process looks for the marker (ms) */
  pollMs?: number;
  /** SCAN's COUNT, and the renames sent together */
  batch?: number;
}

const DEFAULTS: Required<LegacyMigrationOptions> = { waitMs: 15 * 60_000, lockMs: 30_000, pollMs: 250, batch: 500 };
/** conflicts named one per log line; the count covers them all */
const CONFLICTS_LOGGED = 50;

/** the lock a migrating process holds (a project-wide key, named by no rename) */
export function migrationLockKey(keys: Keys): string {
  return `${keys.layout}:migrating`;
}

/**
 * Renames the project's keys of the legacy layout (before instance keys had
 * a hash tag) to bucket 0 of the current layout, once; called at start
 * before checkLayout. Only on a single server (a cluster never held the
 * legacy layout), and only while the layout marker is absent: once it is
 * written, a start costs one EXISTS.
 *
 * One process migrates, holding a lock (renewed while it runs); processes
 * starting meanwhile wait until it has written the marker (at most
 * `waitMs`), or take over when its lock lapses without one (it died: the
 * keys it had not renamed yet are renamed then). Each key is renamed with
 * RENAMENX: a key gone meanwhile is skipped, and a key whose new name is
 * taken already is left in place and reported (logged, `conflicts`), never
 * overwritten. The marker is written once every key is renamed, so
 * checkLayout, after this, finds it.
 *
 * Legacy keys need REDIS_BUCKETS=1 (job results and delivery markers do not
 * name their instance, so they cannot be spread over buckets): otherwise this
 * throws. It also throws while a worker of the legacy queue is connected:
 * every process of the previous version must be stopped first.
 */
export async function migrateLegacyLayout(
  store: StateStore,
  log: (fields: Record<string, unknown>, msg: string) => void,
  options: LegacyMigrationOptions = {},
): Promise<LegacyMigration> {
  const opts = { ...DEFAULTS, ...options };
  const { keys } = store;
  const result: LegacyMigration = { outcome: 'current', renamed: 0, gone: 0, conflicts: [] };
  if (isCluster(store.redis)) return { ...result, outcome: 'cluster' };
  const redis = store.redis as Redis;
  if ((await redis.exists(keys.layout)) === 1) return result;

  const names = new LegacyNames(keys.projectId);
  const lock = migrationLockKey(keys);
  const deadline = Date.now() + opts.waitMs;
  let waited = false;
  for (;;) {
    if ((await redis.exists(keys.layout)) === 1) return { ...result, outcome: waited ? 'waited' : 'current' };
    const token = randomBytes(9).toString('base64url');
    if ((await redis.set(lock, token, 'PX', opts.lockMs, 'NX')) === 'OK') {
      const held = holdLock(redis, lock, token, opts.lockMs);
      try {
        const outcome = await migrateHolding(store, redis, names, log, opts, held, result);
        if (outcome !== 'lost') return { ...result, outcome };
        log(
          { project: keys.projectId, renamed: result.renamed },
          'legacy key layout: lost the migration lock; waiting for the process that took it',
        );
      } finally {
        held.stop();
        await redis.eval(luaSource('releaseLockIfMine'), 1, lock, token).catch(() => undefined);
      }
    } else if (!waited) {
      log(
        { project: keys.projectId, lock },
        'legacy key layout: another process is migrating it; waiting until it has finished',
      );
    }
    waited = true;
    if (Date.now() >= deadline) {
      throw new Error(
        `project '${keys.projectId}': waited ${Math.ceil(opts.waitMs / 1000)} s for another process to migrate the legacy key layout ` +
          `(lock ${lock}) and it has not finished: look at that process's log, then start again`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(opts.pollMs, Math.max(0, deadline - Date.now()))));
  }
}

interface HeldLock {
  /** false once a renewal found the lock no longer ours */
  readonly mine: boolean;
  stop(): void;
}

function holdLock(redis: Redis, lock: string, token: string, lockMs: number): HeldLock {
  const state = { mine: true };
  const timer = setInterval(
    () => {
      redis.eval(luaSource('renewLockIfMine'), 1, lock, token, lockMs).then(
        (r) => {
          if (Number(r) !== 1) state.mine = false;
        },
        () => undefined, // a failed renewal is tried again; the next batch's commands fail the same way
      );
    },
    Math.max(10, Math.floor(lockMs / 3)),
  );
  timer.unref();
  return {
    get mine() {
      return state.mine;
    },
    stop: () => clearInterval(timer),
  };
}

/** The migration, by the lock's holder: 'lost' when the lock stopped being its own before it finished. */
async function migrateHolding(
  store: StateStore,
  redis: Redis,
  names: LegacyNames,
  log: (fields: Record<string, unknown>, msg: string) => void,
  opts: Required<LegacyMigrationOptions>,
  held: HeldLock,
  result: LegacyMigration,
): Promise<'none' | 'migrated' | 'waited' | 'lost'> {
  const { keys } = store;
  // another process may have finished between our look and our lock
  if ((await redis.exists(keys.layout)) === 1) return 'waited';
  const first = await findLegacyKey(redis, names, opts.batch);
  if (first === undefined) {
    await redis.set(keys.layout, layoutValue(keys.buckets), 'NX');
    return 'none';
  }
  if (keys.buckets !== 1) {
    throw new Error(
      `project '${keys.projectId}' has data in the legacy key layout (e.g. ${first}), which can only be migrated to REDIS_BUCKETS=1 ` +
        `(job results and delivery markers do not name their instance, so they cannot be spread over buckets), but REDIS_BUCKETS is ${keys.buckets}: ` +
        `start with REDIS_BUCKETS=1`,
    );
  }
  const workers = await legacyWorkers(redis, keys.projectId);
  if (workers === undefined) {
    log(
      { project: keys.projectId },
      'legacy key layout: CLIENT LIST is not allowed, so running workers of the previous version cannot be looked for; make sure none runs',
    );
  } else if (workers > 0) {
    throw new Error(
      `project '${keys.projectId}' has data in the legacy key layout, and ${workers} worker connection(s) of the previous version's queue ('rt-${keys.projectId}') are open: ` +
        `stop every process of the previous version, then start this one (its key layout differs, and the data is renamed once at start)`,
    );
  }
  const started = Date.now();
  log(
    { project: keys.projectId, example: first },
    'legacy key layout found: renaming its keys to bucket 0 of the current layout',
  );
  const done = await renameLegacyKeys(redis, names, opts.batch, result, () => held.mine);
  if (!done) return 'lost';
  for (const c of result.conflicts.slice(0, CONFLICTS_LOGGED)) {
    log(
      { project: keys.projectId, from: c.from, to: c.to },
      'legacy key left in place: its new name holds a key already (not overwritten; an operator decides which to keep)',
    );
  }
  // written only now: a process that sees it knows every key is renamed
  await redis.set(keys.layout, layoutValue(1), 'NX');
  log(
    {
      project: keys.projectId,
      renamed: result.renamed,
      gone: result.gone,
      conflicts: result.conflicts.length,
      ms: Date.now() - started,
    },
    `legacy key layout migrated: ${result.renamed} keys renamed, ${result.gone} gone before their turn, ${result.conflicts.length} left in place (new name taken)`,
  );
  return 'migrated';
}

/** a key of the legacy layout, undefined when there is none (stops at the first) */
export async function findLegacyKey(redis: Redis, names: LegacyNames, count = 500): Promise<string | undefined> {
  for (const pattern of names.patterns) {
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      const hit = batch.find((k) => names.newName(k) !== undefined);
      if (hit !== undefined) return hit;
    } while (cursor !== '0');
  }
  return undefined;
}

/**
 * Renames every legacy key (RENAMENX, a SCAN page at a time), adding to
 * `result`. false when `stillMine` turned false before it finished (nothing
 * more is renamed then). Safe beside another run of itself: a key either
 * renames once or is found gone.
 */
export async function renameLegacyKeys(
  redis: Redis,
  names: LegacyNames,
  count: number,
  result: LegacyMigration,
  stillMine: () => boolean = () => true,
): Promise<boolean> {
  for (const pattern of names.patterns) {
    let cursor = '0';
    do {
      if (!stillMine()) return false;
      const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      const moves: { from: string; to: string }[] = [];
      for (const from of batch) {
        const to = names.newName(from);
        if (to !== undefined) moves.push({ from, to });
      }
      if (!moves.length) continue;
      const pipe = redis.pipeline();
      for (const m of moves) pipe.renamenx(m.from, m.to);
      const out = (await pipe.exec()) ?? [];
      moves.forEach((m, i) => {
        const [err, r] = out[i] ?? [new Error('no reply')];
        if (err) {
          // renamed by another process, or expired, since the SCAN saw it
          if (/no such key/i.test(err.message)) result.gone++;
          else throw new Error(`renaming ${m.from} to ${m.to}: ${err.message}`);
        } else if (Number(r) === 1) result.renamed++;
        // (SCAN may return a key twice)
        else if (!result.conflicts.some((c) => c.from === m.from)) result.conflicts.push(m);
      });
    } while (cursor !== '0');
  }
  return true;
}

/**
 * How many worker connections of the legacy queue (BullMQ names a worker's
 * blocking connection `<prefix>:<base64(queue name)>`) are open; undefined
 * when CLIENT LIST is refused.
 */
async function legacyWorkers(redis: Redis, projectId: string): Promise<number | undefined> {
  const name = `bull:${Buffer.from(`rt-${projectId}`).toString('base64')}`;
  let list: string;
  try {
    list = String(await redis.client('LIST'));
  } catch {
    return undefined;
  }
  let n = 0;
  for (const line of list.split('\n')) {
    const m = / name=(\S*)/.exec(line);
    if (m && (m[1] === name || m[1].startsWith(`${name}:w:`))) n++;
  }
  return n;
}
