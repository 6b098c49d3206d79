/**
 * What the runtime gave up on, for an operator to see and retry (`cli
 * dead-letters`, `cli dead-letters:retry`, the console's /admin/dead-letters):
 *
 *  - `effect`: committed effects their target refused (or that failed
 *    EFFECT_MAX_ATTEMPTS times), in each bucket's `effects:dead` stream. Id
 *    `effect:<bucket>:<stream id>`. A retry puts the effect back as an effects
 *    entry of its target's bucket and forgets its dead marker, in one MULTI
 *    (one slot), then applies it at once; when this process cannot, the
 *    service's sweeper does. Its delivery id is unchanged, so a target that
 *    applied it meanwhile does not apply it twice.
 *  - `message`: mail and SMS the delivery worker gave up on (runtime/mail/delivery.ts).
 *    Id `message:<message id>`. A retry runs its failed job again (or queues
 *    it again when the job is gone); the letter leaves the list once sent.
 *
 * Effect dead letters are not BullMQ jobs (an effect is a call applied after
 * a commit, not a queued job), so the queue console lists them beside the
 * queues rather than in them.
 */
import type { Effect, EffectApplier } from '../actor/effects';
import type { StateStore } from '../actor/state-store';
import type { MessageDelivery } from '../mail/delivery';
import { maskAddress, maskPhone, type OutboundMail, type OutboundSms } from '../mail/message';

export interface DeadLetterRow {
  id: string;
  kind: 'effect' | 'message';
  /** when it was given up on (ISO) */
  time: string;
  /** `Class.method/instance` of an effect; the port (`mail`, `sms`) and masked recipients of a message */
  target: string;
  reason: string;
  /** what caused it: the class and instance whose change it belongs to */
  from?: { classId?: string; instanceId?: string };
  /** a message's subject (mail) */
  subject?: string;
}

export interface RetryOutcome {
  id: string;
  /** `applied`: the effect's target took it now; `queued`: handed on (a message's job, or an effect the sweeper will apply); `dead`: refused again */
  outcome: 'applied' | 'queued' | 'dead';
}

export class DeadLetterNotFound extends Error {
  constructor(id: string) {
    super(`no dead letter ${id}`);
    this.name = 'DeadLetterNotFound';
  }
}

/** dead letters listed per kind at most (the newest) */
export const DEAD_LETTER_LIST_LIMIT = 1000;

export class DeadLetters {
  constructor(
    private readonly store: StateStore,
    private readonly effects: EffectApplier,
    private readonly messages: MessageDelivery,
  ) {}

  /** Effect and message dead letters, newest first, up to `limit` of each kind. */
  async list(limit = 100): Promise<DeadLetterRow[]> {
    const n = Math.max(1, Math.min(limit, DEAD_LETTER_LIST_LIMIT));
    const rows: DeadLetterRow[] = [];
    for (const b of this.store.keys.all) {
      const entries = await this.store.redis.xrevrange(b.effectsDead, '+', '-', 'COUNT', n);
      for (const [streamId, fields] of entries) rows.push(effectRow(b.bucket, streamId, fields));
    }
    for (const letter of await this.messages.deadLetters(n)) {
      const to =
        letter.port === 'sms'
          ? (letter.message as OutboundSms).to.map(maskPhone)
          : (letter.message as OutboundMail).to.map(maskAddress);
      rows.push({
        id: `message:${letter.id}`,
        kind: 'message',
        time: letter.time,
        target: `${letter.port} ${to.join(', ')}`,
        reason: letter.reason,
        from: letter.from,
        ...(letter.port === 'mail' ? { subject: (letter.message as OutboundMail).subject } : {}),
      });
    }
    return rows.sort((a, b) => b.time.localeCompare(a.time));
  }

  /** Retries one dead letter; DeadLetterNotFound when there is none with that id. */
  async retry(id: string): Promise<RetryOutcome> {
    if (id.startsWith('message:')) {
      if (!(await this.messages.retryDeadLetter(id.slice('message:'.length)))) throw new DeadLetterNotFound(id);
      return { id, outcome: 'queued' };
    }
    const m = /^effect:(\d+):(\d+-\d+)$/.exec(id);
    const bucket = m ? Number(m[1]) : -1;
    if (!m || bucket >= this.store.keys.all.length) throw new DeadLetterNotFound(id);
    const streams = this.store.keys.bucket(bucket);
    const redis = this.store.redis;
    const [found] = await redis.xrange(streams.effectsDead, m[2], m[2]);
    if (!found) throw new DeadLetterNotFound(id);
    const effect = JSON.parse(field(found[1], 'f')) as Effect;
    // the dead letter is in its target's bucket, with its delivered marker: one MULTI, one slot
    const out = await redis
      .multi()
      .xadd(streams.effects, '*', 'f', JSON.stringify([effect]))
      .xdel(streams.effectsDead, m[2])
      .del(this.store.keys.delivered(effect.classId, effect.instanceId, effect.id))
      .exec();
    const entryId = out?.[0]?.[1] as string | undefined;
    if (!entryId) throw new Error(`dead letter ${id} was not put back`);
    const deadBefore = await redis.xlen(streams.effectsDead);
    if (!(await this.effects.apply({ bucket, id: entryId }, [effect], true))) return { id, outcome: 'queued' };
    // apply() dead-letters it again when its target still refuses it
    const [again] = await redis.xrevrange(streams.effectsDead, '+', '-', 'COUNT', 1);
    const refused =
      (await redis.xlen(streams.effectsDead)) > deadBefore &&
      again !== undefined &&
      (JSON.parse(field(again[1], 'f')) as Effect).id === effect.id;
    return { id, outcome: refused ? 'dead' : 'applied' };
  }

  /** Retries every dead letter listed now (up to DEAD_LETTER_LIST_LIMIT of each kind). */
  async retryAll(): Promise<{ retried: RetryOutcome[]; failed: { id: string; error: string }[] }> {
    const retried: RetryOutcome[] = [];
    const failed: { id: string; error: string }[] = [];
    for (const row of await this.list(DEAD_LETTER_LIST_LIMIT)) {
      try {
        retried.push(await this.retry(row.id));
      } catch (err) {
        failed.push({ id: row.id, error: (err as Error).message });
      }
    }
    return { retried, failed };
  }
}

function field(fields: string[], name: string): string {
  const i = fields.indexOf(name);
  return i >= 0 && i % 2 === 0 ? fields[i + 1] : '';
}

function effectRow(bucket: number, streamId: string, fields: string[]): DeadLetterRow {
  const effect = JSON.parse(field(fields, 'f')) as Effect;
  return {
    id: `effect:${bucket}:${streamId}`,
    kind: 'effect',
    time: new Date(Number(streamId.split('-')[0])).toISOString(),
    target: `${effect.classId}.${effect.method}/${effect.instanceId}`,
    reason: field(fields, 'reason'),
    from: { classId: effect.identity?.classId, instanceId: effect.identity?.instanceId },
  };
}
