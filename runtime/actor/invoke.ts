/**
 * Running a handler: its return value (or the response it set) becomes the
 * call's answer, within the method's time budget. Knows nothing of leases or
 * commits: the runs of each kind wrap it.
 */
import { runtimeError } from '../errors';
import type { RegisteredClass, RegisteredMethod } from './registry';
import type { HandlerContext } from './context';
import type { CallResult } from '../types/calls';

/** the headers of an answer that set none (never written to: the HTTP layer only reads them) */
const NO_HEADERS: Record<string, string> = Object.freeze({});

/**
 * Runs the handler. A handler that returns without a promise (most READs) is
 * answered at once, without a timer: nothing can time it out. One that
 * returns a promise races its budget.
 */
export function invoke(
  cls: RegisteredClass,
  method: RegisteredMethod,
  ctx: HandlerContext,
): CallResult | Promise<CallResult> {
  let returned: unknown;
  try {
    returned = method.handler.call(cls.instance, ctx);
  } catch (err) {
    throw handlerError(cls, method, ctx, err);
  }
  if (isThenable(returned)) return settle(cls, method, ctx, returned);
  return resultOf(ctx, returned);
}

/**
 * A handler's promise against its budget. The budget's timer is set only
 * when the promise has not settled by the next microtask: an async handler
 * that never waits (most) has, and a timer set and cleared per call cost a
 * WRITE about 1 % of its CPU. The budget still runs from the handler's start.
 */
function settle(
  cls: RegisteredClass,
  method: RegisteredMethod,
  ctx: HandlerContext,
  pending: PromiseLike<unknown>,
): Promise<CallResult> {
  const budgetMs = method.budgetMs;
  return new Promise<CallResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const fail = (err: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // a handler may throw anything, passed on as thrown (the HTTP layer answers a non-Error as INTERNAL)
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      reject(handlerError(cls, method, ctx, err));
    };
    pending.then((returned) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        resolve(resultOf(ctx, returned));
      } catch (err) {
        // as in fail: passed on as thrown
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(handlerError(cls, method, ctx, err));
      }
    }, fail);
    queueMicrotask(() => {
      if (done) return;
      timer = setTimeout(() => {
        if (done) return;
        ctx.abort();
        fail(
          runtimeError(
            'TIMEOUT',
            `${cls.id}.${method.name} ran past its ${budgetMs / 1000} s budget; nothing was committed`,
          ),
        );
      }, budgetMs);
    });
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function')
  );
}

/** The answer: the handler's return value unless it set ctx.response's body. */
function resultOf(ctx: HandlerContext, returned: unknown): CallResult {
  const r = ctx.responseIfSet;
  if (!r) return { status: 200, body: returned === undefined ? null : returned, headers: NO_HEADERS };
  return {
    status: r.status ?? 200,
    body: r.body !== undefined ? r.body : returned === undefined ? null : returned,
    headers: r.headers ?? NO_HEADERS,
  };
}

/** A READ handler that tried to change its frozen state is answered READ_ONLY. */
function handlerError(cls: RegisteredClass, method: RegisteredMethod, ctx: HandlerContext, err: unknown): unknown {
  if (
    err instanceof TypeError &&
    ctx.kind === 'READ' &&
    /read.only|not extensible|Cannot (assign|add|delete)/i.test(err.message)
  ) {
    return runtimeError('READ_ONLY', `${cls.id}.${method.name} is a READ method and cannot change state`);
  }
  return err;
}
