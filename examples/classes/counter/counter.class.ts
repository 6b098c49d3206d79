/**
 * Example class: a counter. Tests and benchmarks use it; it also shows every
 * method kind. Served only when its folder is listed in CLASS_DIRS.
 */
import { ActorClass, Init, Internal, QueuedWrite, Read, Static, Write } from '../../../runtime';
import { ActorError, type Ctx } from '../../../runtime';

interface CounterState {
  count: number;
  label?: string;
  history?: number[];
}

function counter(ctx: Ctx): CounterState {
  return ctx.state.public as CounterState;
}

/** attempts seen per instance by flakyAdd (the worker runs in the test process) */
const flakyAttempts = new Map<string, number>();

const ANYONE = ['program_management_user', 'enduser', 'integration_user', 'class'] as const;

@ActorClass({
  id: 'Counter',
  description: 'An example counter',
  stream: {
    collections: { counters: { indexes: [{ keys: { count: -1 } }, { keys: { label: 1 } }] } },
    toDocuments: (state, id) => [
      { collection: 'counters', id, doc: { count: state.public.count ?? 0, label: state.public.label ?? null } },
    ],
  },
})
export class Counter {
  @Init({ access: [...ANYONE], timeoutSeconds: 5 })
  init(ctx: Ctx) {
    const body = ctx.request.body as { label?: string; start?: number; slot?: string };
    const c = counter(ctx);
    c.count = body.start ?? 0;
    if (body.label) c.label = body.label;
    if (body.slot) ctx.lookup.set('slot', body.slot);
    if (body.label === 'fail') throw new ActorError(400, 'INIT_REFUSED', 'refused by init');
    return { id: ctx.instanceId, count: c.count };
  }

  @Read({ access: [...ANYONE] })
  get(ctx: Ctx) {
    return { id: ctx.instanceId, version: ctx.version, ...counter(ctx), slot: ctx.lookup.get('slot') ?? null };
  }

  /** a READ that (wrongly) tries to write: the runtime refuses */
  @Read({ access: [...ANYONE], schema: false })
  sneakyWrite(ctx: Ctx) {
    counter(ctx).count += 1;
    return counter(ctx);
  }

  @Write({ access: [...ANYONE], timeoutSeconds: 10 })
  async increment(ctx: Ctx) {
    const body = ctx.request.body as { by?: number; delayMs?: number; failAfter?: boolean };
    const c = counter(ctx);
    if (body.delayMs) await new Promise((r) => setTimeout(r, body.delayMs));
    c.count = (c.count ?? 0) + (body.by ?? 1);
    if (body.failAfter) throw new ActorError(400, 'REQUESTED_FAILURE', 'failed after changing state');
    return { count: c.count };
  }

  /** creates the counter on first use */
  @Write({ access: [...ANYONE], schema: false, upsert: true })
  touch(ctx: Ctx) {
    const c = counter(ctx);
    c.count = (c.count ?? 0) + 1;
    return { count: c.count, createdNow: ctx.version === 0 };
  }

  @Write({ access: [...ANYONE], timeoutSeconds: 1, schema: false })
  async slow(ctx: Ctx) {
    counter(ctx).count += 1000;
    await new Promise((r) => setTimeout(r, 1500));
    return counter(ctx);
  }

  @Write({ access: [...ANYONE], schema: false })
  setSlot(ctx: Ctx) {
    const { slot } = ctx.request.body as { slot?: string };
    if (slot) ctx.lookup.set('slot', slot);
    else ctx.lookup.remove('slot');
    return { slot: slot ?? null };
  }

  /** a write that calls a write on its own instance: refused, not deadlocked */
  @Write({ access: [...ANYONE], schema: false })
  async selfCall(ctx: Ctx) {
    return (await ctx.call('Counter', 'increment', ctx.instanceId, {})).body;
  }

  /** calls another counter, which sees the class identity */
  @Write({ access: [...ANYONE], schema: false })
  async poke(ctx: Ctx) {
    const { target, depth } = ctx.request.body as { target: string; depth?: number };
    if (depth && depth > 0) {
      return (await ctx.call('Counter', 'poke', target, { target: ctx.instanceId, depth: depth - 1 })).body;
    }
    return (await ctx.call('Counter', 'whoCalls', target, {})).body;
  }

