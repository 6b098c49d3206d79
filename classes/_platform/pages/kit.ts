/**
 * What the service's own pages share (the runtime serves them, runtime/http/pages.ts):
 * the layout, escaping, labelled form fields, an error block read out by screen
 * readers, the stylesheet and the one script, and the sentences an API error
 * becomes. Plain server-rendered HTML: no framework, nothing inline (the pages'
 * Content-Security-Policy allows only files of the service).
 *
 * Tokens in links. A mailed link keeps its token in the URL fragment
 * (`…/invitation#token=…`): browsers never send a fragment to a server, so the
 * token stays out of request logs, proxies and Referer headers. The server
 * cannot read it either, so `link.js` (served from here, `script-src 'self'`)
 * moves each fragment parameter into the form field marked
 * `data-fragment="<name>"`, hides that field's row, and drops the fragment from
 * the address bar and history. The form then posts the token in its body.
 * Without script the field stays visible, labelled, for the code the mail also
 * shows.
 */
import type { PageAnswer, PageAsset, PageCallResult } from '../../../runtime';

export const KIT_CSS_PATH = '/pages/kit/site.css';
export const KIT_SCRIPT_PATH = '/pages/kit/link.js';

const CSS = `*{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2330;background:#fff}
h1{font-size:1.5rem;margin:0 0 1rem}
a{color:#0b57d0}
form{margin:1.5rem 0}
.field{margin:0 0 1rem}
label{display:block;font-weight:600;margin:0 0 .25rem}
.hint{display:block;color:#4a5263;font-size:.875rem;margin:0 0 .25rem}
input{font:inherit;width:100%;padding:.5rem .625rem;border:1px solid #8a93a6;border-radius:4px}
input:focus{outline:3px solid #9cc0ff;outline-offset:1px}
button{font:inherit;padding:.5rem 1rem;border:0;border-radius:4px;background:#0b57d0;color:#fff;cursor:pointer}
button.link{background:none;color:#0b57d0;padding:0;text-decoration:underline}
.error{border-left:4px solid #b3261e;background:#fdecea;padding:.75rem 1rem;margin:0 0 1rem}
.error ul{margin:.25rem 0 0;padding-left:1.25rem}
.notice{border-left:4px solid #1e7d32;background:#e9f5ec;padding:.75rem 1rem;margin:0 0 1rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0}
footer{margin-top:2rem;font-size:.875rem;color:#4a5263}
`;

const SCRIPT = `'use strict';
// A mailed link keeps its token in the URL fragment, which no server ever receives: move each fragment parameter
// into the form field marked data-fragment="<name>", hide its row, and drop the fragment from the address bar.
// A form marked data-autosubmit is sent once filled (a sign-in handed over in the fragment).
(function () {
  var hash = window.location.hash.slice(1);
  if (!hash) return;
  var params = new URLSearchParams(hash);
  var filled = [];
  var inputs = document.querySelectorAll('input[data-fragment]');
  for (var i = 0; i < inputs.length; i++) {
    var value = params.get(inputs[i].getAttribute('data-fragment'));
    if (value === null || value === '') continue;
    inputs[i].value = value;
    if (inputs[i].form && filled.indexOf(inputs[i].form) === -1) filled.push(inputs[i].form);
    var row = inputs[i].closest('[data-hide-when-filled]');
    if (row) row.hidden = true;
  }
  if (!filled.length) return;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  for (var f = 0; f < filled.length; f++) {
    if (filled[f].hasAttribute('data-autosubmit')) return filled[f].submit();
  }
})();
`;

export const KIT_ASSETS: readonly PageAsset[] = Object.freeze([
  { path: KIT_CSS_PATH, contentType: 'text/css', body: CSS },
  { path: KIT_SCRIPT_PATH, contentType: 'text/javascript', body: SCRIPT },
]);

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** HTML already escaped (what the helpers below answer) */
export interface Html {
  readonly html: string;
}
export const raw = (html: string): Html => ({ html });
const text = (part: string | Html): string => (typeof part === 'string' ? escapeHtml(part) : part.html);
/** joins escaped strings and Html */
export const join = (...parts: (string | Html | false | undefined | null)[]): Html =>
  raw(
    parts
      .filter((p): p is string | Html => p !== false && p != null)
      .map(text)
      .join(''),
  );

export interface LayoutOptions {
  title: string;
  /** the page's content under its heading */
  body: Html;
  /** sentences shown above the content as an error (role=alert) */
  errors?: readonly string[];
  /** a sentence shown above the content as good news */
  notice?: string;
  /** the fragment script (a page whose link carries a token) */
  script?: boolean;
  /** the small print under the content */
  footer?: Html;
}

