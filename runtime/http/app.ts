/**
 * The express app: one route table, in the order requests walk it, each
 * concern's routes in its own module (the CALL path, health, the site and
 * its tools, the body parser, the integration routes, the error answers).
 */
import { randomUUID } from 'node:crypto';
import cors from 'cors';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Identity } from '../types/identity';
import { BodyParsers } from './body';
import { CallRoute } from './call-route';
import { errorHandler, notFound } from './error-routes';
import { healthRoutes } from './health-routes';
import { integrationRoutes } from './integration-routes';
import { redisFailureMapper } from './respond';
import { siteRoutes } from './site-routes';
import type { HttpDeps, HttpShared } from './deps';

/** How long a browser keeps a CORS preflight's answer (Access-Control-Max-Age). */
export const CORS_MAX_AGE_S = 600;

/**
 * Projects whose name is a top-level path of the site's routers (/docs,
 * /dev/mail, /admin, /pages): those routers would answer a CALL path of such
 * a project themselves, so its calls wait for their turn after them.
 */
const MOUNTED_FIRST = new Set(['docs', 'dev', 'admin', 'pages']);

/** express app: the CALL route, job status, route aliases declared by classes, health. */
export function createHttpApp(deps: HttpDeps): express.Express {
  const shared: HttpShared = {
    deps,
    bodies: new BodyParsers(deps.registry, deps.bodyLimit, deps.maxJsonDepth),
    redisFailure: redisFailureMapper(deps.redisHealth),
  };
  const calls = new CallRoute(shared);
  const integration = integrationRoutes(shared, calls);
  const { bodies } = shared;

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // the caller's address (req.ip, ctx.request.ip) believes X-Forwarded-For only from the proxies TRUST_PROXY names
  app.set('trust proxy', deps.trustProxy ?? false);

  if (deps.corsOrigins?.length) {
    const allowed = new Set(deps.corsOrigins);
    // only a listed origin gets the headers (reflected, never '*': the member and back-office apps send credentials);
    // a preflight is answered 204 and kept by the browser for 10 minutes
    app.use(
      cors({
        origin: (origin, done) => done(null, origin !== undefined && allowed.has(origin)),
        credentials: true,
        maxAge: CORS_MAX_AGE_S,
        methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'if-none-match', 'x-request-id'],
        exposedHeaders: [
          'x-request-id',
          'retry-after',
          'etag',
          'idempotent-replayed',
          'location',
          'content-disposition',
        ],
      }),
    );
  }

  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.setHeader('x-request-id', id);
    // the request line costs a listener and a clock read per request: only when it will be written
    if (deps.logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const identity = res.locals.identity as Identity | undefined;
        deps.logger.info(
          {
            requestId: id,
            method: req.method,
            path: req.path,
            classId: res.locals.classId,
            classMethod: res.locals.classMethod,
            instanceId: res.locals.instanceId,
            identity: identity ? { type: identity.type, userId: identity.userId } : undefined,
            status: res.statusCode,
            durationMs: Math.round(ms * 100) / 100,
          },
          'request',
        );
      });
    }
    next();
  });

  /** Any request that is not a CALL: its body parsed under its route alias's limit, or the global one. */
  const parseOther = (req: Request, res: Response, next: NextFunction): void => {
    const aliasLimits = integration.aliasLimits;
    if (aliasLimits === null) return bodies.parse(req, res, next, bodies.globalLimit, () => next());
    aliasLimits(req, res, (err?: unknown) => {
      if (err) return next(err);
      bodies.parse(req, res, next, bodies.limitFor(res), () => next());
    });
  };

  // the route table, in the order a request walks it
  const routes: express.RequestHandler[] = [
    // this project's calls first: walking the routes and routers below cost a call about a tenth of its CPU
    ...(MOUNTED_FIRST.has(deps.projectId.toLowerCase()) ? [] : [calls.first]),
    healthRoutes(deps),
    // before the body parser: the console and pages parse their own bodies
    siteRoutes(deps),
    // the body parser; a CALL path is answered here once its body is parsed
    calls.parsing(parseOther),
    integration.router,
    notFound,
  ];
  for (const route of routes) app.use(route);
  // body parser and other middleware errors: never a 500 for bad input
  app.use(errorHandler(shared, calls, integration.aliasMethods));
  return app;
}
