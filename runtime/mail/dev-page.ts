/**
 * `/dev/mail`: what the service sent, for a newcomer running `npm start`
 * without SMTP_URL. Mounted only while the embedded mail adapter is in use
 * (with SMTP_URL set these paths answer 404 like any unknown route). Lists the
 * last 50 mails (time, recipients, subject), each linked to its page
 * `/dev/mail/<id>`: the mail as a reader sees it, parsed with mailparser:
 * its headers, the text part, and the HTML part in a sandboxed iframe (no
 * `allow-scripts`, no `allow-same-origin`: a script in the mail never runs,
 * and the frame cannot reach this page). `/dev/mail/<id>.eml` is the file as
 * written, as plain text. Everything a mail carries is escaped; the pages
 * allow no script, and the frame inherits their policy (no remote images or
 * fonts: opening a mail tells nobody).
 */
import express, { type Request, type Response } from 'express';
import type { AddressObject } from 'mailparser';
import type { EmbeddedMailTransport, StoredMailEntry } from './eml-transport';

export const DEV_MAIL_LIMIT = 50;

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
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

/**
 * mailparser, loaded when a mail is first shown: it is a development
 * dependency (the production image has none, and never serves this page, as
 * production needs SMTP_URL), so the service must start without it.
 */
async function mailparser(): Promise<typeof import('mailparser') | undefined> {
  try {
    return await import('mailparser');
  } catch {
    return undefined;
  }
}

/** A mail's page: its headers, its text part and its HTML part in a sandboxed frame (the source as text without mailparser). */
export async function renderMail(id: string, raw: Buffer): Promise<string> {
  const parser = await mailparser();
  if (!parser) {
    return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Mail ${escapeHtml(id)}</title></head><body>
<p><a href="/dev/mail">All mail</a>. mailparser (a development dependency) is not installed: the mail's source as written.</p>
<pre>${escapeHtml(raw.toString('utf8'))}</pre></body></html>\n`;
  }
  const mail = await parser.simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  const addresses = (field: AddressObject | AddressObject[] | undefined) =>
    field ? (Array.isArray(field) ? field : [field]).map((a) => a.text).join(', ') : '';
  const headers: [string, string][] = [
    ['From', addresses(mail.from)],
    ['To', addresses(mail.to)],
    ['Cc', addresses(mail.cc)],
    ['Bcc', addresses(mail.bcc)],
    ['Reply-To', addresses(mail.replyTo)],
    ['Subject', mail.subject ?? ''],
    ['Date', mail.date ? mail.date.toISOString() : ''],
    ['Message-ID', mail.messageId ?? ''],
  ];
  const rows = headers
    .filter(([, v]) => v)
    .map(([k, v]) => `<tr><th>${k}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  const html =
    typeof mail.html === 'string'
      ? `<iframe class="html-part" title="HTML part" sandbox srcdoc="${escapeHtml(mail.html)}"></iframe>`
      : '<p class="none">No HTML part.</p>';
  const text =
    mail.text !== undefined
      ? `<pre class="text-part">${escapeHtml(mail.text)}</pre>`
      : '<p class="none">No text part.</p>';
  const attachments = mail.attachments.length
    ? `<p>Attachments: ${mail.attachments.map((a) => escapeHtml(`${a.filename ?? '(unnamed)'} (${a.contentType}, ${a.size} bytes)`)).join(', ')}</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(mail.subject || '(no subject)')}</title>
<style>body{font-family:sans-serif;margin:2em}th{text-align:left;padding-right:1em;vertical-align:top}
.parts{display:flex;gap:1.5em;align-items:stretch;margin-top:1em}.parts section{flex:1;min-width:0}
iframe{width:100%;height:36em;border:1px solid #ccc;background:#fff}pre{white-space:pre-wrap;border:1px solid #ccc;padding:1em;margin:0;height:34em;overflow:auto}</style>
</head><body>
<p><a href="/dev/mail">All mail</a> &middot; <a href="/dev/mail/${escapeHtml(encodeURIComponent(id))}.eml">Source (.eml)</a></p>
<h1>${escapeHtml(mail.subject || '(no subject)')}</h1>
<table class="headers">${rows}</table>
${attachments}
<div class="parts">
<section><h2>HTML</h2>${html}</section>
<section><h2>Text</h2>${text}</section>
</div>
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
  router.get('/:file', async (req: Request, res: Response) => {
    secure(res);
    const file = String(req.params.file);
    const source = file.endsWith('.eml');
    const id = source ? file.slice(0, -'.eml'.length) : file;
    const raw = await mailbox.read(id);
    if (!raw) {
      res.status(404).type('text').send('No such mail');
      return;
    }
    if (source) res.type('text/plain; charset=utf-8').send(raw);
    else res.type('html').send(await renderMail(id, raw));
  });
  return router;
}
