/**
 * Turns and leases: who may write an instance now, in this process and across
 * processes (the exclusive path of INIT, WRITE, INTERNAL and a worker's
 * QUEUED_WRITE). Kept apart from the dispatcher, as BullMQ keeps its lock
 * manager apart from its worker: the dispatcher asks for a turn, runs the
 * handler, commits, and tells the turn how it ended.
 *
 *  1. Local turn: writers of one instance in this process queue in arrival
 *     order (KeyedFifo), so only one of them at a time asks Redis.
 *  2. Lease: `SET NX PX` with a random token in acquireInstance.lua (which also
 *     reads the state). A writer that finds it busy registers as a waiter and
 *     blocks on the lease's wake-up list (lease-wakes.ts) until the caller's
 *     deadline (then 503 INSTANCE_BUSY); a release while others wait hands the
 *     lease to the longest waiter, across processes. The commit writes only
 *     while the token still holds the lease.
 *  3. Renewal: every third of the lease's time-to-live while the handler runs
 *     (one timer renews every running turn's lease that is due); a lease
 *     found lost aborts the handler (its commit would be refused anyway).
 *  4. Handover: when another local writer waits and no other process does, a
 *     committed (or untouched) lease is kept and handed to it with the
 *     instance as committed, so a hot instance costs no acquire round trip per
 *     write; at most MAX_HANDOVERS in a row. As soon as another process waits,
 *     the commit hands the lease to it instead (fair across processes).
 *  5. Release: otherwise the lease is given back when the turn ends.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { runtimeError } from '../errors';
import { LeaseWakes, WAKE_BLOCK_MS } from './lease-wakes';
import { KeyedFifo, sleep } from './local-queue';
import type { AcquireResult, LeaseMode, StateStore, StoredInstance } from './state-store';

/** consecutive local writers that may share one lease before it is given back */
export const MAX_HANDOVERS = 32;
/**
 * consecutive local writers that may share one lease while another process
 * waits for it: a few, so each hand-over between processes (a wake-up and an
 * acquire) serves several writes, and a waiting process waits for a few writes
 * of each other process, not for a whole run of MAX_HANDOVERS
 */
export const FAIR_RUN = 4;

interface HeldLease {
  token: string;
  turns: number;
  /** the instance as committed by the previous holder */
  instance: StoredInstance;
}

/** A writer's turn on one instance: the lease (or none, for a lease-free creation) and the state it read. */
export interface Turn {
  /** the lease token ('' for a creation without a lease) */
  readonly token: string;
  /** the instance as committed before this turn; undefined when it does not exist yet */
  readonly before?: StoredInstance;
  /** whether the lease should be kept for the next local writer after this turn commits */
  keepAfterCommit(): boolean;
  /** whether it may be kept even while another process waits for it (this run of local turns is still short) */
  keepWhileOthersWait(): boolean;
  /** runs `work` while renewing the lease; `onLost` is told when the lease was lost meanwhile */
  renewWhile<T>(work: () => T | Promise<T>, onLost: () => void): Promise<T>;
  /** the commit went through: with `kept`, the lease waits for the next local writer with `instance` */
  committed(instance: StoredInstance, kept: boolean): void;
  /** the lease is no longer ours (the commit found it lost or the version moved) */
  lost(): void;
  /** nothing was committed: hand the lease on unchanged, or give it back */
  abandon(): Promise<void>;
  /** ends the local turn (always, after committed/lost/abandon) */
  end(): void;
}

export type TurnStart =
  { kind: 'turn'; turn: Turn } | { kind: 'missing'; end: () => void } | { kind: 'exists'; end: () => void };

/** Told how long a writer waited for a busy instance (runtime/metrics.ts), only when it waited. */
export interface InstanceWaitObserver {
  instanceWaited(classId: string, seconds: number): void;
}

