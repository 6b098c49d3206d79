/**
 * Typed clients of other classes, derived from the callee's own declarations
 * (as Restate derives a client from an object's type):
 *
 *   import type { Tier } from '../Tier/Tier.class';
 *   const tiers = client<typeof Tier>(ctx, 'Tier');
 *   const { tier } = await tiers.getTier(tierId, {});
 *
 * Each handler of the callee becomes `(instanceId, body) => Promise<answer>`:
 * the body type is the `Input` of the handler's `Ctx<State, Input>` /
 * `ReadCtx<State, Input>` / `StaticCtx<Input>` (optional when every field of
 * it is), the answer the handler's return type. Only the type of the callee
 * is imported (`import type`), so a client adds no module dependency at run
 * time; the class id is given once, next to it. A call goes through
 * `ctx.call` unchanged (access, validation, errors as `ActorError`); a handler
 * that answers through `ctx.response.body` instead of returning is typed by
 * what it returns.
 */
import type { RequestInfo } from '../types/calls';
import type { BaseCtx } from '../types/context';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any class constructor, whatever its parameters (InstanceType's own constraint)
type AnyCtor = abstract new (...args: any[]) => any;

/** the request body a handler declares */
export type InputOf<H> = H extends (ctx: infer C) => unknown
  ? C extends { readonly request: RequestInfo<infer I> }
    ? I
    : never
  : never;
/** what a handler answers */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- matches a handler whatever its parameters
export type AnswerOf<H> = H extends (...args: any[]) => infer R ? Awaited<R> : never;

/** the names of a class's handlers (methods whose one parameter is a context) */
export type HandlerNames<P> = {
  [K in keyof P]: P[K] extends (ctx: infer C) => unknown ? (C extends BaseCtx ? K : never) : never;
}[keyof P] &
  string;

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends I`: every field of the body is optional, so the body may be left out
type BodyArgs<I> = {} extends I ? [body?: I] : [body: I];

/** one method of a typed client */
export type ClientMethod<H> = (instanceId: string | undefined, ...body: BodyArgs<InputOf<H>>) => Promise<AnswerOf<H>>;

/** a typed client of the class `T` (its constructor type: `ClassClient<typeof Tier>`) */
export type ClassClient<T extends AnyCtor> = {
  readonly [K in HandlerNames<InstanceType<T>>]: ClientMethod<InstanceType<T>[K]>;
};

/**
 * A client of class `classId`, typed from `T` (`typeof Callee`). Usable from
 * every handler kind (READ and STATIC included: `ctx.call` only).
 */
export function client<T extends AnyCtor>(ctx: Pick<BaseCtx, 'call'>, classId: string): ClassClient<T> {
  return new Proxy(
    {},
    {
      get(_target, method) {
        // not a thenable: `await client(...)` or returning it from an async function must not call it
        if (typeof method !== 'string' || method === 'then') return undefined;
        return async (instanceId: string | undefined, body?: unknown) =>
          (await ctx.call(classId, method, instanceId, body ?? {})).body;
      },
    },
  );
}
