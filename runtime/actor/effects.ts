/**
 * Committed effects: the calls to other instances that belong to a change
 * (its approval record, its audit entries, the mails and notifications it
 * sends), committed with the change as an outbox entry and applied after it.
 *
 *  - A handler asks for one with ctx.effect(): the target is checked at once
 *    (method, kind, access) and the effect gets its id up front; nothing runs yet.
 *  - The commit of the change writes every effect of the call as one entry of
 *    the effect stream, in the same Lua step as the state: a handler that
 *    throws, times out or loses its commit leaves no effect anywhere.
 *  - Right after the commit the committing process applies the entry's effects,
 *    then deletes the entry. Effects on different targets are applied at once
 *    (up to EFFECT_PARALLELISM calls per entry; messages for the mail and SMS
 *    ports all together, which their delivery queue takes in batches); the
 *    effects on one target are applied one after the other, in commit order
 *    within the process, and an effect waiting for a retry holds back the
 *    ones behind it on its target only. A sweeper applies entries left behind
 *    (a crash between commit and apply, a target that was busy or down) once
 *    they are a few seconds old.
 *  - Effectively once: each effect is delivered with its id, and the target's
 *    commit records that id in the same Lua step (or refuses when it is recorded
 *    already): a redelivered effect finds itself applied and does nothing.
 *  - An effect its target refuses (4xx) will not succeed by retrying: it goes
 *    to the dead-letter stream with the answer; so does one still failing after
 *    MAX_ATTEMPTS tries.
 */
import type { Logger } from 'pino';
import { ActorError, RuntimeCodes, UNKNOWN_INSTANCE_CODE } from '../errors';
import { DELIVERY_MARKER_TTL_S, type StateStore, type StreamEntry } from './state-store';
import type { CallResult } from '../types/calls';
import type { Identity } from '../types/identity';

export interface Effect {
  /** chosen up front; the target's commit records it */
  id: string;
  classId: string;
  method: string;
  instanceId: string;
  body: unknown;
  /** the class that caused it (with the tenant of the call that made the change) */
  identity: Identity;
  /**
   * A message to an outside system (ctx.mail.send, ctx.sms.send) rather than a
   * call: `body` is the message, `classId` '@mail' or '@sms', `instanceId` the
   * message id; applying it hands it to that port's delivery queue (runtime/mail).
   */
  port?: 'mail' | 'sms';
}

export interface EffectCall {
  classId: string;
  method: string;
  instanceId: string;
  body: unknown;
  identity: Identity;
  origin: 'effect';
  delivery: { id: string; finishesEntry?: string };
  requestId: string;
}

export interface EffectApplierOptions {
  store: StateStore;
  call: (req: EffectCall) => Promise<CallResult>;
  logger: Logger;
  /** entries older than this are the sweeper's (default 5 s) */
  sweepAgeMs?: number;
  maxAttempts?: number;
}

export const EFFECT_MAX_ATTEMPTS = 20;

/**
 * Calls of one entry's effects in flight at once (each on another target). A
 * fan-out (one inbox item for each of 10 000 members) otherwise takes one
 * round of lease, commit and answer per target, one after the other.
 */
export const EFFECT_PARALLELISM = 32;

/** applied-finished: applied by a commit that also deleted the entry */
type Outcome = 'applied' | 'applied-finished' | 'retry' | 'dead';

/** Pure: what an effect's failure means. */
export function effectFailure(err: unknown): 'applied' | 'retry' | 'dead' {
  if (!(err instanceof ActorError)) return 'retry';
  if (err.code === RuntimeCodes.ALREADY_APPLIED.code) return 'applied';
  // a target instance that does not exist will not appear by waiting (its answer is a 500 by spec 4.1 rule 3)
  if (err.code === UNKNOWN_INSTANCE_CODE) return 'dead';
  if (err.status >= 500 || err.retryable) return 'retry';
  return 'dead';
}

