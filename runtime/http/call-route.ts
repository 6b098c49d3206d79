/**
 * The CALL path: a request on it has its body parsed under its method's
 * limit and becomes a call of the dispatcher, answered with the call's
 * result or error. callFrom is also what a route alias runs.
 */
import type { NextFunction, Request, Response } from 'express';
import type { RegisteredMethod } from '../actor/registry';
import type { CallRequest } from '../actor/call-request';
import { queryInput } from '../actor/validation';
import { ActorError, RuntimeCodes, runtimeError } from '../errors';
import type { Identity } from '../types/identity';
import { IDEMPOTENCY_HEADER, IdempotencyStore, type IdempotencyClaim } from './idempotency';
import { parseCallPath, type CallParams } from './call-path';
import { errorCodeIn, send, sendActorError, sendError, shapeError } from './respond';
import type { HttpDeps, HttpShared } from './deps';

type Headers = Record<string, string | string[] | undefined>;

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

export class CallRoute {
  private readonly deps: HttpDeps;
  /** 'trust proxy' off (express compiles it to trust nobody): req.ip is always the socket's peer */
  private readonly peerIsCaller: boolean;
  private readonly idempotency: IdempotencyStore | undefined;

  constructor(private readonly shared: HttpShared) {
    const deps = shared.deps;
    this.deps = deps;
    this.peerIsCaller = deps.trustProxy === undefined || deps.trustProxy === false;
    this.idempotency = deps.redis && new IdempotencyStore(deps.redis, `rt:${deps.projectId}`);
  }

  /**
   * A request on this project's CALL path, answered before express walks its
   * other routes and routers (walking them cost a call about a tenth of its
   * CPU); any other request goes on.
   */
  readonly first = (req: Request, res: Response, next: NextFunction): void => {
    let params: CallParams | undefined;
    try {
      params = parseCallPath(req.path);
    } catch {
      // a malformed segment: answered where the body parser takes the CALL path
      return next();
    }
    if (params === undefined || params.projectId !== this.deps.projectId) return next();
    this.onPath(req, res, next, params);
  };

  /**
   * The body parser's turn: a request on the CALL path has its body parsed
   * under its method's limit and the call runs without walking the router
   * further; any other request is handed to `other`.
   */
  readonly parsing =
    (other: (req: Request, res: Response, next: NextFunction) => void) =>
    (req: Request, res: Response, next: NextFunction): void => {
      let params: CallParams | undefined;
      try {
        params = parseCallPath(req.path);
      } catch (err) {
        return next(err);
      }
      if (params === undefined) return other(req, res, next);
      this.onPath(req, res, next, params);
    };

  /** a request on the CALL path: its body parsed under its method's limit, then the call */
  private onPath(req: Request, res: Response, next: NextFunction, params: CallParams): void {
    const method =
      params.projectId === this.deps.projectId
        ? this.deps.registry.get(params.classId)?.methodsByName.get(params.method)
        : undefined;
    const limit = method && this.shared.bodies.limitOf(method);
    if (limit) res.locals.bodyLimit = limit;
    // no body (neither Transfer-Encoding nor a Content-Length, type-is's test: most GETs): the parsers would
    // only set req.body to undefined and go on; done here without them
    const h = req.headers;
    if (h['transfer-encoding'] === undefined && isNaN(h['content-length'] as unknown as number)) {
      if (!('body' in (req as object))) req.body = undefined;
      this.callRoute(req, res, params)?.catch(next);
      return;
    }
    this.shared.bodies.parse(
      req,
      res,
      next,
      limit ?? this.shared.bodies.globalLimit,
      () => {
        this.callRoute(req, res, params)?.catch(next);
      },
      method?.options.formBody === true,
    );
  }

