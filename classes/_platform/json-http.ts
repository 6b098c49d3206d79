/**
 * JSON over HTTP to an outside system (the HR system, the ID card system):
 * one request with its own time-out inside the caller's deadline, retried
 * with jittered exponential backoff while the system is unavailable (time-out,
 * network, 429, 5xx), never after a refusal or when the caller gave up. Each
 * port keeps its own error class: `fail` builds it from what went wrong.
 */

export type HttpFailureKind = 'timeout' | 'network' | 'http' | 'bad_response' | 'aborted';

/** what an outside system's failure is, whatever the port's error class */
export interface HttpFailure {
  kind: string;
  status?: number;
}

/** the system could not answer (worth trying again) rather than refused the request or answered nonsense */
export function unavailable(e: HttpFailure): boolean {
  return (
    e.kind === 'timeout' || e.kind === 'network' || (e.kind === 'http' && (e.status === 429 || (e.status ?? 0) >= 500))
  );
}

export interface JsonHttpSettings {
  /** the system as messages name it ("HR system") */
  system: string;
  timeoutMs: number;
  retries: number;
  retryBaseMs: number;
  /** sent as x-api-key; never in a message */
  apiKey?: string;
  /** an answer longer than this is refused unread (characters) */
  maxAnswerChars?: number;
  fetchImpl: typeof fetch;
}

export interface JsonRequest {
  method: 'GET' | 'POST';
  url: string;
  body?: unknown;
  /** non-2xx statuses answered as they are instead of failing (e.g. 404: none) */
  accept?: number[];
}

export interface JsonAnswer {
  status: number;
  body: unknown;
  attempts: number;
}

type Fail<E extends Error & HttpFailure> = (
  kind: HttpFailureKind,
  message: string,
  status?: number,
  attempts?: number,
) => E;

/** The error of an aborted caller signal: a deadline the caller set (AbortSignal.timeout) is a time-out. */
function abortedError<E extends Error & HttpFailure>(
  signal: AbortSignal | undefined,
  s: JsonHttpSettings,
  fail: Fail<E>,
): E {
  const reason = signal?.reason as { name?: string } | undefined;
  if (reason?.name === 'TimeoutError')
    return fail('timeout', `${s.system} did not answer within the caller's time budget`);
  return fail('aborted', 'the call was aborted');
}

function sleep<E extends Error & HttpFailure>(
  ms: number,
  signal: AbortSignal | undefined,
  s: JsonHttpSettings,
  fail: Fail<E>,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal, s, fail));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(abortedError(signal, s, fail));
      },
      { once: true },
    );
  });
}

/** The request, retried while the system is unavailable; throws the port's error with the attempts made. */
export async function requestJson<E extends Error & HttpFailure>(
  s: JsonHttpSettings,
  req: JsonRequest,
  signal: AbortSignal | undefined,
  fail: Fail<E>,
): Promise<JsonAnswer> {
  const attempts = s.retries + 1;
  let last: E | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      const base = s.retryBaseMs * 2 ** (attempt - 2);
      await sleep(base + Math.random() * base, signal, s, fail);
    }
    try {
      return { ...(await once(s, req, signal, fail)), attempts: attempt };
    } catch (err) {
      const e = err as Partial<HttpFailure> & Error;
      last = fail(
        (typeof e.kind === 'string' ? e.kind : 'network') as HttpFailureKind,
        String(e?.message ?? err),
        e.status,
        attempt,
      );
      // the caller's signal ended the call (aborted, or its deadline passed): no further attempt
      if (!unavailable(last) || signal?.aborted) throw last;
    }
  }
  throw last!;
}

async function once<E extends Error & HttpFailure>(
  s: JsonHttpSettings,
  req: JsonRequest,
  outer: AbortSignal | undefined,
  fail: Fail<E>,
): Promise<{ status: number; body: unknown }> {
  const timeout = AbortSignal.timeout(s.timeoutMs);
  const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
  const max = s.maxAnswerChars;
  let res: Response;
  let text: string;
  try {
    res = await s.fetchImpl(req.url, {
      method: req.method,
      headers: {
        ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
        accept: 'application/json',
        ...(s.apiKey ? { 'x-api-key': s.apiKey } : {}),
      },
      ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
      signal,
    });
    const length = Number(res.headers.get('content-length') ?? '0');
    if (max !== undefined && length > max) {
      await res.body?.cancel().catch(() => undefined);
      throw fail('bad_response', `${s.system} answered ${length} bytes, more than ${max} characters`, res.status);
    }
    text = await res.text();
  } catch (err) {
    if (err instanceof Error && (err as Partial<HttpFailure>).kind === 'bad_response') throw err;
    if (outer?.aborted) throw abortedError(outer, s, fail);
    if (timeout.aborted) throw fail('timeout', `${s.system} did not answer within ${s.timeoutMs} ms`);
    throw fail('network', `${s.system} unreachable: ${(err as Error).message}`);
  }
  if (!res.ok && !(req.accept ?? []).includes(res.status)) {
    throw fail('http', `${s.system} answered HTTP ${res.status}: ${text.slice(0, 200)}`, res.status);
  }
  if (max !== undefined && text.length > max)
    throw fail('bad_response', `${s.system} answered more than ${max} characters`, res.status);
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (res.ok) throw fail('bad_response', `${s.system} answered non-JSON: ${text.slice(0, 200)}`, res.status);
    }
  }
  return { status: res.status, body: parsed };
}
