import { randomUUID } from 'node:crypto';
import cors from 'cors';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { CallRequest } from '../actor/call-request';
import type { Dispatcher } from '../actor/dispatcher';
import type { ClassRegistry, RegisteredMethod } from '../actor/registry';
import type { CallResult } from '../types/calls';
import type { Identity } from '../types/identity';
import type { ApiKeyStore, TokenService } from '../auth/auth';
import type { IdentityResolver } from '../auth/identities';
import type { SessionTokens } from '../auth/sessions';
import { ActorError, RuntimeCodes, runtimeError } from '../errors';
import type { JobQueue } from '../queue/job-queue';
import { asRedisUnavailable } from '../redis/client';
import { nestedDeeperThan, parseByteSize } from './body-guards';
import { devMailRouter } from '../mail/dev-page';
import { CONSOLE_PATH, operatorConsole, type ConsoleOptions } from './console';
import { openApiRouter } from './openapi';
import { escapeHtml, pagesRouter, type PageSite } from './pages';
import { IDEMPOTENCY_HEADER, IdempotencyStore, type IdempotencyClaim } from './idempotency';
import type { RedisJournals } from '../actor/journal';
import type { RedisConnection } from '../redis/connection';
import type { EmbeddedMailTransport } from '../mail/eml-transport';
import type { RuntimeMetrics } from '../metrics';

export interface HttpDeps {
  projectId: string;
  /** express 'trust proxy' (TRUST_PROXY): whose X-Forwarded-For gives the caller's address */
  trustProxy?: boolean | number | string;
  /** CORS_ORIGINS: browser origins whose pages may call the API (none: no CORS headers) */
  corsOrigins?: readonly string[];
  dispatcher: Dispatcher;
  registry: ClassRegistry;
  apiKeys: ApiKeyStore;
  tokens: TokenService;
  /** who the caller is: API keys, development tokens, session tokens completed by their identity source */
  identities: IdentityResolver;
  /** refresh-token exchanges (POST /<projectId>/auth/refresh) */
  sessions: SessionTokens;
  jobs: JobQueue;
  logger: Logger;
  bodyLimit: string;
  /** deepest nesting of a JSON body (MAX_JSON_DEPTH); default 64 */
  maxJsonDepth?: number;
  ready: () => Promise<Record<string, string>>;
  /** told of every Redis failure a request meets (it logs one line per outage) */
  redisHealth?: { failed(err: unknown): boolean };
  /** the embedded mail adapter when it is in use: /dev/mail lists what it wrote (absent: 404) */
  devMail?: EmbeddedMailTransport;
  /** Idempotency-Key answers are kept here (runtime/http/idempotency.ts); absent: the header is ignored */
  redis?: RedisConnection;
  /** Prometheus metrics (runtime/metrics.ts): calls are recorded in callFrom, served at /metrics; absent: neither */
  metrics?: RuntimeMetrics;
  /** where journaled methods' calls are recorded (MethodOptions.journal); absent: not recorded */
  journals?: RedisJournals;
  /** the classes' server-rendered pages under /pages/ (runtime/http/pages.ts); absent or empty: none */
  pages?: readonly PageSite[];
  /** the operator console (queues, dead letters) at /admin, behind its own authentication (runtime/http/console.ts); absent: 404 */
  console?: ConsoleOptions;
}

type Headers = Record<string, string | string[] | undefined>;

interface CallParams {
  projectId: string;
  classId: string;
  method: string;
  instanceId?: string;
}

/** the CALL route's path as express's router matches `/:projectId/CALL/:classId/:method{/:instanceId}` (path-to-regexp 8) */
const CALL_ROUTE = /^\/([^/]+)\/CALL\/([^/]+)\/([^/]+)(?:\/([^/]+))?\/?$/i;

