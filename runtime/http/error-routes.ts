/**
 * The end of the route table: a path nothing answered (404), and errors
 * raised before a handler answered (the body parser's above all), which are
 * never a 500 for bad input. A request that addresses a method with its own
 * error envelope (a route alias, or the CALL path) is answered in it, after
 * its credentials are checked, and a journaled method's journal records it.
 */
import type { NextFunction, Request, Response } from 'express';
import type { RegisteredMethod } from '../actor/registry';
import { ActorError, RuntimeCodes, runtimeError } from '../errors';
import { parseCallPath } from './call-path';
import type { CallRoute } from './call-route';
import { errorCodeIn, sendActorError, sendError, shapeError } from './respond';
import type { HttpShared } from './deps';

type Headers = Record<string, string | string[] | undefined>;
type Addressed = { classId: string; method: RegisteredMethod };

export function notFound(_req: Request, res: Response): void {
  sendActorError(res, runtimeError('NOT_FOUND', 'No such route'));
}

export function errorHandler(
  shared: HttpShared,
  calls: CallRoute,
  aliasMethods: ReadonlyMap<string, Addressed>,
): (err: unknown, req: Request, res: Response, next: NextFunction) => Promise<void> {
  const { deps, redisFailure } = shared;

  /** the method a request addresses (route alias or CALL path), when it names one */
  const methodOf = (req: Request): Addressed | undefined => {
    const alias = aliasMethods.get(`${req.method} ${req.path}`);
    if (alias) return alias;
    let call;
    try {
      call = parseCallPath(req.path);
    } catch {
      // a segment that is not valid percent-encoding names no method
      return undefined;
    }
    if (!call || call.projectId !== deps.projectId) return undefined;
    const method = deps.registry.get(call.classId)?.methodsByName.get(call.method);
    return method ? { classId: call.classId, method } : undefined;
  };

  /**
   * On a method with its own error envelope the caller's credentials are
   * checked before its body, as on a parsed request (the dispatcher
   * authorizes before it validates): a bad key answers 401 even when the
   * body is malformed. Answers the authentication error, or null.
   */
  const credentialError = async (req: Request, target: Addressed): Promise<ActorError | null> => {
    try {
      const identity = await deps.identities.identify(req.headers);
      await deps.dispatcher.authorize(identity, target.classId, target.method.name);
      return null;
    } catch (err) {
      const failure = redisFailure(err);
      return failure instanceof ActorError ? failure : runtimeError('UNAUTHENTICATED', 'Authentication failed');
    }
  };

  return async (err: unknown, req: Request, res: Response, _next: NextFunction): Promise<void> => {
    const e = err as { type?: string; status?: number; message?: string };
    const addressed = methodOf(req);
    const target = addressed?.method.options.errorShape ? addressed : undefined;
    const shape = target?.method.options.errorShape;
    // a body refused before any handler ran is a call of a journaled method too (the caller, when its credentials hold)
    const journaled = addressed?.method.options.journal && deps.journals ? addressed : undefined;
    const at = process.hrtime.bigint();
    const record = async (failed: unknown): Promise<void> => {
      if (!journaled) return;
      const identity = await deps.identities.identify(req.headers as Headers).catch(() => undefined);
      const answer = failed instanceof ActorError ? failed.toBody() : undefined;
      calls.journal(
        journaled.classId,
        journaled.method,
        undefined,
        identity,
        undefined,
        res,
        answer,
        at,
        failed instanceof ActorError ? (errorCodeIn(answer) ?? failed.code) : RuntimeCodes.INTERNAL.code,
      );
    };
    let out: ActorError;
    if (err instanceof ActorError) out = err;
    else if (e.type === 'entity.parse.failed') out = runtimeError('BAD_JSON', `Malformed JSON body: ${e.message}`);
    else if (e.type === 'entity.too.large') {
      out = runtimeError('BODY_TOO_LARGE', `Body exceeds the limit of ${shared.bodies.limitFor(res).label}`);
    } else if (e.status && e.status >= 400 && e.status < 500) {
      out = new ActorError(e.status, RuntimeCodes.BAD_JSON.code, e.message ?? 'Bad request');
    } else {
      const failed = shapeError(shape, err, deps.logger);
      sendError(res, failed, deps.logger);
      await record(failed);
      return;
    }
    if (target) out = (await credentialError(req, target)) ?? out;
    const shaped = shapeError(shape, out, deps.logger) as ActorError;
    sendActorError(res, shaped);
    await record(shaped);
  };
}
