/** The state partitions of an instance and their typed views. */

/* eslint-disable @typescript-eslint/no-explicit-any -- a class that declares no state type reads and writes its partitions freely; `unknown` would make every such handler cast */

/** The four state partitions (GUIDE 2, spec 2). */
export interface InstanceState {
  public: Record<string, any>;
  private: Record<string, any>;
  user: Record<string, any>;
  role: Record<string, any>;
}

/**
 * A class's state type with its own partitions: `StateOf<{ tier: Tier }>`
 * types `private` (and `public` when given); declared once per class as
 * `@ActorClass<State>` and in its handlers' `Ctx<State>` / `ReadCtx<State>`.
 */
export interface StateOf<
  Private extends object = Record<string, any>,
  Public extends object = Record<string, any>,
> extends InstanceState {
  public: Public;
  private: Private;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * `T` with every property, array element, map and set entry read-only, at any
 * depth: the state a READ or STATIC handler sees (frozen at run time as well).
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<DeepReadonly<K>, DeepReadonly<V>>
    : T extends ReadonlySet<infer E>
      ? ReadonlySet<DeepReadonly<E>>
      : T extends readonly unknown[]
        ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
        : T extends object
          ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
          : T;
