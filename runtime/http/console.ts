/**
 * The operator console, `/admin/queues` (Bull Board's express adapter: a kept
 * library rather than pages of our own) and `/admin/dead-letters`.
 *
 * Queues: every BullMQ queue of the runtime: each bucket's QUEUED_WRITE and
 * delayed-task queue (`jobs`, or `b<n>.jobs` with several buckets) and the
 * mail and SMS delivery queue (`msg-<project>`), with Bull Board's list,
 * retry, remove (clean) and promote. A failed QUEUED_WRITE retried here is
 * made runnable first (JobQueue.reopenFailed), as `cli retry` does; without
 * it the job would find its failure stored and fail again at once.
 *
 * Dead letters: committed effects and messages given up on are listed at
 * `/admin/dead-letters` (JSON, or a page with a retry button per letter for a
 * browser) and retried with `POST /admin/dead-letters/<id>/retry` or
 * `POST /admin/dead-letters/retry-all`; the queue page links there.
 *
 * Who may open it: a program-management user whose stored user is a
 * developer (the identity source's developer flag), or whose user id
 * CONSOLE_USERS names. Credentials: the user's access token, as
 * `Authorization: Bearer <token>` (scripts) or as the password of HTTP Basic
 * authentication (a browser asks for it; the user name is not read), so no
 * sign-in page or cookie of our own is needed and nothing opens without
 * credentials. A token limited to some methods does not open it. With
 * CONSOLE_READ_ONLY every queue is read-only (Bull Board refuses its
 * actions) and every change here answers 405.
 *
 * A browser sends Basic credentials with any request to the origin, so a
 * change (any method but GET and HEAD) from another site is refused: its
 * `Sec-Fetch-Site` or `Origin` must be this origin's. Every change is logged
 * with the operator's user id.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Job, Queue } from 'bullmq';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Identity } from '../types/identity';
import { ActorError } from '../errors';
import type { MessageDelivery } from '../mail/delivery';
import { escapeHtml } from '../mail/dev-page';
import { maskAddress, maskPhone } from '../mail/message';
import { maskedFields, maskFields } from '../masking';
import { DeadLetterNotFound, type DeadLetters, type DeadLetterRow } from '../queue/dead-letters';
import type { JobQueue } from '../queue/job-queue';

export const CONSOLE_PATH = '/admin';
export const QUEUES_PATH = `${CONSOLE_PATH}/queues`;
export const DEAD_LETTERS_PATH = `${CONSOLE_PATH}/dead-letters`;

export interface ConsoleOptions {
  jobs: JobQueue;
  messages: MessageDelivery;
  deadLetters: DeadLetters;
  /** who the caller is (the runtime's identity resolver) */
  identify: (headers: Record<string, string | string[] | undefined>) => Promise<Identity>;
  /** CONSOLE_USERS: program-management user ids that may open the console besides developers */
  users: readonly string[];
  /** CONSOLE_READ_ONLY: look, never change */
  readOnly: boolean;
  /** a class's sensitiveFields (masked in the job data and answers the console shows, as `cli inspect` masks them) */
  sensitiveFields?: (classId: string) => readonly string[] | undefined;
  logger: Logger;
}

/** Pure: may this identity open the console? */
export function mayOpenConsole(identity: Identity, users: readonly string[]): boolean {
  if (identity.type !== 'program_management_user' || !identity.userId) return false;
  // a token issued for a few methods (a sign-in step) is no session of the user's
  if (identity.methods) return false;
  return identity.claims?.developer === true || users.includes(identity.userId);
}

/** Pure: the bearer token of an `Authorization` header, Bearer or the password of Basic; undefined when it has none. */
export function consoleToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const [scheme, value] = authorization.trim().split(/\s+/, 2);
  if (!value) return undefined;
  if (/^bearer$/i.test(scheme)) return value;
  if (!/^basic$/i.test(scheme)) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = colon >= 0 ? decoded.slice(colon + 1) : '';
  return password || undefined;
}

/** Pure: is a change request from another site (CSRF: a browser sends Basic credentials along)? */
export function crossSite(
  headers: Record<string, string | string[] | undefined>,
  host: string | undefined,
  protocol: string,
): boolean {
  // a browser that says where the request comes from is believed (its Origin may be `null` under a strict referrer policy)
  const site = headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== '') return site !== 'same-origin' && site !== 'none';
  const origin = headers.origin;
  if (typeof origin !== 'string' || origin === '') return false;
  return origin !== `${protocol}://${host}`;
}

const REALM = 'Basic realm="operator console", charset="UTF-8"';

/**
 * Bull Board actions the console refuses: adding a job (a QUEUED_WRITE must be
 * registered in its instance's FIFO with its add, which only the runtime does),
 * editing a job's data (shown masked: an edit would write the masks back),
 * emptying a queue (its waiting jobs are committed mails and calls: gone
 * without a trace or a dead letter) and obliterating one.
 */
