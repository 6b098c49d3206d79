/**
 * The notification benchmark's SMTP server (bench/notify.bench.ts), in its own
 * process so it does not share the service's event loop: an `smtp-server` on
 * 127.0.0.1:SMTP_PORT that accepts every message and counts it by Message-ID
 * and by envelope recipient, and a small HTTP endpoint on HTTP_PORT:
 *
 *   GET  /ready   200 once listening
 *   GET  /stats   {accepted, ids, recipients, duplicateIds, firstAt, lastAt} since the last reset
 *                 (ids: distinct Message-IDs; recipients: distinct RCPT TO addresses;
 *                 firstAt/lastAt: epoch ms of the first and last accepted message)
 *   POST /reset   forgets everything counted
 *
 * Only the header part of each message is read (the Message-ID line); the
 * body is drained, not parsed, so the server costs as little CPU as it can.
 */
import * as http from 'node:http';
import { SMTPServer } from 'smtp-server';

const SMTP_PORT = Number(process.env.SMTP_PORT);
const HTTP_PORT = Number(process.env.HTTP_PORT);

let ids = new Map<string, number>();
let recipients = new Set<string>();
let accepted = 0;
let firstAt = 0;
let lastAt = 0;

const MESSAGE_ID = /^message-id:[ \t]*(<[^>\r\n]*>)/im;

const server = new SMTPServer({
  logger: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  closeTimeout: 500,
  // the service pools its connections: no per-connection limit to hit
  maxClients: 1000,
  onData(stream, session, callback) {
    let head = '';
    let headDone = false;
    stream.on('data', (chunk: Buffer) => {
      if (headDone) return;
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end >= 0) {
        head = head.slice(0, end);
        headDone = true;
      }
    });
    stream.on('end', () => {
      const id = MESSAGE_ID.exec(head)?.[1] ?? '';
      accepted += 1;
      lastAt = Date.now();
      if (!firstAt) firstAt = lastAt;
      ids.set(id, (ids.get(id) ?? 0) + 1);
      for (const r of session.envelope.rcptTo) recipients.add(r.address.toLowerCase());
      callback(null, 'queued');
    });
  },
});

function stats() {
  let duplicateIds = 0;
  for (const n of ids.values()) if (n > 1) duplicateIds += n - 1;
  return { accepted, ids: ids.size, recipients: recipients.size, duplicateIds, firstAt, lastAt };
}

const api = http.createServer((req, res) => {
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'GET' && req.url === '/ready') return answer(200, { ok: true });
  if (req.method === 'GET' && req.url === '/stats') return answer(200, stats());
  if (req.method === 'POST' && req.url === '/reset') {
    ids = new Map();
    recipients = new Set();
    accepted = 0;
    firstAt = 0;
    lastAt = 0;
    return answer(200, stats());
  }
  answer(404, { error: 'not found' });
});

server.listen(SMTP_PORT, '127.0.0.1', () => {
  api.listen(HTTP_PORT, '127.0.0.1');
});
server.server.once('error', (err: Error) => {
  process.stderr.write(`smtp-counter: ${err.message}\n`);
  process.exit(1);
});
process.on('SIGTERM', () => {
  api.close();
  server.close(() => process.exit(0));
});
