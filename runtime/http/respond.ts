/**
 * Writing answers: a call's result, an error (shaped by the method's own
 * envelope when it has one), and the error code an answer carries (for
 * journals).
 */
import type { Response, Request } from 'express';
import type { Logger } from 'pino';
import { ActorError, RuntimeCodes, runtimeError } from '../errors';
import { asRedisUnavailable } from '../redis/client';
import type { CallResult } from '../types/calls';

/** the error code in an error answer's body: `code`, or `error.code` in an envelope of a method's own */
export function errorCodeIn(body: unknown): string | number | undefined {
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

export function send(res: Response, result: CallResult): void {
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
export function shapeError(shape: ((err: ActorError) => ActorError) | undefined, err: unknown, log: Logger): unknown {
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

export function sendError(res: Response, err: unknown, log: Logger): void {
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

/** A Redis that did not answer is 503 REDIS_UNAVAILABLE, not an internal error; `health` is told of every failure. */
export function redisFailureMapper(
  health: { failed(err: unknown): boolean } | undefined,
): (err: unknown, classId?: string) => unknown {
  return (err, classId) => {
    health?.failed(err);
    const mapped = asRedisUnavailable(err);
    if (mapped && classId) mapped.classId = classId;
    return mapped ?? err;
  };
}

/** An error answer as its ActorError's body. */
export function sendActorError(res: Response, err: ActorError): void {
  res.status(err.status).json(err.toBody());
}