  /** adds `by` unless the count has reached `max`: a rule judged on the state */
  @Write({ access: [...ANYONE], schema: false })
  capped(ctx: Ctx) {
    const { max, by } = ctx.request.body as { max: number; by?: number };
    const c = counter(ctx);
    if (c.count >= max) throw new ActorError(409, 'AT_CAP', `count ${c.count} has reached ${max}`);
    c.count += by ?? 1;
    return { count: c.count };
  }

  /** a write that always runs under the lease (as one with effects outside ctx would declare) */
  @Write({ access: [...ANYONE], schema: false, optimistic: false })
  leasedIncrement(ctx: Ctx) {
    counter(ctx).count += 1;
    return { count: counter(ctx).count };
  }

  /** bumps another counter (a write there) and then itself */
  @Write({ access: [...ANYONE], schema: false })
  async bumpOther(ctx: Ctx) {
    const { target } = ctx.request.body as { target: string };
    const other = await ctx.call('Counter', 'internalBump', target, {});
    counter(ctx).count += 1;
    return { count: counter(ctx).count, other: (other.body as CounterState).count };
  }

  @Read({ access: ['class:Counter'], schema: false })
  whoCalls(ctx: Ctx) {
    return ctx.identity;
  }

  @Internal({ access: ['class'], schema: false })
  internalBump(ctx: Ctx) {
    counter(ctx).count += 1;
    return counter(ctx);
  }

  @Write({ access: [...ANYONE], schema: false })
  later(ctx: Ctx) {
    const { delaySeconds, by } = ctx.request.body as { delaySeconds: number; by?: number };
    ctx.schedule({ method: 'queuedAdd', delaySeconds, body: { by: by ?? 1 } });
    return { scheduled: true };
  }

  @QueuedWrite({ access: [...ANYONE], timeoutSeconds: 30, attempts: 4 })
  async queuedAdd(ctx: Ctx) {
    const body = ctx.request.body as { by?: number; delayMs?: number; flakyUntil?: number };
    const c = counter(ctx);
    if (body.delayMs) await new Promise((r) => setTimeout(r, body.delayMs));
    c.count = (c.count ?? 0) + (body.by ?? 1);
    (c.history ??= []).push(body.by ?? 1);
    return { count: c.count };
  }

  /** queues a queuedAdd on another counter with this commit; `fail` aborts the commit (and the job) */
  @Write({ access: [...ANYONE], schema: false })
  async relay(ctx: Ctx) {
    const { target, by, fail } = ctx.request.body as { target: string; by: number; fail?: boolean };
    const { jobId } = await ctx.enqueue('Counter', 'queuedAdd', target, { by });
    counter(ctx).count += 1;
    if (fail) throw new ActorError(400, 'RELAY_FAILED', 'relay refused after queuing');
    return { jobId };
  }

  /** fails with an unexpected error on its first `failTimes` attempts, then applies */
  @QueuedWrite({ access: [...ANYONE], timeoutSeconds: 5, attempts: 4, schema: false })
  flakyAdd(ctx: Ctx) {
    const { failTimes } = ctx.request.body as { failTimes?: number };
    const attempt = (flakyAttempts.get(ctx.instanceId!) ?? 0) + 1;
    flakyAttempts.set(ctx.instanceId!, attempt);
    counter(ctx).count += 1;
    if (attempt <= (failTimes ?? 2)) throw new Error(`transient failure on attempt ${attempt}`);
    return { count: counter(ctx).count, attempt };
  }

  /** a queued write that refuses: not retried */
  @QueuedWrite({ access: [...ANYONE], schema: false })
  queuedRefuse() {
    throw new ActorError(400, 'REFUSED', 'refused on purpose');
  }

  @Static({ access: ['public'], schema: false })
  about() {
    return { class: 'Counter', kinds: ['INIT', 'READ', 'WRITE', 'QUEUED_WRITE', 'STATIC', 'INTERNAL'] };
  }

  @Static({ access: ['program_management_user', 'enduser'], schema: false })
  async list(ctx: Ctx) {
    const q = ctx.request.query as { min?: string };
    return ctx.documents.find('counters', q.min ? { count: { $gte: Number(q.min) } } : {}, {
      sort: { count: -1 },
      limit: 50,
    });
  }
}