export const UNSAFE_BOARD_ACTION = /^\/api\/queues\/[^/]+\/(add|empty|obliterate|[^/]+\/update-data)$/;

/** Bull Board's adapter for the runtime's job queues: a failed QUEUED_WRITE is reopened before BullMQ retries it. */
class RuntimeJobsAdapter extends BullMQAdapter {
  constructor(
    queue: Queue,
    private readonly reopen: (job: Job) => Promise<void>,
    options: ConstructorParameters<typeof BullMQAdapter>[1],
  ) {
    super(queue, options);
  }

  private withReopen<T>(job: T): T {
    if (!job) return job;
    const j = job as unknown as Job;
    const retry = j.retry.bind(j);
    j.retry = async (state?: 'completed' | 'failed', opts?: Parameters<Job['retry']>[1]) => {
      if (state !== 'completed') await this.reopen(j);
      return retry(state, opts);
    };
    return job;
  }

  override async getJob(id: string) {
    return this.withReopen(await super.getJob(id));
  }

  override async getJobs(...args: Parameters<BullMQAdapter['getJobs']>) {
    return (await super.getJobs(...args)).map((job) => this.withReopen(job));
  }
}

/**
 * What the console shows of a QUEUED_WRITE or delayed task's data: the body
 * with its class's sensitive fields (and the logger's secret fields) masked.
 */
export function jobDataForConsole(
  data: unknown,
  sensitiveFields: (classId: string) => readonly string[] | undefined = () => undefined,
): unknown {
  const d = data as { kind?: string; classId?: string; task?: { classId?: string } } | null;
  const classId = d?.kind === 'task' ? d.task?.classId : d?.classId;
  return maskFields(data, maskedFields(classId ? (sensitiveFields(classId) ?? []) : []));
}

/**
 * What the console shows of a message job: who it goes to (masked as in the
 * log), its subject and sizes, never its text (one-time codes, invitation links).
 */
export function messageDataForConsole(data: unknown): unknown {
  const d = data as { port?: string; message?: Record<string, unknown>; from?: unknown; requeued?: boolean } | null;
  const m = d?.message ?? {};
  const list = (v: unknown, mask: (s: string) => string) =>
    Array.isArray(v) ? v.map((x) => mask(String(x))) : undefined;
  const mask = d?.port === 'sms' ? maskPhone : maskAddress;
  return {
    port: d?.port,
    id: m.id,
    to: list(m.to, mask),
    ...(m.cc ? { cc: list(m.cc, maskAddress) } : {}),
    ...(m.bcc ? { bcc: list(m.bcc, maskAddress) } : {}),
    ...(typeof m.subject === 'string' ? { subject: m.subject } : {}),
    ...(typeof m.html === 'string' ? { htmlChars: m.html.length } : {}),
    ...(typeof m.text === 'string' ? { textChars: m.text.length } : {}),
    from: d?.from,
    ...(d?.requeued ? { requeued: true } : {}),
  };
}

