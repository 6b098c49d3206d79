/**
 * The notification benchmark's baseline (bench/notify.bench.ts), in its own
 * process: the same fan-out with nothing of the runtime in it.
 *
 *   POST /run {n, tag, connections?}  sends, at once, and answers when both are done:
 *     - n mails through one pooled nodemailer transport with the service's
 *       SMTP options (runtime/mail/smtp-transport.ts: pool, `connections`
 *       connections, default 5 as there) and
 *       the service's message (runtime/mail/compose.ts), every sendMail handed
 *       to the pool at once (the pool's connections are the limit);
 *     - n inbox writes on Redis: GET of the inbox's JSON, the item appended,
 *       SET (ioredis with auto-pipelining, RUN_CONCURRENCY at a time).
 *     Answer: {mailSeconds, inboxSeconds, seconds} measured here.
 *   GET /ready  200 once Redis answers
 *
 * env: PORT, REDIS_URL, SMTP_URL, BASE_PREFIX, PROJECT_ID
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createTransport, type Transporter } from 'nodemailer';
import { sendMailOptions } from '../runtime/mail/compose';

const port = Number(process.env.PORT);
const redisUrl = process.env.REDIS_URL!;
const smtpUrl = process.env.SMTP_URL!;
const prefix = process.env.BASE_PREFIX || 'bench:notifybase:';
const projectId = process.env.PROJECT_ID || 'bench';
/** inbox writes in flight at once (the service's WORKER_CONCURRENCY is 16; this is a ceiling, not a copy) */
const RUN_CONCURRENCY = 64;

const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3, enableAutoPipelining: true });

function transport(connections: number): Transporter {
  // the service's options (smtp-transport.ts); SMTP_URL's query (?maxConnections=N) overrides them there as here
  return createTransport({
    url: smtpUrl,
    pool: true,
    maxConnections: connections,
    maxRequeues: 0,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
  });
}

async function mails(n: number, tag: string, connections: number): Promise<number> {
  const t = transport(connections);
  const t0 = performance.now();
  const html = `<p>Hello ${tag},</p><p>Your Membership Program account is ready. Sign in at <a href="https://bench.example/login">https://bench.example/login</a>.</p>`;
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      t.sendMail(
        sendMailOptions(
          { id: randomUUID(), to: [`bare${i}@bench.example`], subject: 'Welcome to the Membership Program', html },
          { projectId, defaultFrom: 'no-reply@bench.example' },
        ),
      ),
    ),
  );
  const s = (performance.now() - t0) / 1000;
  t.close();
  return s;
}

async function inboxes(n: number, tag: string): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const key = `${prefix}inbox:${next++}`;
      const raw = await redis.get(key);
      const inbox = raw ? (JSON.parse(raw) as { items: unknown[] }) : { items: [] };
      inbox.items.unshift({
        id: randomUUID(),
        templateId: 'MEMBER_WELCOME',
        subject: 'Welcome to the Membership Program',
        content: `Hello ${tag}, your account is ready.`,
        status: 'unread',
        createdAt: new Date().toISOString(),
      });
      await redis.set(key, JSON.stringify(inbox));
    }
  };
  await Promise.all(Array.from({ length: RUN_CONCURRENCY }, worker));
  return (performance.now() - t0) / 1000;
}

const server = http.createServer((req, res) => {
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'GET' && req.url === '/ready') {
    redis.ping().then(
      () => answer(200, { ok: true }),
      (err: Error) => answer(503, { error: err.message }),
    );
    return;
  }
  if (req.method === 'POST' && req.url === '/run') {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const run = async () => {
      try {
        const {
          n,
          tag,
          mail = true,
          inbox = true,
          connections = 5,
        } = JSON.parse(text) as { n: number; tag: string; mail?: boolean; inbox?: boolean; connections?: number };
        const t0 = performance.now();
        const [mailSeconds, inboxSeconds] = await Promise.all([
          mail ? mails(n, tag, connections) : 0,
          inbox ? inboxes(n, tag) : 0,
        ]);
        answer(200, { mailSeconds, inboxSeconds, seconds: (performance.now() - t0) / 1000 });
      } catch (err) {
        answer(500, { error: (err as Error).message });
      }
    };
    // run answers every outcome itself (its catch included): nothing is left for the emitter to await
    req.on('end', () => void run());
    return;
  }
  answer(404, { error: 'not found' });
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  redis.disconnect();
  process.exit(0);
});
