/**
 * Class and method decorators (TypeScript 5 standard decorators).
 *
 *   @ActorClass({ id: 'Counter' })
 *   export class Counter {
 *     @Write({ access: ['enduser'], timeoutSeconds: 5 })
 *     async increment(ctx: Ctx) { ... }
 *   }
 */
import type { ClassDef, ClassOptions, InitOptions, MethodDef, MethodKind, MethodOptions } from './types';

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
}

function methodDecorator(kind: MethodKind) {
  return (options: MethodOptions | InitOptions) =>
    function (value: (...args: any[]) => unknown, context: ClassMethodDecoratorContext): void {
      const name = String(context.name);
      checkOptions(kind, name, options);
      const meta = context.metadata as Record<symbol, MethodDef[]>;
      (meta[METHODS] ??= []).push({ name, kind, options, handler: value as MethodDef['handler'] });
    };
}

export const Init = methodDecorator('INIT') as (options: InitOptions) => ReturnType<ReturnType<typeof methodDecorator>>;
export const Read = methodDecorator('READ');
export const Write = methodDecorator('WRITE');
export const QueuedWrite = methodDecorator('QUEUED_WRITE');
export const Static = methodDecorator('STATIC');
export const Internal = methodDecorator('INTERNAL');

export function ActorClass(options: ClassOptions) {
  return function <T extends new (...args: any[]) => object>(value: T, context: ClassDecoratorContext<T>): void {
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
    const def: ClassDef = { id: options.id, options, methods, ctor: value as unknown as ClassDef['ctor'] };
    Object.defineProperty(value, CLASS_DEF, { value: def, enumerable: false });
  };
}

export function classDefOf(value: unknown): ClassDef | undefined {
  if (typeof value !== 'function') return undefined;
  return (value as unknown as Record<symbol, ClassDef | undefined>)[CLASS_DEF];
}