export function operatorConsole(opts: ConsoleOptions): express.Router {
  const router = express.Router();

  const guard = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.setHeader('cache-control', 'no-store');
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('referrer-policy', 'same-origin');
    res.setHeader('x-content-type-options', 'nosniff');
    const token = consoleToken(req.headers.authorization);
    let identity: Identity | undefined;
    if (token) {
      try {
        identity = await opts.identify({ authorization: `Bearer ${token}` });
      } catch (err) {
        if (!(err instanceof ActorError) || err.status >= 500) return next(err);
      }
    }
    if (!identity || identity.type === 'anonymous') {
      res.setHeader('www-authenticate', REALM);
      res.status(401).json({
        message:
          "The operator console needs a developer's access token (Bearer, or the password of Basic authentication)",
      });
      return;
    }
    if (!mayOpenConsole(identity, opts.users)) {
      res
        .status(403)
        .json({ message: 'Only developers and the users CONSOLE_USERS names may open the operator console' });
      return;
    }
    res.locals.identity = identity;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (crossSite(req.headers, req.get('host'), req.protocol)) {
        res.status(403).json({ message: 'A change from another site is refused' });
        return;
      }
      if (opts.readOnly) {
        res.status(405).json({ message: 'The operator console is read-only (CONSOLE_READ_ONLY)' });
        return;
      }
      opts.logger.info(
        { operator: identity.userId, method: req.method, path: req.originalUrl },
        'operator console change',
      );
    }
    next();
  };

  const board = new ExpressAdapter();
  board.setBasePath(QUEUES_PATH);
  const several = opts.jobs.queues.length > 1;
  const queueOptions = { readOnlyMode: opts.readOnly, allowCompletedRetries: false };
  const jobQueues = opts.jobs.queues.map((q, b) => {
    const adapter = new RuntimeJobsAdapter(q as Queue, (job) => opts.jobs.reopenFailed(job), {
      ...queueOptions,
      ...(several ? { prefix: `b${b}.` } : {}),
      description: `QUEUED_WRITE calls and delayed tasks${several ? ` of bucket ${b}` : ''}`,
    });
    adapter.setFormatter('data', (data) => jobDataForConsole(data, opts.sensitiveFields));
    adapter.setFormatter('returnValue', (value) => maskFields(value, maskedFields()));
    return adapter;
  });
  const messageQueue = new BullMQAdapter(opts.messages.queue as Queue, {
    ...queueOptions,
    description: 'mail and SMS delivery',
  });
  messageQueue.setFormatter('data', messageDataForConsole);
  createBullBoard({
    queues: [...jobQueues, messageQueue],
    // the express adapter carries its own copy of the api package: the same shape, another declaration
    serverAdapter: board,
    options: {
      uiConfig: {
        boardTitle: 'Operator console',
        hideDocsLink: true,
        miscLinks: [{ text: 'Dead letters', url: DEAD_LETTERS_PATH }],
      },
    },
  });
  // Bull Board's page: its own scripts and styles only (its web font is not fetched from a CDN)
  const boardCsp =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";
  router.use(
    '/queues',
    guard,
    (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' && UNSAFE_BOARD_ACTION.test(req.path)) {
        res.status(405).json({
          message:
            "Not from the console: a job is added only by its call, with its place in its instance's order; its data is shown masked; a queue is never emptied or wiped out",
        });
        return;
      }
      res.setHeader('content-security-policy', boardCsp);
      next();
    },
    board.getRouter() as express.Router,
  );

  const json = express.json({ limit: '16kb' });
  const wantsHtml = (req: Request) => req.accepts(['json', 'html']) === 'html';
  router.get('/dead-letters', guard, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const limit = Math.min(1000, Math.max(1, Number(req.query.limit) || 100));
      const rows = await opts.deadLetters.list(limit);
      if (!wantsHtml(req)) {
        res.json({ deadLetters: rows });
        return;
      }
      res.setHeader(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      res
        .type('html')
        .send(
          deadLettersPage(rows, opts.readOnly, typeof req.query.retried === 'string' ? req.query.retried : undefined),
        );
    } catch (err) {
      next(err);
    }
  });
  router.post('/dead-letters/retry-all', guard, json, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const out = await opts.deadLetters.retryAll();
      if (req.is('application/x-www-form-urlencoded'))
        return res.redirect(303, `${DEAD_LETTERS_PATH}?retried=${out.retried.length}`);
      res.json(out);
    } catch (err) {
      next(err);
    }
  });
  router.post('/dead-letters/:id/retry', guard, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const out = await opts.deadLetters.retry(String(req.params.id));
      if (req.is('application/x-www-form-urlencoded')) return res.redirect(303, `${DEAD_LETTERS_PATH}?retried=1`);
      res.json(out);
    } catch (err) {
      if (err instanceof DeadLetterNotFound) {
        res.status(404).json({ message: err.message });
        return;
      }
      next(err);
    }
  });
  return router;
}

function deadLettersPage(rows: DeadLetterRow[], readOnly: boolean, retried: string | undefined): string {
  const button = (id: string) =>
    readOnly
      ? ''
      : `<form method="post" action="${escapeHtml(`${DEAD_LETTERS_PATH}/${encodeURIComponent(id)}/retry`)}"><button type="submit">Retry</button></form>`;
  const body = rows
    .map(
      (r) =>
        `<tr data-id="${escapeHtml(r.id)}"><td>${escapeHtml(r.time)}</td><td>${r.kind}</td><td>${escapeHtml(r.target)}${r.subject ? `<br><small>${escapeHtml(r.subject)}</small>` : ''}</td>` +
        `<td>${escapeHtml(r.from?.classId ? `${r.from.classId}/${r.from.instanceId ?? ''}` : '')}</td><td><code>${escapeHtml(r.reason)}</code></td><td>${button(r.id)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dead letters</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.3em .8em;text-align:left;vertical-align:top}code{white-space:pre-wrap;word-break:break-all}</style>
</head><body>
<h1>Dead letters</h1>
<p><a href="${QUEUES_PATH}">Queues</a>. Committed effects and messages the runtime gave up on, newest first.${retried ? ` Retried: ${escapeHtml(retried)}.` : ''}</p>
${readOnly || !rows.length ? '' : `<form method="post" action="${DEAD_LETTERS_PATH}/retry-all"><button type="submit">Retry all</button></form>`}
<table><thead><tr><th>Time</th><th>Kind</th><th>Target</th><th>From</th><th>Reason</th><th></th></tr></thead>
<tbody>
${body || '<tr><td colspan="6">No dead letters.</td></tr>'}
</tbody></table>
</body></html>
`;
}
