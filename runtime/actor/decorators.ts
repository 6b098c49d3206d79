/**
 * Class and method decorators (TypeScript 5 standard decorators).
 *
 *   type CounterState = StateOf<{ count: number }>;
 *
 *   @ActorClass<CounterState>({ id: 'Counter' })
 *   export class Counter {
 *     @Write({ access: ['enduser'], timeoutSeconds: 5 })
 *     async increment(ctx: Ctx<CounterState, { by: number }>) { ... }
 *     @Read({ access: ['enduser'] })
 *     value(ctx: ReadCtx<CounterState>) { ... }
 *   }
 *
 * Standard decorators cannot change a method's parameter types, so the state
 * does not flow into a handler by inference: each handler names its context
 * (`Ctx<State, Input>` or `ReadCtx<State, Input>`), and the decorators check
 * that it fits. `@ActorClass<State>` types the class options (`stream`,
 * `tenancy`) and refuses a handler declared for another state; `@Read` refuses
 * a handler whose context can write (a `Ctx<State>`), `@Static` one that
 * reads instance state. An unparameterised `Ctx` is still admitted everywhere
 * while classes move to typed contexts.
 */
import type { ClassDef, ClassOptions, MethodDef } from '../types/classes';
import type { BaseCtx, Ctx, ReadCtx, StaticCtx } from '../types/context';
import type { MethodKind } from '../types/kinds';
import type { InitOptions, MethodOptions } from '../types/methods';
import type { InstanceState } from '../types/state';

// Standard decorator metadata needs Symbol.metadata, which Node 20 lacks.
(Symbol as { metadata?: symbol }).metadata ??= Symbol.for('Symbol.metadata');

const METHODS = Symbol('actor.methods');
export const CLASS_DEF = Symbol.for('actor.classDef');

const LIMITS: Record<MethodKind, [number, number, number]> = {
  // [min, max, default] seconds
  INIT: [1, 30, 10],
  READ: [1, 30, 10],
  WRITE: [1, 30, 10],
  STATIC: [1, 30, 10],
  INTERNAL: [1, 30, 10],
  QUEUED_WRITE: [1, 890, 60],
};

export function budgetSeconds(kind: MethodKind, requested?: number): number {
  return requested ?? LIMITS[kind][2];
}

function checkOptions(kind: MethodKind, name: string, options: MethodOptions): void {
  if (!options || !Array.isArray(options.access) || options.access.length === 0) {
    throw new Error(`method ${name}: 'access' must list the identities that may call it`);
  }
  const [min, max] = LIMITS[kind];
  const t = options.timeoutSeconds;
  if (t !== undefined && (!Number.isFinite(t) || t < min || t > max)) {
    throw new Error(`method ${name}: timeoutSeconds ${t} is outside ${min}-${max} s for ${kind}`);
  }
  if (options.emptyWhenMissing && kind !== 'READ')
    throw new Error(`method ${name}: emptyWhenMissing is for READ methods (a write creates with upsert: true)`);
  if (options.optimistic !== undefined && kind !== 'WRITE' && kind !== 'INTERNAL')
    throw new Error(`method ${name}: optimistic is for WRITE and INTERNAL methods`);
  if (options.guard !== undefined && typeof options.guard !== 'function')
    throw new Error(`method ${name}: guard must be a function`);
  const w = options.replayWindowSeconds;
  if (w !== undefined && typeof w !== 'function' && (!Number.isInteger(w) || w < 1 || w > 86_400))
    throw new Error(
      `method ${name}: replayWindowSeconds must be an integer from 1 to 86400, or a function of the settings`,
    );
  if (w !== undefined && kind === 'READ')
    throw new Error(
      `method ${name}: replayWindowSeconds is for methods that change something (a READ is repeated safely)`,
    );
  const statuses = options.answerStatuses;
  if (
    statuses !== undefined &&
    (!statuses.length || statuses.some((s) => !Number.isInteger(s) || s < 200 || s > 299))
  ) {
    throw new Error(`method ${name}: answerStatuses must list 2xx statuses`);
  }
}