export class TurnManager {
  /** told of each wait for a busy instance (a writer ahead in this process, or another process's lease) */
  observer?: InstanceWaitObserver;
  private readonly fifo = new KeyedFifo();
  /** leases kept between local writers of a hot instance */
  private readonly held = new Map<string, HeldLease>();
  /** turns whose handler runs now: their leases are renewed by one timer for all of them */
  private readonly renewing = new Set<LeaseTurn>();
  private renewTimer?: NodeJS.Timeout;
  /** a lease is renewed every third of its time-to-live */
  readonly renewEveryMs: number;
  /**
   * Lease tokens: this manager's random prefix and a counter, unique across
   * processes and turns as a random UUID per acquire was, without one
   */
  private readonly tokenPrefix = randomUUID();
  private tokenSeq = 0;

  /** blocking connections of the writers waiting for another process's lease */
  private readonly wakes: LeaseWakes;

  constructor(readonly deps: { store: StateStore; logger: Logger; leaseTtlMs: number }) {
    this.renewEveryMs = Math.max(100, Math.floor(deps.leaseTtlMs / 3));
    this.wakes = new LeaseWakes(deps.store.redis);
  }

  /** Closes the waiters' blocking connections (at stop). */
  close(): void {
    this.wakes.close();
  }

  /**
   * Waits for the local turn, then takes the lease handed over by the previous
   * local writer or acquires it from Redis (INIT: the instance must not exist;
   * write: it must; upsert: a missing one starts empty). `leaseFree`: an INIT
   * that creates at commit without a lease. Throws INSTANCE_BUSY past `deadline`.
   * 'missing' and 'exists' answer without a lease; their `end` ends the local turn.
   */
  async begin(classId: string, id: string, mode: LeaseMode, leaseFree: boolean, deadline: number): Promise<TurnStart> {
    const key = `${classId}\u0000${id}`;
    // nobody ahead in this process (the usual case): the turn is ours at once, without a timer or a clock read
    let endLocal = this.fifo.tryEnter(key);
    // when this writer began to wait for the instance (-1: it did not wait), for the wait observer
    let waitedFrom = -1;
    if (endLocal === undefined) {
      waitedFrom = performance.now();
      try {
        endLocal = await this.waitLocalTurn(key, deadline, classId, id);
      } catch (err) {
        this.waited(classId, waitedFrom);
        throw err;
      }
    }
    const handed = this.held.get(key);
    if (handed) this.held.delete(key);
    // the wait ends here unless the lease is still to be acquired (acquire tells then)
    if (waitedFrom >= 0 && (handed || leaseFree)) this.waited(classId, waitedFrom);
    const turn = new LeaseTurn(
      this,
      key,
      classId,
      id,
      handed ? handed.token : leaseFree ? '' : `${this.tokenPrefix}.${(++this.tokenSeq).toString(36)}`,
      handed?.turns ?? 0,
      leaseFree,
      endLocal,
    );
    try {
      if (handed) {
        if (mode === 'init') {
          // the instance exists (the previous writer committed it): the handed lease goes back to Redis
          await this.deps.store.release(classId, id, handed.token);
          return { kind: 'exists', end: endLocal };
        }
        turn.holding = true;
        turn.before = handed.instance;
      } else if (!leaseFree) {
        const acquired = await this.acquire(classId, id, turn.token, mode, deadline, waitedFrom);
        if (acquired.kind === 'exists') return { kind: 'exists', end: endLocal };
        if (acquired.kind === 'missing') return { kind: 'missing', end: endLocal };
        turn.holding = true;
        turn.before = acquired.instance;
      }
    } catch (err) {
      endLocal();
      throw err;
    }
    return { kind: 'turn', turn };
  }

  /**
   * An optimistic turn on `snapshot` (the instance as this process last saw it
   * committed), without a lease: only when nobody is ahead in this process and
   * no lease is kept here for the instance; undefined otherwise (the caller
   * then takes the lease path). Its commit (token '') writes only while the
   * instance is still at the snapshot's version and nobody holds its lease, so
   * it is as exclusive as a leased write: a version check in one Lua step.
   */
  tryOptimistic(classId: string, id: string, snapshot: StoredInstance): Turn | undefined {
    const key = `${classId}\u0000${id}`;
    if (this.held.has(key)) return undefined;
    const endLocal = this.fifo.tryEnter(key);
    if (endLocal === undefined) return undefined;
    return new OptimisticTurn(snapshot, endLocal);
  }