/** a path parameter, URI-decoded as express's router does it (a malformed one is a 400) */
function decodeParam(value: string): string {
  // nothing escaped (the usual case): decodeURIComponent would answer the same string
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) {
      err.message = `Failed to decode param '${value}'`;
      (err as URIError & { status?: number }).status = 400;
    }
    throw err;
  }
}

/**
 * A call as the HTTP layer makes it. Its query and caller address are read
 * from the express request only when a handler asks (ctx.request): parsing the
 * query and working out req.ip cost every call otherwise. A class with the two
 * getters on its prototype: an object literal with getters costs far more to
 * make than both of them.
 */
class HttpCall implements CallRequest {
  readonly classId: string;
  readonly method: string;
  readonly instanceId?: string;
  readonly headers: Headers;
  readonly origin = 'http' as const;

  constructor(
    target: { classId: string; method: string; instanceId?: string },
    readonly body: unknown,
    readonly identity: Identity,
    readonly requestId: string,
    private readonly http: Request,
    /** no proxy is trusted: the caller's address is the connection's peer */
    private readonly peerIsCaller: boolean,
  ) {
    this.classId = target.classId;
    this.method = target.method;
    this.instanceId = target.instanceId;
    this.headers = http.headers;
  }

  get query(): Record<string, unknown> {
    // no query string: what the 'simple' parser (querystring.parse) answers for none, without express's getter
    if (this.http.url.indexOf('?') === -1) return { __proto__: null };
    return this.http.query;
  }

  get ip(): string | undefined {
    // with no proxy trusted express's req.ip is the socket's peer, found after parsing X-Forwarded-For for nothing
    return this.peerIsCaller ? this.http.socket.remoteAddress : this.http.ip;
  }
}

/** the error code in an error answer's body: `code`, or `error.code` in an envelope of a method's own */
function errorCodeIn(body: unknown): string | number | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as { code?: unknown; error?: { code?: unknown } };
  const code = b.code ?? b.error?.code;
  return typeof code === 'string' || typeof code === 'number' ? code : undefined;
}

/**
 * A JSON answer as express's res.json writes it (same header names, values
 * and order: Content-Type then Content-Length), without its per-answer work
 * (settings look-ups, MIME and charset parsing twice, the freshness check):
 * about a tenth of a READ's CPU. Only where res.json could do nothing else: a
 * 2xx other than 204 and 205, no header of the method's own (an ETag or
 * Last-Modified could make it a 304), no conditional GET, not HEAD. False
 * when it did not answer.
 */
function sendJsonDirect(req: Request, res: Response, status: number, body: unknown): boolean {
  if (!Number.isInteger(status) || status < 200 || status >= 300 || status === 204 || status === 205) return false;
  if (req.method === 'HEAD') return false;
  const h = req.headers;
  if (req.method === 'GET' && (h['if-none-match'] !== undefined || h['if-modified-since'] !== undefined)) return false;
  if (res.getHeader('content-type') !== undefined || res.getHeader('transfer-encoding') !== undefined) return false;
  if (typeof body === 'object' && body !== null && ArrayBuffer.isView(body)) return false;
  const json = JSON.stringify(body);
  if (typeof json !== 'string') return false;
  if (res.statusCode !== status) res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(json, 'utf8')));
  res.end(json, 'utf8');
  return true;
}

/** true when `headers` holds no header */
function noHeaders(headers: Record<string, string>): boolean {
  for (const _ in headers) return false;
  return true;
}

function send(res: Response, result: CallResult): void {
  const headers = result.headers;
  const body = result.body;
  if (
    noHeaders(headers) &&
    body !== undefined &&
    (typeof body !== 'string' || res.getHeader('content-type') === undefined) &&
    sendJsonDirect(res.req, res, result.status, body)
  )
    return;
  for (const k in headers) res.setHeader(k, headers[k]);
  // 200 is already the status of a fresh response
  if (res.statusCode !== result.status) res.status(result.status);
  if (result.status === 204 || body === undefined) {
    res.end();
  } else if (Buffer.isBuffer(body) || (typeof body === 'string' && res.getHeader('content-type'))) {
    res.send(body);
  } else {
    res.json(body);
  }
}