export function layout(o: LayoutOptions): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(o.title)}</title><link rel="stylesheet" href="${KIT_CSS_PATH}">${o.script ? `<script src="${KIT_SCRIPT_PATH}" defer></script>` : ''}</head>
<body><main><h1>${escapeHtml(o.title)}</h1>
${o.errors?.length ? errorBlock(o.errors).html : ''}${o.notice ? `<p class="notice" role="status">${escapeHtml(o.notice)}</p>` : ''}
${o.body.html}
</main>${o.footer ? `<footer>${o.footer.html}</footer>` : ''}</body></html>
`;
}

export function page(o: LayoutOptions & { status?: number }): PageAnswer {
  return { status: o.status ?? (o.errors?.length ? 400 : 200), html: layout(o) };
}

/** one sentence, or a lead and a list: announced at once (role=alert) */
export function errorBlock(messages: readonly string[]): Html {
  if (messages.length === 1) return raw(`<div class="error" role="alert"><p>${escapeHtml(messages[0])}</p></div>`);
  return raw(
    `<div class="error" role="alert"><p>${escapeHtml(messages[0])}</p><ul>${messages
      .slice(1)
      .map((m) => `<li>${escapeHtml(m)}</li>`)
      .join('')}</ul></div>`,
  );
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'hidden';
  /** the browser's autofill hint (`email`, `current-password`, `new-password`, `one-time-code`) */
  autocomplete?: string;
  value?: string;
  hint?: string;
  required?: boolean;
  /** filled from the link's fragment parameter of this name (link.js); its row hidden once filled */
  fromFragment?: string;
  inputmode?: 'numeric' | 'text' | 'email';
  autofocus?: boolean;
}

export function field(f: FieldOptions): Html {
  const id = `f-${f.name}`;
  const attrs = [
    `id="${id}"`,
    `name="${escapeHtml(f.name)}"`,
    `type="${f.type ?? 'text'}"`,
    f.autocomplete ? `autocomplete="${escapeHtml(f.autocomplete)}"` : '',
    f.value !== undefined ? `value="${escapeHtml(f.value)}"` : '',
    f.required === false ? '' : 'required',
    f.fromFragment ? `data-fragment="${escapeHtml(f.fromFragment)}"` : '',
    f.inputmode ? `inputmode="${f.inputmode}"` : '',
    f.hint ? `aria-describedby="${id}-hint"` : '',
    f.autofocus ? 'autofocus' : '',
    f.type === 'text' || f.type === undefined ? 'spellcheck="false" autocapitalize="off"' : '',
  ].filter(Boolean);
  if (f.type === 'hidden') return raw(`<input ${attrs.join(' ')}>`);
  const hint = f.hint ? `<span class="hint" id="${id}-hint">${escapeHtml(f.hint)}</span>` : '';
  return raw(
    `<div class="field"${f.fromFragment ? ' data-hide-when-filled' : ''}><label for="${id}">${escapeHtml(f.label)}</label>${hint}<input ${attrs.join(' ')}></div>`,
  );
}

/** a form posting to `action`; `autosubmit`: sent by link.js once the fragment filled it, and hidden until then */
export function form(
  action: string,
  fields: readonly Html[],
  submit: string,
  opts: { autosubmit?: boolean } = {},
): Html {
  return raw(
    `<form method="post" action="${escapeHtml(action)}"${opts.autosubmit ? ' data-autosubmit hidden' : ''}>${fields.map((f) => f.html).join('')}<button type="submit">${escapeHtml(submit)}</button></form>`,
  );
}

/** a button that posts to `action` (sign out, send a new code): a form of its own, no fields */
export function postButton(action: string, label: string): Html {
  return raw(
    `<form method="post" action="${escapeHtml(action)}"><button type="submit" class="link">${escapeHtml(label)}</button></form>`,
  );
}

export function link(href: string, label: string): Html {
  return raw(`<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`);
}

export function paragraph(...parts: (string | Html)[]): Html {
  return raw(`<p>${parts.map(text).join('')}</p>`);
}

/** minutes for a person: "1 minute", "5 minutes" */
function minutes(seconds: number): string {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return m === 1 ? '1 minute' : `${m} minutes`;
}

/** the field problems of a 400 as sentences: "The password must be at least 12 characters." */
export function fieldSentences(details: unknown, labels: Readonly<Record<string, string>>): string[] {
  const errors = (details as { errors?: { field?: string; reason?: string }[] } | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((e) => typeof e?.reason === 'string')
    .map((e) => {
      const label = (e.field && labels[e.field]) || 'The value';
      const reason = e.reason!.replace(/\.$/, '');
      return `${label} ${reason}.`;
    });
}

/**
 * An API error a page cannot do better with, in words: too many attempts (with
 * the wait), the service busy or failing (with the request id to quote).
 */
export function genericSentence(r: Extract<PageCallResult, { ok: false }>, requestId: string): string {
  if (r.status === 429) {
    const wait = (r.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
    return typeof wait === 'number'
      ? `Too many attempts. Wait ${minutes(wait)} and try again.`
      : 'Too many attempts. Wait a few minutes and try again.';
  }
  if (r.status === 503) return 'The service is busy right now. Try again in a moment.';
  if (r.status >= 500)
    return `Something went wrong on our side. Try again in a moment, or quote request ${requestId} when you ask for help.`;
  return r.message.endsWith('.') ? r.message : `${r.message}.`;
}

/** the error page of the pages' sites (an unknown page, a failed handler) */
export function errorPage(_status: number, message: string): string {
  return layout({ title: 'Something is not right', body: raw(''), errors: [message] });
}

/** a cookie value holding an id and a token (`<id>~<token>`), and back */
export function pair(id: string, token: string): string {
  return `${id}~${token}`;
}
export function unpair(value: string | undefined): { id: string; token: string } | null {
  if (!value) return null;
  const at = value.indexOf('~');
  if (at <= 0 || at === value.length - 1) return null;
  return { id: value.slice(0, at), token: value.slice(at + 1) };
}

/** seconds from now until an ISO time (a cookie's Max-Age for a token expiring then), at least 1 */
export function secondsUntil(iso: unknown, fallback: number): number {
  const t = typeof iso === 'string' ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? Math.max(1, Math.floor((t - Date.now()) / 1000)) : fallback;
}