export class EffectApplier {
  /** the last application queued per target: effects to one target run in order */
  private readonly tails = new Map<string, Promise<unknown>>();
  /** entries this process is applying now (the sweeper leaves them alone) */
  private readonly inFlight = new Set<string>();
  private sweeper?: NodeJS.Timeout;
  private sweeping?: Promise<number>;
  /**
   * Told of a failed sweep; true when it took the error as a Redis outage it
   * reports itself (one line per outage instead of one per sweep).
   */
  onSweepError?: (err: unknown) => boolean;
  /** Hands a committed message (an effect with `port`) to its delivery queue, once per message id; set by the runtime. */
  outbound?: (effect: Effect) => Promise<void>;

  constructor(private readonly opts: EffectApplierOptions) {}

  private get redis() {
    return this.opts.store.redis;
  }

  private get keys() {
    return this.opts.store.keys;
  }

  /**
   * Applies one commit's effects and deletes the entry when every effect is
   * applied (or dead). Effects on different targets run at once; an effect that
   * must be retried stops the ones behind it on its target, the others go on,
   * and the entry (with what is left of it) stays for the sweeper. An entry of
   * one effect is deleted by that effect's commit, in the same Lua step. Never
   * throws.
   */
  async apply(entry: StreamEntry, effects: Effect[], redelivery = false): Promise<boolean> {
    const entryId = entry.id;
    const flight = `${entry.bucket}/${entryId}`;
    if (this.inFlight.has(flight)) return false;
    this.inFlight.add(flight);
    const streams = this.keys.bucket(entry.bucket);
    try {
      let counted = false;
      /** the entry's attempt count for effects that must be retried: false while they may wait, true once they are dead-lettered */
      const giveUp = async (stuck: Effect[]): Promise<boolean> => {
        const attempts = await this.redis.hincrby(streams.effectAttempts, entryId, 1).catch(() => 0);
        counted = true;
        if (attempts < (this.opts.maxAttempts ?? EFFECT_MAX_ATTEMPTS)) return false;
        for (const effect of stuck) await this.deadLetter(effect, entryId, `still failing after ${attempts} attempts`);
        // the effects behind them start their own count
        await this.redis.hdel(streams.effectAttempts, entryId);
        return true;
      };
      let finished = false;
      if (effects.length === 1) {
        const only = effects[0];
        // its commit deletes the entry in the same Lua step (no round trip of its own) when the entry is in its target's bucket
        const sameBucket = !only.port && this.keys.bucketOf(only.classId, only.instanceId) === entry.bucket;
        const outcome = await this.inOrder(only, sameBucket ? entryId : undefined, redelivery);
        if (outcome === 'retry' && !(await giveUp(effects))) return false;
        finished = outcome === 'applied-finished';
      } else {
        let pending = byTarget(effects);
        while (pending.length) {
          const stuck = await this.applyGroups(pending, redelivery);
          if (!stuck.length) break;
          if (!(await giveUp(stuck.map((s) => s.effect)))) return false;
          pending = stuck.map((s) => s.rest).filter((rest) => rest.length > 0);
        }
      }
      // the entry is still there when its effect was not committed by this process (applied before, dead, a STATIC target, a message) or it had several
      if (!finished || counted) {
        await this.redis.multi().xdel(streams.effects, entryId).hdel(streams.effectAttempts, entryId).exec();
      }
      return true;
    } catch (err) {
      this.opts.logger.warn(
        { err, entryId, bucket: entry.bucket },
        'applying committed effects failed; the sweeper retries',
      );
      return false;
    } finally {
      this.inFlight.delete(flight);
    }
  }