/**
 * A method's own error envelope (MethodOptions.errorShape): applied to every
 * ActorError without a body of its own; unexpected errors are logged and
 * shaped as the runtime's INTERNAL error.
 */
function shapeError(shape: ((err: ActorError) => ActorError) | undefined, err: unknown, log: Logger): unknown {
  if (!shape) return err;
  if (err instanceof ActorError && err.body) return err;
  let e: ActorError;
  if (err instanceof ActorError) e = err;
  else {
    log.error({ err }, 'unexpected error');
    e = runtimeError('INTERNAL', 'Internal error');
  }
  try {
    return shape(e);
  } catch (shapeErr) {
    log.error({ err: shapeErr }, 'errorShape failed');
    return e;
  }
}

function sendError(res: Response, err: unknown, log: Logger): void {
  if (err instanceof ActorError) {
    // a Redis outage is logged once by RedisHealth, not once per call
    if (err.status >= 500 && err.code !== RuntimeCodes.REDIS_UNAVAILABLE.code)
      log.warn({ code: err.code, msg: err.message }, 'call failed');
    res.status(err.status).json(err.toBody());
    return;
  }
  log.error({ err }, 'unexpected error');
  res.status(500).json({ code: 1000, message: 'Internal error', requestId: res.getHeader('x-request-id') });
}

