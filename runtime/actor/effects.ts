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
 *    in order (per target, in commit order within the process, unless an
 *    earlier effect waits for a retry), then deletes
 *    the entry. A sweeper applies entries left behind (a crash between commit
 *    and apply, a target that was busy or down) once they are a few seconds old.
 *  - Effectively once: each effect is delivered with its id, and the target's
 *    commit records that id in the same Lua step (or refuses when it is recorded
 *    already): a redelivered effect finds itself applied and does nothing.
 *  - An effect its target refuses (4xx) will not succeed by retrying: it goes
 *    to the dead-letter stream with the answer; so does one still failing after
 *    MAX_ATTEMPTS tries.
 */
import type { Logger } from 'pino';
import { ActorError, RuntimeCodes, UNKNOWN_INSTANCE_CODE } from '../errors';
import { DELIVERY_MARKER_TTL_S, type StateStore } from './state-store';
import type { CallResult, Identity } from './types';

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
  private readonly tails = new Map<string, Promise<Outcome>>();
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
   * Applies one commit's effects in order and deletes the entry when every
   * effect is applied (or dead). Stops at the first effect that must be
   * retried, leaving the entry (and the rest of its effects) to the sweeper.
   * Never throws.
   */
  async apply(entryId: string, effects: Effect[], redelivery = false): Promise<boolean> {
    if (this.inFlight.has(entryId)) return false;
    this.inFlight.add(entryId);
    try {
      let finished = false;
      let counted = false;
      for (let i = 0; i < effects.length; i++) {
        const effect = effects[i]!;
        // the last effect's commit deletes the entry in the same Lua step (no round trip of its own)
        const last = i === effects.length - 1;
        const outcome = await this.inOrder(effect, last ? entryId : undefined, redelivery);
        if (outcome === 'retry') {
          const attempts = await this.redis.hincrby(this.keys.effectAttempts, entryId, 1).catch(() => 0);
          counted = true;
          if (attempts < (this.opts.maxAttempts ?? EFFECT_MAX_ATTEMPTS)) return false;
          await this.deadLetter(effect, entryId, `still failing after ${attempts} attempts`);
          // the next effect of the entry starts its own count
          await this.redis.hdel(this.keys.effectAttempts, entryId);
        } else if (outcome === 'applied-finished') {
          finished = true;
        }
      }
      // the entry is still there when its last effect was not committed by this process (applied before, dead, a STATIC target)
      if (!finished || counted) {
        await this.redis.multi().xdel(this.keys.effects, entryId).hdel(this.keys.effectAttempts, entryId).exec();
      }
      return true;
    } catch (err) {
      this.opts.logger.warn({ err, entryId }, 'applying committed effects failed; the sweeper retries');
      return false;
    } finally {
      this.inFlight.delete(entryId);
    }
  }

  private inOrder(effect: Effect, finishesEntry: string | undefined, redelivery: boolean): Promise<Outcome> {
    const key = `${effect.classId}\u0000${effect.instanceId}`;
    const previous = this.tails.get(key);
    // after the previous one, whether it succeeded or not (a failure of one must not skip the ones behind it)
    const next = () => this.applyOne(effect, finishesEntry, redelivery);
    const run = (previous ?? Promise.resolve<Outcome>('applied')).then(next, next);
    this.tails.set(key, run);
    return run.finally(() => {
      if (this.tails.get(key) === run) this.tails.delete(key);
    });
  }

  private async applyOne(effect: Effect, finishesEntry: string | undefined, redelivery: boolean): Promise<Outcome> {
    if (effect.port) return this.handOver(effect);
    // a redelivered entry may hold effects done before (applied, or dead-lettered): their marker says so,
    // and a target that refused them is not asked again (the first delivery skips this read)
    if (redelivery && (await this.redis.exists(this.keys.delivered(effect.id))) === 1) return 'applied';
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
      if (outcome === 'dead') await this.deadLetter(effect, undefined, err instanceof ActorError ? JSON.stringify(err.toBody()) : String(err));
      else if (outcome === 'retry') this.opts.logger.warn({ effectId: effect.id, classId: effect.classId, method: effect.method, err: (err as Error).message }, 'effect not applied yet; retried');
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
      this.opts.logger.warn({ effectId: effect.id, port: effect.port, err: (err as Error).message }, 'message not handed to its delivery queue yet; retried');
      return 'retry';
    }
  }

  private async deadLetter(effect: Effect, entryId: string | undefined, reason: string): Promise<void> {
    this.opts.logger.error({ effectId: effect.id, classId: effect.classId, method: effect.method, instanceId: effect.instanceId, reason }, 'committed effect refused by its target: dead-lettered');
    // marked delivered with it: a later sweep of its entry does not call the target (and dead-letter it) again
    await this.redis
      .multi()
      .xadd(this.keys.effectsDead, '*', 'f', JSON.stringify(effect), 'reason', reason, ...(entryId ? ['entry', entryId] : []))
      .set(this.keys.delivered(effect.id), 'dead', 'EX', DELIVERY_MARKER_TTL_S)
      .exec();
  }

  /** Applies the entries older than `olderThanMs` (all with 0). Returns how many entries it looked at. */
  async sweep(olderThanMs = this.opts.sweepAgeMs ?? 5000): Promise<number> {
    if (this.sweeping) return this.sweeping;
    this.sweeping = (async () => {
      const max = `${Math.max(0, Date.now() - olderThanMs)}`;
      const entries = await this.redis.xrange(this.keys.effects, '-', max, 'COUNT', 200);
      for (const [id, fields] of entries) {
        const json = fields[fields.indexOf('f') + 1];
        // attempts another process counted go with the entry
        if (await this.apply(id, JSON.parse(json) as Effect[], true)) await this.redis.hdel(this.keys.effectAttempts, id);
      }
      return entries.length;
    })().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /** Sweep now and every `intervalMs`. */
  start(intervalMs = 2000): void {
    if (this.sweeper) return;
    const failed = (err: unknown) => this.onSweepError?.(err) || this.opts.logger.warn({ err }, 'effect sweep failed');
    const run = () => this.sweep().catch(failed);
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