  /**
   * Applies groups of effects, each group one target's in order: messages all
   * at once (each is its own target), calls up to EFFECT_PARALLELISM at once.
   * Answers, per group stopped by an effect to retry, that effect and the ones
   * behind it. Rejects (once every group has settled) when one failed outright.
   */
  private async applyGroups(groups: Effect[][], redelivery: boolean): Promise<Stuck[]> {
    const slots = limiter(EFFECT_PARALLELISM);
    const runs: Promise<Stuck | undefined>[] = [];
    for (const group of groups) {
      if (group[0].port) {
        // a message's id is its target: nothing to keep in order with it; the delivery queue batches what comes at once
        runs.push(
          ...group.map((m, i) =>
            this.handOver(m).then((o) => (o === 'retry' ? { effect: m, rest: group.slice(i + 1) } : undefined)),
          ),
        );
      } else {
        runs.push(this.inOrderGroup(group, slots, redelivery));
      }
    }
    const settled = await Promise.allSettled(runs);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
  }

  /** One target's effects of an entry, after what was queued for that target before, in a slot of the entry's. */
  private inOrderGroup(group: Effect[], slots: Limiter, redelivery: boolean): Promise<Stuck | undefined> {
    const key = targetKey(group[0]);
    const previous = this.tails.get(key);
    const next = async (): Promise<Stuck | undefined> => {
      const release = await slots();
      try {
        for (let i = 0; i < group.length; i++) {
          if ((await this.applyOne(group[i], undefined, redelivery)) === 'retry')
            return { effect: group[i], rest: group.slice(i + 1) };
        }
        return undefined;
      } finally {
        release();
      }
    };
    // after the previous one, whether it succeeded or not (a failure of one must not skip the ones behind it)
    const run = (previous ?? Promise.resolve()).then(next, next);
    this.tails.set(key, run);
    return run.finally(() => {
      if (this.tails.get(key) === run) this.tails.delete(key);
    });
  }

  private inOrder(effect: Effect, finishesEntry: string | undefined, redelivery: boolean): Promise<Outcome> {
    const key = targetKey(effect);
    const previous = this.tails.get(key);
    // after the previous one, whether it succeeded or not (a failure of one must not skip the ones behind it)
    const next = () => this.applyOne(effect, finishesEntry, redelivery);
    const run = (previous ?? Promise.resolve()).then(next, next);
    this.tails.set(key, run);
    return run.finally(() => {
      if (this.tails.get(key) === run) this.tails.delete(key);
    });
  }

  private async applyOne(effect: Effect, finishesEntry: string | undefined, redelivery: boolean): Promise<Outcome> {
    if (effect.port) return this.handOver(effect);
    // a redelivered entry may hold effects done before (applied, or dead-lettered): their marker says so,
    // and a target that refused them is not asked again (the first delivery skips this read)
    if (
      redelivery &&
      (await this.redis.exists(this.keys.delivered(effect.classId, effect.instanceId, effect.id))) === 1
    )
      return 'applied';
    try {
      await this.opts.call({
        classId: effect.classId,
        method: effect.method,
        instanceId: effect.instanceId,
        body: effect.body,
        identity: effect.identity,
        origin: 'effect',
        delivery: { id: effect.id, ...(finishesEntry ? { finishesEntry } : {}) },
        requestId: `effect-${effect.id}`,
      });
      return finishesEntry ? 'applied-finished' : 'applied';
    } catch (err) {
      const outcome = effectFailure(err);
      if (outcome === 'dead')
        await this.deadLetter(
          effect,
          undefined,
          err instanceof ActorError ? JSON.stringify(err.toBody()) : String(err),
        );
      else if (outcome === 'retry')
        this.opts.logger.warn(
          { effectId: effect.id, classId: effect.classId, method: effect.method, err: (err as Error).message },
          'effect not applied yet; retried',
        );
      return outcome === 'dead' ? 'applied' : outcome;
    }
  }

  /** A message goes to its port's queue (queued once per id: the job id is the message id); retried while the queue cannot take it. */
  private async handOver(effect: Effect): Promise<Outcome> {
    try {
      if (!this.outbound) throw new Error(`no ${effect.port} delivery configured`);
      await this.outbound(effect);
      return 'applied';
    } catch (err) {
      this.opts.logger.warn(
        { effectId: effect.id, port: effect.port, err: (err as Error).message },
        'message not handed to its delivery queue yet; retried',
      );
      return 'retry';
    }
  }