/** The stylesheet of the service's own pages: readable, no framework. */
const SITE_CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.5rem}a{color:#0b57d0}li{margin:.5rem 0}code{background:#f1f3f6;padding:0 .25rem;border-radius:3px}`;

/** The page at `/`: the project and where to go from here. */
function landingPage(projectId: string, links: readonly { href: string; title: string; text: string }[]): string {
  const items = links
    .map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a>: ${escapeHtml(l.text)}</li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(projectId)}</title><link rel="stylesheet" href="/site.css"></head>
<body><main><h1>${escapeHtml(projectId)}</h1><p>This service answers calls at <code>/${escapeHtml(projectId)}/CALL/&lt;Class&gt;/&lt;method&gt;/&lt;instanceId&gt;</code>.</p>
<ul>${items}</ul></main></body></html>`;
}

/** How long a browser keeps a CORS preflight's answer (Access-Control-Max-Age). */
export const CORS_MAX_AGE_S = 600;

/** express app: the CALL route, job status, route aliases declared by classes, health. */
export function createHttpApp(deps: HttpDeps): express.Express {
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

  /*
   * This project's calls go to the CALL path here, before the routes and
   * routers below: walking them cost a call about a tenth of its CPU, and
   * none of them answers a CALL path (they are one segment long, or under
   * /docs, /dev/mail, /admin and /pages, whose routers would answer a CALL
   * path themselves only when the project bears their name: then the calls
   * wait for their turn below, as before).
   */
  const mountedFirst = new Set(['docs', 'dev', 'admin', 'pages']);
  if (!mountedFirst.has(deps.projectId.toLowerCase())) {
    app.use((req: Request, res: Response, next: NextFunction) => {
      const m = CALL_ROUTE.exec(req.path);
      if (m === null || m[1] !== deps.projectId) return next();
      callPath(req, res, next, m);
    });
  }

  app.get('/health', (_req, res) => {
    // the pid tells which runtime process answered (PROCESSES > 1)
    res.json({ status: 'ok', pid: process.pid });
  });
  app.get('/ready', async (_req, res) => {
    try {
      res.json({ status: 'ready', ...(await deps.ready()) });
    } catch (err) {
      res.status(503).json({ status: 'not_ready', message: (err as Error).message });
    }
  });
  const metrics = deps.metrics;
  if (metrics) {
    app.get('/metrics', async (_req, res) => {
      try {
        const { contentType, body } = await metrics.scrape();
        res.setHeader('content-type', contentType);
        res.send(body);
      } catch (err) {
        // a gauge read from Redis failed: no stale values, the scrape fails
        res
          .status(503)
          .type('text/plain')
          .send(`metrics unavailable: ${(err as Error).message}\n`);
      }
    });
  }
  // what someone opening the service's address finds: where to go next (a browser gets a page, a client JSON)
  app.get('/', (req, res) => {
    const links = [
      { href: '/docs', title: 'API reference', text: 'every class and method, with a form to try each' },
      { href: '/openapi.json', title: 'OpenAPI document', text: 'the same, for code generators' },
      ...(deps.devMail
        ? [
            {
              href: '/dev/mail',
              title: 'Mail sent',
              text: 'the messages this service wrote instead of sending (SMTP_URL is unset)',
            },
          ]
        : []),
      // where the classes' pages start (a sign-in), for someone trying the service with a browser
      ...(deps.pages ?? []).flatMap((site) => site.entries ?? []),
      ...(deps.console
        ? [
            {
              href: '/admin/queues',
              title: 'Operator console',
              text: 'queues, failed jobs and dead letters, for developers (sign in with your access token)',
            },
          ]
        : []),
      { href: '/health', title: 'Health', text: 'whether this process answers' },
    ];
    if (req.accepts(['json', 'html']) !== 'html') {
      res.json({
        project: deps.projectId,
        calls: `/${deps.projectId}/CALL/<Class>/<method>/<instanceId>`,
        links: links.map(({ href, title }) => ({ href, title })),
      });
      return;
    }
    res.setHeader(
      'content-security-policy',
      "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    res.type('html').send(landingPage(deps.projectId, links));
  });
  // browsers ask every site for an icon: an empty answer, not a JSON 404 in their consoles
  app.get('/favicon.ico', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=86400');
    res.status(204).end();
  });
  app.get('/site.css', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=3600');
    res.type('css').send(SITE_CSS);
  });
  // the API reference: /openapi.json and its interactive page /docs
  app.use(openApiRouter(deps.registry, { projectId: deps.projectId }));
  // mounted under its path: other requests do not walk its routes
  if (deps.devMail) app.use('/dev/mail', devMailRouter(deps.devMail));
  // before the JSON body parser below: the console parses its own bodies, after its authentication
  if (deps.console) app.use(CONSOLE_PATH, operatorConsole(deps.console));
  // before the JSON body parser below: pages read forms
  if (deps.pages?.length) app.use(pagesRouter(deps.pages, deps));

  /*
   * The JSON body parser. Its size limit is BODY_LIMIT, or the smaller
   * MethodOptions.bodyLimit of the method the request addresses (through the
   * CALL path or a route alias), chosen before a byte is read and left in
   * res.locals.bodyLimit (for the error's message). Right after parsing, a body nested deeper than
   * MAX_JSON_DEPTH is refused (BODY_TOO_DEEP), iteratively, before any
   * handler or schema validation walks it recursively.
   */
  interface BodyLimit {
    bytes: number;
    label: string;
  }
  const globalLimit: BodyLimit = { bytes: parseByteSize(deps.bodyLimit), label: deps.bodyLimit };
  const maxJsonDepth = deps.maxJsonDepth ?? 64;
  const methodLimits = new Map<RegisteredMethod, BodyLimit>();
  for (const cls of deps.registry.list()) {
    for (const m of cls.methodsByName.values()) {
      const own = m.options.bodyLimit;
      if (own === undefined) continue;
      let bytes: number;
      try {
        bytes = parseByteSize(own);
      } catch (err) {
        throw new Error(`${cls.id}.${m.name}: bodyLimit: ${(err as Error).message}`);
      }
      if (bytes < globalLimit.bytes) methodLimits.set(m, { bytes, label: String(own) });
    }
  }
  const parsers = new Map<number, express.RequestHandler>();
  const parserFor = (bytes: number): express.RequestHandler => {
    let parser = parsers.get(bytes);
    if (!parser) parsers.set(bytes, (parser = express.json({ limit: bytes, type: () => true, strict: false })));
    return parser;
  };
  /** methods with `formBody`: a form-encoded body is parsed as a form (one flat level of strings), any other as JSON */
  const formParsers = new Map<number, express.RequestHandler>();
  const formParserFor = (bytes: number): express.RequestHandler => {
    let parser = formParsers.get(bytes);
    if (!parser) {
      const form = express.urlencoded({ limit: bytes, extended: false, parameterLimit: 100 });
      const json = parserFor(bytes);
      parser = (req, res, next) => {
        if (!req.is('application/x-www-form-urlencoded')) return json(req, res, next);
        form(req, res, (err?: unknown) => {
          if (err) return next(err);
          // querystring's object: a repeated field is an array; the last value counts, as a form's does
          const fields: Record<string, string> = Object.create(null);
          for (const [k, v] of Object.entries(req.body as Record<string, string | string[]>))
            fields[k] = Array.isArray(v) ? v[v.length - 1] : v;
          req.body = fields;
          next();
        });
      };
      formParsers.set(bytes, parser);
    }
    return parser;
  };
  /** a body limit per route alias of a method with a smaller limit (set up with the aliases below) */
  const limitRoutes = express.Router();
  let aliasLimitRoutes = 0;
  const parseBody = (
    req: Request,
    res: Response,
    next: NextFunction,
    limit: BodyLimit,
    then: () => void,
    form = false,
  ): void => {
    (form ? formParserFor : parserFor)(limit.bytes)(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (nestedDeeperThan(req.body, maxJsonDepth)) {
        return next(
          runtimeError('BODY_TOO_DEEP', `JSON body nested deeper than ${maxJsonDepth} levels`, {
            maxDepth: maxJsonDepth,
          }),
        );
      }
      then();
    });
  };
  /*
   * The CALL path is matched once, here, as express would match the CALL route
   * below (case-insensitive, optional trailing slash, parameters URI-decoded):
   * its method's limit is chosen and, once the body is parsed, the call runs
   * without walking the router further. Other paths get their limit from
   * `limitRoutes` (route aliases) and go on to the routes below.
   */
  app.use((req: Request, res: Response, next: NextFunction) => {
    const m = CALL_ROUTE.exec(req.path);
    if (!m) {
      if (aliasLimitRoutes === 0) return parseBody(req, res, next, globalLimit, () => next());
      return limitRoutes(req, res, (err?: unknown) => {
        if (err) return next(err);
        parseBody(req, res, next, (res.locals.bodyLimit as BodyLimit | undefined) ?? globalLimit, () => next());
      });
    }
    callPath(req, res, next, m);
  });

  /** a request on the CALL path (`m`: CALL_ROUTE's match): its body parsed under its method's limit, then the call */
  function callPath(req: Request, res: Response, next: NextFunction, m: RegExpExecArray): void {
    let params: CallParams;
    try {
      params = {
        projectId: decodeParam(m[1]),
        classId: decodeParam(m[2]),
        method: decodeParam(m[3]),
        instanceId: m[4] === undefined ? undefined : decodeParam(m[4]),
      };
    } catch (err) {
      return next(err);
    }
    const method =
      params.projectId === deps.projectId
        ? deps.registry.get(params.classId)?.methodsByName.get(params.method)
        : undefined;
    const limit = method && methodLimits.get(method);
    if (limit) res.locals.bodyLimit = limit;
    // no body (neither Transfer-Encoding nor a Content-Length, type-is's test: most GETs): the parsers would
    // only set req.body to undefined and go on; done here without them
    const h = req.headers;
    if (h['transfer-encoding'] === undefined && isNaN(h['content-length'] as unknown as number)) {
      if (!('body' in (req as object))) req.body = undefined;
      callRoute(req, res, params)?.catch(next);
      return;
    }
    parseBody(
      req,
      res,
      next,
      limit ?? globalLimit,
      () => {
        callRoute(req, res, params)?.catch(next);
      },
      method?.options.formBody === true,
    );
  }

  /** A Redis that did not answer is 503 REDIS_UNAVAILABLE, not an internal error. */
  const redisFailure = (err: unknown, classId?: string): unknown => {
    deps.redisHealth?.failed(err);
    const mapped = asRedisUnavailable(err);
    if (mapped && classId) mapped.classId = classId;
    return mapped ?? err;
  };

  // 'trust proxy' off (express compiles it to trust nobody): req.ip is always the socket's peer
  const peerIsCaller = deps.trustProxy === undefined || deps.trustProxy === false;
  const idempotency = deps.redis && new IdempotencyStore(deps.redis, `rt:${deps.projectId}`);

  /**
   * One entry in the method's journal for a call it answered (never fails
   * the call: an entry that cannot be written is logged).
   */
  const journal = (
    classId: string,
    method: RegisteredMethod,
    instanceId: string | undefined,
    identity: Identity | undefined,
    body: unknown,
    res: Response,
    answer: unknown,
    at: bigint,
    code?: string | number,
  ): void => {
    const spec = method.options.journal;
    if (!spec || !deps.journals) return;
    const status = res.statusCode;
    // a caller whose credentials did not hold is not journaled: anyone could fill the journal otherwise
    if (status === 401) return;
    deps.metrics?.journalEntry(spec.name, classId, method.name, status, code);
    const answeredAt = performance.now();
    deps.journals
      .append(spec, {
        classId,
        method: method.name,
        instanceId,
        identity,
        status,
        ...(code !== undefined ? { code } : {}),
        durationMs: Number(process.hrtime.bigint() - at) / 1e6,
        requestId: res.locals.requestId as string | undefined,
        body,
        answer,
      })
      .then(
        () => deps.metrics?.journalAppended(spec.name, (performance.now() - answeredAt) / 1000),
        (err: unknown) => {
          deps.metrics?.journalAppended(spec.name, undefined);
          deps.logger.warn({ err, journal: spec.name, classId, method: method.name }, 'journal entry not written');
        },
      );
  };

  const callFrom = async (
    req: Request,
    res: Response,
    target: { classId: string; method: string; instanceId?: string },
  ): Promise<void> => {
    const cls = deps.registry.get(target.classId);
    const method = cls?.methodsByName.get(target.method);
    // what only the request log line reads is kept only when that line is written
    const logged = deps.logger.isLevelEnabled('info');
    let claim: IdempotencyClaim | undefined;
    // recorded once the call is answered (labels: the registry's class and method, never the request's)
    const started = deps.metrics && performance.now();
    const journaled =
      method?.options.journal && deps.journals
        ? {
            at: process.hrtime.bigint(),
            identity: undefined as Identity | undefined,
            answer: undefined as unknown,
            code: undefined as string | number | undefined,
          }
        : undefined;
    let busy = false;
    try {
      if (logged) {
        res.locals.classId = target.classId;
        res.locals.classMethod = target.method;
        res.locals.instanceId = target.instanceId;
      }
      if (req.method === 'GET' && method && method.kind !== 'READ' && method.kind !== 'STATIC') {
        throw runtimeError('METHOD_NOT_ALLOWED', `${target.classId}.${target.method} is ${method.kind}: use POST`);
      }
      // an API key known in memory is checked without a promise
      const identifying = deps.identities.identifyNow(req.headers);
      const identity = identifying instanceof Promise ? await identifying : identifying;
      if (logged) res.locals.identity = identity;
      if (journaled) journaled.identity = identity;
      // an Idempotency-Key on a POST (or another verb of a route alias): a repeat replays the first answer
      // not for anonymous callers: they would share one key scope, and public answers (sign-in tokens) must not be kept
      // begin answers undefined without the header or a replay window: not asked then (a promise per call saved)
      const idem =
        method &&
        req.method !== 'GET' &&
        idempotency &&
        identity.type !== 'anonymous' &&
        (req.headers[IDEMPOTENCY_HEADER] !== undefined || method.replayWindowSeconds)
          ? await idempotency.begin(
              req.headers,
              `${identity.type}:${identity.userId ?? ''}`,
              { method: req.method, path: req.originalUrl, body: req.body },
              method.budgetMs,
              method.replayWindowSeconds,
            )
          : undefined;
      if (idem?.replay) {
        if (journaled)
          Object.assign(journaled, {
            answer: idem.replay.body,
            code: idem.replay.status >= 400 ? errorCodeIn(idem.replay.body) : undefined,
          });
        return send(res, idem.replay);
      }
      claim = idem?.claim;
      const call = new HttpCall(
        target,
        req.method === 'GET' ? {} : req.body,
        identity,
        res.locals.requestId as string,
        req,
        peerIsCaller,
      );
      const result = await deps.dispatcher.call(call);
      await claim?.settle(result);
      if (journaled) journaled.answer = result.body;
      send(res, result);
    } catch (err) {
      // a logger for this request only when there is something to log
      const log = deps.logger.child({ requestId: res.locals.requestId });
      busy = err instanceof ActorError && err.code === RuntimeCodes.INSTANCE_BUSY.code;
      const out = shapeError(method?.options.errorShape, redisFailure(err, target.classId), log);
      await claim?.settle(
        out instanceof ActorError
          ? { status: out.status, headers: {}, body: out.toBody() }
          : { status: 500, headers: {}, body: undefined },
      );
      // the code as answered: an envelope of the method's own may carry it elsewhere than `code`
      if (journaled)
        Object.assign(
          journaled,
          out instanceof ActorError
            ? { answer: out.toBody(), code: errorCodeIn(out.toBody()) ?? out.code }
            : { answer: undefined, code: RuntimeCodes.INTERNAL.code },
        );
      sendError(res, out, log);
    } finally {
      if (started !== undefined) deps.metrics!.observe(cls?.id, method, res.statusCode, started, busy);
      if (journaled)
        journal(
          cls!.id,
          method!,
          target.instanceId,
          journaled.identity,
          req.body,
          res,
          journaled.answer,
          journaled.at,
          journaled.code,
        );
    }
  };

  const unknownProject = (res: Response, projectId: string | undefined): void => {
    const err = runtimeError('UNKNOWN_PROJECT', `Unknown project '${projectId}'`);
    res.status(err.status).json(err.toBody());
  };

  const project = (req: Request, res: Response, next: NextFunction) => {
    if (req.params.projectId !== deps.projectId) return unknownProject(res, req.params.projectId as string | undefined);
    next();
  };

  /** `/<projectId>/CALL/<ClassId>/<method>[/<instanceId>]` once its body is parsed (a promise while the call runs) */
  const callRoute = (req: Request, res: Response, p: CallParams): Promise<void> | void => {
    if (p.projectId !== deps.projectId) return unknownProject(res, p.projectId);
    if (req.method !== 'GET' && req.method !== 'POST') {
      const err = runtimeError('METHOD_NOT_ALLOWED', 'CALL accepts POST (and GET for READ and STATIC methods)');
      res.status(err.status).json(err.toBody());
      return;
    }
    return callFrom(req, res, p);
  };

  // reached only if the CALL path above did not recognise a path express matches here
  app.all('/:projectId/CALL/:classId/:method{/:instanceId}', async (req: Request, res: Response) => {
    await callRoute(req, res, req.params as unknown as CallParams);
  });

  app.get('/:projectId/JOBS/:jobId', project, async (req: Request, res: Response) => {
    const log = deps.logger.child({ requestId: res.locals.requestId });
    try {
      const identity = await deps.identities.identify(req.headers);
      res.locals.identity = identity;
      if (identity.type === 'anonymous') throw runtimeError('UNAUTHENTICATED', 'Job status needs authentication');
      const { status, identity: owner } = await deps.jobs.status(String(req.params.jobId));
      if (owner.type !== identity.type || owner.userId !== identity.userId) {
        // do not reveal other callers' jobs
        throw runtimeError('UNKNOWN_JOB', `No job '${req.params.jobId}'`);
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
  app.post('/:projectId/auth/refresh', project, async (req: Request, res: Response) => {
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
      const log = deps.logger.child({ requestId: res.locals.requestId });
      sendError(res, redisFailure(err), log);
    }
  });

  // route aliases whose method shapes its errors: body-parser errors on them are shaped too
  const aliasMethods = new Map<string, { classId: string; method: RegisteredMethod }>();
  for (const cls of deps.registry.list()) {
    for (const route of cls.options.routes ?? []) {
      const target = cls.methodsByName.get(route.target);
      if (target?.options.errorShape && !route.path.includes(':'))
        aliasMethods.set(`${route.method} ${route.path}`, { classId: cls.id, method: target });
      const verb = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      const limit = target && methodLimits.get(target);
      if (limit) {
        aliasLimitRoutes++;
        limitRoutes[verb](route.path, (_req: Request, res: Response, next: NextFunction) => {
          res.locals.bodyLimit = limit;
          next();
        });
      }
      app[verb](route.path, async (req: Request, res: Response) => {
        const p = req.params as Record<string, string | undefined>;
        await callFrom(req, res, {
          classId: cls.id,
          method: route.target,
          instanceId: route.instanceId ?? p.instanceId,
        });
      });
    }
  }

  /**
   * The method a request that failed before routing (body parser) addresses,
   * when it shapes its own errors: a route alias, or the CALL path
   * `/<projectId>/CALL/<ClassId>/<method>[/<instanceId>]`.
   */
  const CALL_PATH = /^\/([^/]+)\/CALL\/([^/]+)\/([^/]+)(?:\/[^/]*)?\/?$/;
  /** the method a request addresses (route alias or CALL path), when it names one */
  const methodOf = (req: Request): { classId: string; method: RegisteredMethod } | undefined => {
    const alias = aliasMethods.get(`${req.method} ${req.path}`);
    if (alias) return alias;
    const m = CALL_PATH.exec(req.path);
    if (!m || m[1] !== deps.projectId) return undefined;
    const method = deps.registry.get(m[2])?.methodsByName.get(m[3]);
    return method ? { classId: m[2], method } : undefined;
  };

  /**
   * On a method with its own error envelope the caller's credentials are
   * checked before its body, as on a parsed request (the dispatcher
   * authorizes before it validates): a bad key answers 401 even when the
   * body is malformed. Answers the authentication error, or null.
   */
  const credentialError = async (
    req: Request,
    target: { classId: string; method: RegisteredMethod },
  ): Promise<ActorError | null> => {
    try {
      const identity = await deps.identities.identify(req.headers);
      await deps.dispatcher.authorize(identity, target.classId, target.method.name);
      return null;
    } catch (err) {
      const failure = redisFailure(err);
      return failure instanceof ActorError ? failure : runtimeError('UNAUTHENTICATED', 'Authentication failed');
    }
  };

  app.use((_req: Request, res: Response) => {
    const err = runtimeError('NOT_FOUND', 'No such route');
    res.status(err.status).json(err.toBody());
  });

  // body parser and other middleware errors: never a 500 for bad input
  app.use(async (err: unknown, req: Request, res: Response, _next: NextFunction) => {
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
      journal(
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
      const limit = (res.locals.bodyLimit as BodyLimit | undefined) ?? globalLimit;
      out = runtimeError('BODY_TOO_LARGE', `Body exceeds the limit of ${limit.label}`);
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
    res.status(shaped.status).json(shaped.toBody());
    await record(shaped);
  });

  return app;
}
