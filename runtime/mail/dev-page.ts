/**
 * `/dev/mail`: what the service sent, for a newcomer running `npm start`
 * without SMTP_URL. Mounted only while the embedded mail adapter is in use
 * (with SMTP_URL set these paths answer 404 like any unknown route). Lists the
 * last 50 mails (time, recipients, subject) with a link to each `.eml` shown
 * as plain text. Everything a mail carries is escaped; the page allows no
 * script.
 */
import express, { type Request, type Response } from 'express';
import type { EmbeddedMailTransport, StoredMailEntry } from './eml-transport';

export const DEV_MAIL_LIMIT = 50;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function row(e: StoredMailEntry): string {
  const to = [...e.to, ...(e.cc ?? []).map((a) => `cc ${a}`), ...(e.bcc ?? []).map((a) => `bcc ${a}`)].join(', ');
  const href = `/dev/mail/${encodeURIComponent(e.id)}`;
  return `<tr><td>${escapeHtml(e.time)}</td><td>${escapeHtml(to)}</td><td><a href="${escapeHtml(href)}">${escapeHtml(e.subject || '(no subject)')}</a></td></tr>`;
}

export function renderMailList(entries: StoredMailEntry[], dir: string): string {
  const rows = entries.map(row).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mail sent by the service</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.3em .8em;text-align:left;vertical-align:top}</style>
</head><body>
<h1>Mail sent by the service</h1>
<p>The last ${DEV_MAIL_LIMIT} mails written to <code>${escapeHtml(dir)}</code> (SMTP_URL is unset). Newest first.</p>
<table><thead><tr><th>Time</th><th>To</th><th>Subject</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="3">No mail yet.</td></tr>'}
</tbody></table>
</body></html>
`;
}

function secure(res: Response): void {
  res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'no-store');
}

export function devMailRouter(mailbox: EmbeddedMailTransport): express.Router {
  const router = express.Router();
  router.get('/', async (_req: Request, res: Response) => {
    secure(res);
    res.type('html').send(renderMailList(await mailbox.list(DEV_MAIL_LIMIT), mailbox.dir));
  });
  router.get('/:id', async (req: Request, res: Response) => {
    secure(res);
    const raw = await mailbox.read(String(req.params.id));
    if (!raw) {
      res.status(404).type('text').send('No such mail');
      return;
    }
    res.type('text/plain; charset=utf-8').send(raw);
  });
  return router;
}