  /** `/<projectId>/CALL/<ClassId>/<method>[/<instanceId>]` once its body is parsed (a promise while the call runs) */
  private callRoute(req: Request, res: Response, p: CallParams): Promise<void> | void {
    if (p.projectId !== this.deps.projectId) {
      sendActorError(res, runtimeError('UNKNOWN_PROJECT', `Unknown project '${p.projectId}'`));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'POST') {
      sendActorError(
        res,
        runtimeError('METHOD_NOT_ALLOWED', 'CALL accepts POST (and GET for READ and STATIC methods)'),
      );
      return;
    }
    return this.callFrom(req, res, p);
  }

  /**
   * One entry in the method's journal for a call it answered (never fails
   * the call: an entry that cannot be written is logged).
   */
  journal(
    classId: string,
    method: RegisteredMethod,
    instanceId: string | undefined,
    identity: Identity | undefined,
    body: unknown,
    res: Response,
    answer: unknown,
    at: bigint,
    code?: string | number,
  ): void {
    const spec = method.options.journal;
    if (!spec || !this.deps.journals) return;
    const status = res.statusCode;
    // a caller whose credentials did not hold is not journaled: anyone could fill the journal otherwise
    if (status === 401) return;
    this.deps.metrics?.journalEntry(spec.name, classId, method.name, status, code);
    const answeredAt = performance.now();
    this.deps.journals
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
        () => this.deps.metrics?.journalAppended(spec.name, (performance.now() - answeredAt) / 1000),
        (err: unknown) => {
          this.deps.metrics?.journalAppended(spec.name, undefined);
          this.deps.logger.warn({ err, journal: spec.name, classId, method: method.name }, 'journal entry not written');
        },
      );
  }

  async callFrom(
    req: Request,
    res: Response,
    target: { classId: string; method: string; instanceId?: string },
  ): Promise<void> {
    const cls = this.deps.registry.get(target.classId);
    const method = cls?.methodsByName.get(target.method);
    // what only the request log line reads is kept only when that line is written
    const logged = this.deps.logger.isLevelEnabled('info');
    let claim: IdempotencyClaim | undefined;
    // recorded once the call is answered (labels: the registry's class and method, never the request's)
    const started = this.deps.metrics && performance.now();
    const journaled =
      method?.options.journal && this.deps.journals
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
      const identifying = this.deps.identities.identifyNow(req.headers);
      const identity = identifying instanceof Promise ? await identifying : identifying;
      if (logged) res.locals.identity = identity;
      if (journaled) journaled.identity = identity;
      // an Idempotency-Key on a POST (or another verb of a route alias): a repeat replays the first answer
      // not for anonymous callers: they would share one key scope, and public answers (sign-in tokens) must not be kept
      // begin answers undefined without the header or a replay window: not asked then (a promise per call saved)
      const idem =
        method &&
        req.method !== 'GET' &&
        this.idempotency &&
        identity.type !== 'anonymous' &&
        (req.headers[IDEMPOTENCY_HEADER] !== undefined || method.replayWindowSeconds)
          ? await this.idempotency.begin(
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
        // a GET's input is its query, coerced to the method's schema and then checked as a POST body is
        req.method !== 'GET' ? req.body : req.url.indexOf('?') === -1 ? {} : queryInput(req.query, method?.validate),
        identity,
        res.locals.requestId as string,
        req,
        this.peerIsCaller,
      );
      const result = await this.deps.dispatcher.call(call);
      await claim?.settle(result);
      if (journaled) journaled.answer = result.body;
      send(res, result);
    } catch (err) {
      // a logger for this request only when there is something to log
      const log = this.deps.logger.child({ requestId: res.locals.requestId as string | undefined });
      busy = err instanceof ActorError && err.code === RuntimeCodes.INSTANCE_BUSY.code;
      const out = shapeError(method?.options.errorShape, this.shared.redisFailure(err, target.classId), log);
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
      if (started !== undefined) this.deps.metrics!.observe(cls?.id, method, res.statusCode, started, busy);
      if (journaled)
        this.journal(
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
  }
}