/** A handler as the decorators see it: one context parameter. */
type HandlerOf<C> = (ctx: C) => unknown;
/** a handler written against the untyped context (admitted while classes move to typed contexts) */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the untyped context's input is read freely (see runtime/types/state.ts)
type UntypedHandler = HandlerOf<Ctx<InstanceState, any>>;
/** what each kind's handler may declare as its context */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a decorator admits a handler of any state and input (ActorClass checks the state)
type WriteHandler = HandlerOf<Ctx<any, any>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as WriteHandler
type ReadHandler = HandlerOf<ReadCtx<any, any>> | UntypedHandler;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as WriteHandler
type StaticHandler = HandlerOf<StaticCtx<any>> | UntypedHandler;

type MethodDecorator<H> = (value: H, context: ClassMethodDecoratorContext) => void;

function methodDecorator<H, O extends MethodOptions = MethodOptions>(kind: MethodKind) {
  return (options: O): MethodDecorator<H> =>
    function (value: H, context: ClassMethodDecoratorContext): void {
      const name = String(context.name);
      checkOptions(kind, name, options);
      const meta = context.metadata as Record<symbol, MethodDef[]>;
      (meta[METHODS] ??= []).push({ name, kind, options, handler: value as MethodDef['handler'] });
    };
}

export const Init = methodDecorator<WriteHandler, InitOptions>('INIT');
/** READ: the handler's context is a `ReadCtx<State, Input>` (a `Ctx<State>` that could write does not compile) */
export const Read = methodDecorator<ReadHandler>('READ');
export const Write = methodDecorator<WriteHandler>('WRITE');
export const QueuedWrite = methodDecorator<WriteHandler>('QUEUED_WRITE');
/** STATIC: the handler's context is a `StaticCtx<Input>` (no instance state) */
export const Static = methodDecorator<StaticHandler>('STATIC');
export const Internal = methodDecorator<WriteHandler>('INTERNAL');

/**
 * The class's instance type with every handler required to accept the
 * contexts of state `S`: a handler declared for another state does not fit.
 */
type HandlersFor<S extends InstanceState, P> = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the state is checked here, each handler's input is its own
  [K in keyof P]: P[K] extends (ctx: infer C) => unknown ? (C extends BaseCtx ? HandlerOf<Ctx<S, any>> : P[K]) : P[K];
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any class constructor, whatever its parameters
type ActorCtor = abstract new (...args: any[]) => object;

/**
 * The class decorator. `S` is the class's state (`StateOf<Private, Public>`);
 * it types `stream.toDocuments` and `tenancy.owner` and must be the state of
 * every handler's context.
 */
export function ActorClass<S extends InstanceState = InstanceState>(options: ClassOptions<S>) {
  return function <T extends ActorCtor>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as ActorCtor
    value: T & (abstract new (...args: any[]) => HandlersFor<S, InstanceType<T>>),
    context: ClassDecoratorContext<T>,
  ): void {
    if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(options.id)) throw new Error(`invalid class id '${options.id}'`);
    const defs = ((context.metadata as Record<symbol, MethodDef[]>)[METHODS] ?? []).slice();
    const methods = new Map<string, MethodDef>();
    let inits = 0;
    for (const def of defs) {
      if (methods.has(def.name)) throw new Error(`${options.id}.${def.name} declared twice`);
      if (def.kind === 'INIT') inits += 1;
      methods.set(def.name, def);
    }
    if (inits > 1) throw new Error(`${options.id}: at most one INIT method`);
    const source = options.identitySource;
    if (source) {
      const m = methods.get(source.method);
      if (!m) throw new Error(`${options.id}: identitySource names no method of the class ('${source.method}')`);
      if (m.kind !== 'READ' && m.kind !== 'INTERNAL')
        throw new Error(
          `${options.id}: identitySource method ${source.method} must be a READ or INTERNAL, not ${m.kind}`,
        );
    }
    const def: ClassDef = {
      id: options.id,
      options: options,
      methods,
      ctor: value as unknown as ClassDef['ctor'],
    };
    Object.defineProperty(value, CLASS_DEF, { value: def, enumerable: false });
  };
}

export function classDefOf(value: unknown): ClassDef | undefined {
  if (typeof value !== 'function') return undefined;
  return (value as unknown as Record<symbol, ClassDef | undefined>)[CLASS_DEF];
}