  /** local writers waiting for an instance (for tests and metrics) */
  waiting(classId: string, id: string): number {
    return this.fifo.waiting(`${classId}\u0000${id}`);
  }

  /** keep the lease for the next local writer while one waits, up to MAX_HANDOVERS in a row (then let other processes in) */
  shouldKeep(key: string, turns: number): boolean {
    return turns < MAX_HANDOVERS && this.fifo.waiting(key) > 0;
  }

  /** the next local writer of `key` takes this lease and instance instead of acquiring */
  handOver(key: string, lease: HeldLease): void {
    this.held.set(key, lease);
  }

  startRenewing(turn: LeaseTurn): void {
    turn.renewAt = Date.now() + this.renewEveryMs;
    this.renewing.add(turn);
    // ticks at half the renewal period: a lease is renewed at most half a period late, well inside its ttl
    this.renewTimer ??= setInterval(() => this.renewDue(), Math.max(50, Math.floor(this.renewEveryMs / 2)));
  }

  stopRenewing(turn: LeaseTurn): void {
    this.renewing.delete(turn);
    if (this.renewing.size === 0 && this.renewTimer) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
    }
  }

  private renewDue(): void {
    const now = Date.now();
    const { store, logger, leaseTtlMs } = this.deps;
    for (const turn of this.renewing) {
      if (turn.renewAt > now) continue;
      turn.renewAt = now + this.renewEveryMs;
      store.renew(turn.classId, turn.id, turn.token, leaseTtlMs).then(
        (held) => held || turn.onLost?.(),
        (err) => logger.warn({ err, classId: turn.classId, instanceId: turn.id }, 'lease renewal failed'),
      );
    }
  }

  /** a kept lease nobody is waiting for goes back to Redis */
  private dropIdleLease(key: string, classId: string, id: string): void {
    const held = this.held.get(key);
    if (!held || this.fifo.waiting(key) > 0) return;
    this.held.delete(key);
    this.deps.store
      .release(classId, id, held.token)
      .catch((err) => this.deps.logger.warn({ err }, 'lease release failed'));
  }

  private async waitLocalTurn(key: string, deadline: number, classId: string, id: string): Promise<() => void> {
    const entered = this.fifo.enter(key);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          // give our turn back as soon as it comes
          // entering the FIFO never rejects: nothing to catch
          void entered.then((release) => {
            this.dropIdleLease(key, classId, id);
            release();
          });
          reject(runtimeError('INSTANCE_BUSY', `${classId} '${id}' stayed busy for the whole time budget`));
        },
        Math.max(0, deadline - Date.now()),
      );
    });
    try {
      return await Promise.race([entered, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A writer waited for the instance since `from` (performance.now()): told to the observer. */
  private waited(classId: string, from: number): void {
    this.observer?.instanceWaited(classId, (performance.now() - from) / 1000);
  }

  /**
   * Takes the lease, waiting for a busy one without polling: the writer
   * registers as a waiter and blocks on the lease's wake-up list; the holder's
   * release hands the lease over and wakes the longest waiter, which then takes
   * it (`handoff`). A block also ends when the holder's lease would have run
   * out (a holder that died releases nothing), and after WAKE_BLOCK_MS at the
   * most. `waitedFrom`: when the writer began to wait for its local turn (-1:
   * it did not); a busy lease starts the wait too.
   */
  private async acquire(
    classId: string,
    id: string,
    token: string,
    mode: LeaseMode,
    deadline: number,
    waitedFrom: number,
  ) {
    const { store } = this.deps;
    const wakeKey = store.keys.leaseWake(classId, id);
    let handoff = false;
    let waiting = false;
    try {
      for (;;) {
        // registered until a little after this block can end: a waiter that went away drops out by itself
        const waitMs = Math.max(0, Math.min(deadline - Date.now(), WAKE_BLOCK_MS)) + WAKE_BLOCK_MS;
        const r: AcquireResult = await store
          .acquire(classId, id, token, this.deps.leaseTtlMs, mode, { handoff, waitMs })
          .catch((err) => {
            // no answer (Redis frozen or gone): the acquire may still run when Redis is back; the release
            // queued behind it on the same connection then frees the instance at once instead of after the ttl
            store.release(classId, id, token).catch(() => undefined);
            throw err;
          });
        if (r.kind !== 'busy') {
          waiting = false;
          if (waitedFrom >= 0) this.waited(classId, waitedFrom);
          return r;
        }
        waiting = true;
        if (waitedFrom < 0) waitedFrom = performance.now();
        const left = deadline - Date.now();
        if (left <= 0) {
          this.waited(classId, waitedFrom);
          throw runtimeError('INSTANCE_BUSY', `${classId} '${id}' stayed busy for the whole time budget`);
        }
        // a lease with no time-to-live left (-2: gone meanwhile) is looked at again at once
        const holderLeft: number = r.pttl > 0 ? r.pttl + 5 : 0;
        handoff = holderLeft > 0 ? await this.wakes.wait(wakeKey, Math.min(left, holderLeft, WAKE_BLOCK_MS)) : false;
        if (holderLeft === 0) await sleep(1);
      }
    } finally {
      // gave up (budget, error): a release must not hand the lease to a waiter that is gone
      if (waiting) store.leaveWaiters(classId, id, token).catch(() => undefined);
    }
  }
}

/**
 * One writer's turn: its state on a class's prototype rather than in closures
 * made per call. `holding`: the lease is ours to hand on or give back;
 * `isCommitted`: this turn's end is decided (no abandon); `isLost`: the commit
 * found the lease or version moved, so it is never handed on (only released,
 * token-checked).
 */
class LeaseTurn implements Turn {
  before?: StoredInstance;
  holding = false;
  private isCommitted = false;
  private isLost = false;
  /** when the running handler's lease is next renewed (TurnManager's ticker) */
  renewAt = 0;
  onLost?: () => void;

  constructor(
    private readonly manager: TurnManager,
    private readonly key: string,
    readonly classId: string,
    readonly id: string,
    readonly token: string,
    private readonly turns: number,
    private readonly leaseFree: boolean,
    readonly end: () => void,
  ) {}

  keepAfterCommit(): boolean {
    return !this.leaseFree && this.manager.shouldKeep(this.key, this.turns);
  }

  keepWhileOthersWait(): boolean {
    return this.turns + 1 < FAIR_RUN;
  }

  async renewWhile<T>(work: () => T | Promise<T>, onLost: () => void): Promise<T> {
    if (this.leaseFree) return work();
    this.onLost = onLost;
    this.manager.startRenewing(this);
    try {
      return await work();
    } finally {
      this.manager.stopRenewing(this);
      this.onLost = undefined;
    }
  }

  committed(instance: StoredInstance, kept: boolean): void {
    this.isCommitted = true;
    this.holding = kept;
    if (kept) this.manager.handOver(this.key, { token: this.token, turns: this.turns + 1, instance });
  }

  lost(): void {
    this.isLost = true;
  }

  async abandon(): Promise<void> {
    // after a commit the lease went on (or back) with the committed instance: nothing to undo
    if (!this.holding || this.isCommitted) return;
    this.holding = false;
    const before = this.before;
    // handed on unchanged only for a short run, as a commit keeps it while another process may wait: the
    // release then hands it to a waiting process, or frees it for the next local writer to take afresh
    if (
      !this.isLost &&
      before &&
      before.version > 0 &&
      this.turns + 1 < FAIR_RUN &&
      this.manager.shouldKeep(this.key, this.turns)
    ) {
      this.manager.handOver(this.key, { token: this.token, turns: this.turns + 1, instance: before });
    } else {
      await this.manager.deps.store.release(this.classId, this.id, this.token);
    }
  }
}

/** A turn without a lease, on a cached snapshot (TurnManager.tryOptimistic): nothing to renew, keep or give back. */
class OptimisticTurn implements Turn {
  readonly token = '';
  constructor(
    readonly before: StoredInstance,
    readonly end: () => void,
  ) {}

  keepAfterCommit(): boolean {
    return false;
  }

  keepWhileOthersWait(): boolean {
    return false;
  }

  async renewWhile<T>(work: () => T | Promise<T>): Promise<T> {
    return work();
  }

  committed(): void {}

  lost(): void {}

  async abandon(): Promise<void> {}
}