  private async deadLetter(effect: Effect, entryId: string | undefined, reason: string): Promise<void> {
    this.opts.logger.error(
      { effectId: effect.id, classId: effect.classId, method: effect.method, instanceId: effect.instanceId, reason },
      'committed effect refused by its target: dead-lettered',
    );
    // marked delivered with it: a later sweep of its entry does not call the target (and dead-letter it) again;
    // both in the target's bucket, so one MULTI on a cluster too
    await this.redis
      .multi()
      .xadd(
        this.keys.of(effect.classId, effect.instanceId).effectsDead,
        '*',
        'f',
        JSON.stringify(effect),
        'reason',
        reason,
        ...(entryId ? ['entry', entryId] : []),
      )
      .set(this.keys.delivered(effect.classId, effect.instanceId, effect.id), 'dead', 'EX', DELIVERY_MARKER_TTL_S)
      .exec();
  }

  /** Applies the entries older than `olderThanMs` (all with 0). Returns how many entries it looked at. */
  async sweep(olderThanMs = this.opts.sweepAgeMs ?? 5000): Promise<number> {
    if (this.sweeping) return this.sweeping;
    this.sweeping = (async () => {
      const max = `${Math.max(0, Date.now() - olderThanMs)}`;
      let seen = 0;
      for (const streams of this.keys.all) {
        const entries = await this.redis.xrange(streams.effects, '-', max, 'COUNT', 200);
        for (const [id, fields] of entries) {
          // one this process is still applying (a fan-out's entry holds thousands of effects): not parsed for nothing
          if (this.inFlight.has(`${streams.bucket}/${id}`)) continue;
          const json = fields[fields.indexOf('f') + 1];
          // attempts another process counted go with the entry
          if (await this.apply({ bucket: streams.bucket, id }, JSON.parse(json) as Effect[], true))
            await this.redis.hdel(streams.effectAttempts, id);
        }
        seen += entries.length;
      }
      return seen;
    })().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /** Sweep now and every `intervalMs`. */
  start(intervalMs = 2000): void {
    if (this.sweeper) return;
    const failed = (err: unknown) => this.onSweepError?.(err) || this.opts.logger.warn({ err }, 'effect sweep failed');
    const run = () => void this.sweep().catch(failed);
    this.sweeper = setInterval(run, intervalMs);
    this.sweeper.unref();
    void this.sweep(0).catch(failed);
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    await this.sweeping?.catch(() => 0);
  }
}

/** an effect that must be retried and the effects behind it on its target */
interface Stuck {
  effect: Effect;
  rest: Effect[];
}

function targetKey(effect: Effect): string {
  return `${effect.classId}\u0000${effect.instanceId}`;
}

/** Pure: the effects grouped by target, each group in the given order, groups in order of first appearance. */
export function byTarget(effects: readonly Effect[]): Effect[][] {
  const groups = new Map<string, Effect[]>();
  for (const effect of effects) {
    const key = targetKey(effect);
    const group = groups.get(key);
    if (group) group.push(effect);
    else groups.set(key, [effect]);
  }
  return [...groups.values()];
}

/** waits for one of `n` slots; resolves to its release */
type Limiter = () => Promise<() => void>;

function limiter(n: number): Limiter {
  let active = 0;
  // a fan-out queues thousands: taken from the front by index, not shift()
  let waiting: (() => void)[] = [];
  let head = 0;
  const release = () => {
    const next = waiting[head];
    if (next) {
      waiting[head++] = undefined!;
      if (head === waiting.length) {
        waiting = [];
        head = 0;
      }
      next();
    } else active--;
  };
  return () => {
    if (active < n) {
      active++;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => waiting.push(() => resolve(release)));
  };
}
