/**
 * The routes besides CALL that outside systems and clients use: a queued
 * job's status, the refresh-token exchange, and the route aliases classes
 * declare for external contracts with fixed paths (answered exactly as
 * through CALL).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { RegisteredMethod } from '../actor/registry';
import { runtimeError } from '../errors';
import type { CallRoute } from './call-route';
import { sendActorError, sendError } from './respond';
import type { HttpShared } from './deps';

export interface IntegrationRoutes {
  /** job status, refresh, route aliases */
  router: express.Router;
  /** picks a route alias's own body limit (res.locals.bodyLimit) before its body is parsed; null when none has one */
  aliasLimits: express.Router | null;
  /** route aliases whose method shapes its errors, by `VERB path` (body-parser errors on them are shaped too) */
  aliasMethods: ReadonlyMap<string, { classId: string; method: RegisteredMethod }>;
}

export function integrationRoutes(shared: HttpShared, calls: CallRoute): IntegrationRoutes {
  const { deps, redisFailure } = shared;
  const router = express.Router();

  const project = (req: Request, res: Response, next: NextFunction) => {
    if (req.params.projectId !== deps.projectId)
      return sendActorError(
        res,
        runtimeError('UNKNOWN_PROJECT', `Unknown project '${req.params.projectId as string | undefined}'`),
      );
    next();
  };

  router.get('/:projectId/JOBS/:jobId', project, async (req: Request, res: Response) => {
    const log = deps.logger.child({ requestId: res.locals.requestId as string | undefined });
    try {
      const identity = await deps.identities.identify(req.headers);
      res.locals.identity = identity;
      if (identity.type === 'anonymous') throw runtimeError('UNAUTHENTICATED', 'Job status needs authentication');
      const { status, identity: owner } = await deps.jobs.status(String(req.params.jobId));
      if (owner.type !== identity.type || owner.userId !== identity.userId) {
        // do not reveal other callers' jobs
        throw runtimeError('UNKNOWN_JOB', `No job '${String(req.params.jobId)}'`);
      }
      res.json(status);
    } catch (err) {
      sendError(res, redisFailure(err), log);
    }
  });

  /**
   * A refresh token for a new access token and the refresh token that replaces
   * it (runtime/auth/sessions.ts): `{refreshToken}` → `{token, expiresAt,
   * refreshToken}`; 401 when it is unknown, expired, revoked or used before, or
   * its user is refused by the identity source.
   */
  router.post('/:projectId/auth/refresh', project, async (req: Request, res: Response) => {
    try {
      const body = req.body as { refreshToken?: unknown } | null;
      const token = body && typeof body === 'object' ? body.refreshToken : undefined;
      if (typeof token !== 'string' || token.length === 0 || token.length > 512) {
        const reason = token === undefined ? 'is required' : 'must be a string of 1-512 characters';
        throw runtimeError('VALIDATION', `Invalid input: refreshToken ${reason}`, {
          errors: [{ field: 'refreshToken', reason }],
        });
      }
      res.setHeader('cache-control', 'no-store');
      res.json(await deps.sessions.exchange(token));
    } catch (err) {
      const log = deps.logger.child({ requestId: res.locals.requestId as string | undefined });
      sendError(res, redisFailure(err), log);
    }
  });

  const aliasMethods = new Map<string, { classId: string; method: RegisteredMethod }>();
  const limitRoutes = express.Router();
  let aliasLimitRoutes = 0;
  for (const cls of deps.registry.list()) {
    for (const route of cls.options.routes ?? []) {
      const target = cls.methodsByName.get(route.target);
      if (target?.options.errorShape && !route.path.includes(':'))
        aliasMethods.set(`${route.method} ${route.path}`, { classId: cls.id, method: target });
      const verb = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      const limit = target && shared.bodies.limitOf(target);
      if (limit) {
        aliasLimitRoutes++;
        limitRoutes[verb](route.path, (_req: Request, res: Response, next: NextFunction) => {
          res.locals.bodyLimit = limit;
          next();
        });
      }
      router[verb](route.path, async (req: Request, res: Response) => {
        const p = req.params as Record<string, string | undefined>;
        await calls.callFrom(req, res, {
          classId: cls.id,
          method: route.target,
          instanceId: route.instanceId ?? p.instanceId,
        });
      });
    }
  }

  return { router, aliasLimits: aliasLimitRoutes === 0 ? null : limitRoutes, aliasMethods };
}
