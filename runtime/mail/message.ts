/**
 * Mail and SMS messages as handlers hand them to `ctx.mail.send` and
 * `ctx.sms.send`: checked while the change can still be refused (a bad message
 * is the call's 400, not a dead letter later), then committed with the change
 * as an outbound effect whose id is chosen up front.
 *
 * Pure: no I/O.
 */
import { runtimeError } from '../errors';
import type { MailMessage, SmsMessage } from '../types/mail';
import type { FieldError } from '../types/methods';

/** The ports a committed message goes to. */
export type OutboundPort = 'mail' | 'sms';

/** A mail with the id it was given when the handler sent it. */
export interface OutboundMail extends MailMessage {
  id: string;
}

/** An SMS with the id it was given when the handler sent it. */
export interface OutboundSms extends SmsMessage {
  id: string;
}

/** Recipients of one mail, to + cc + bcc (an SMTP server commonly takes 100 RCPT per message). */
export const MAX_MAIL_RECIPIENTS = 100;
/** Recipients of one SMS. */
export const MAX_SMS_RECIPIENTS = 100;
/** html and text each: the message travels in the commit's outbox entry and the queue. */
export const MAX_BODY_CHARS = 512 * 1024;
export const MAX_SUBJECT_CHARS = 998;
export const MAX_SMS_CHARS = 1600;

/** ids the runtime gives messages: file names and queue job ids are made from them, so they are checked wherever they are read back */
export const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// a plain address: local@domain, no spaces, brackets, quotes or separators (display names only in `from`/`replyTo`)
const ADDRESS = /^[^\s@<>()[\]\\,;:"]{1,64}@[^\s@<>()[\]\\,;:"]{1,253}$/;
const NAMED_ADDRESS = /^([^<>\r\n"]{0,100}|"[^"\r\n]{0,100}")\s*<([^<>\s]+)>$/;
const PHONE = /^\+?[0-9]{6,15}$/;

/** `<id@projectId>`: the Message-ID header of mail `id` (project ids are lowercase letters, digits and '-'). */
export function messageIdHeader(id: string, projectId: string): string {
  return `<${id}@${projectId}>`;
}

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 254 && ADDRESS.test(value);
}

/** A plain address or `Name <address>` (senders and reply-to addresses). */
export function isSender(value: unknown): value is string {
  if (isAddress(value)) return true;
  if (typeof value !== 'string' || value.length > 400) return false;
  const m = NAMED_ADDRESS.exec(value.trim());
  return m !== null && isAddress(m[2]);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkList(
  errors: FieldError[],
  field: string,
  value: unknown,
  required: boolean,
  valid: (v: unknown) => boolean,
  what: string,
): string[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value)) {
    errors.push({ field, reason: `must be an array of ${what}${what.endsWith('s') ? 'es' : 's'}` });
    return [];
  }
  if (required && value.length === 0) errors.push({ field, reason: `must name at least one ${what}` });
  value.forEach((v, i) => {
    if (!valid(v)) errors.push({ field: `${field}[${i}]`, reason: `is not a valid ${what}` });
  });
  return value as string[];
}

function checkText(errors: FieldError[], field: string, value: unknown, max: number, singleLine = false): void {
  if (value === undefined) return;
  if (typeof value !== 'string') errors.push({ field, reason: 'must be a string' });
  else if (value.length > max) errors.push({ field, reason: `must be at most ${max} characters` });
  else if (singleLine && /[\r\n]/.test(value)) errors.push({ field, reason: 'must be one line' });
}

function refuse(port: OutboundPort, errors: FieldError[]): never {
  const summary = errors.map((e) => `${e.field} ${e.reason}`).join('; ');
  throw runtimeError('VALIDATION', `Invalid ${port === 'mail' ? 'mail' : 'SMS'} message: ${summary}`, { errors });
}

const MAIL_FIELDS = new Set(['to', 'cc', 'bcc', 'from', 'replyTo', 'subject', 'html', 'text']);

/** The mail as it will be committed (only its known fields), or a 400 VALIDATION naming each bad field (`mail.to[0]`, ...). */
export function checkMail(message: unknown): MailMessage {
  const errors: FieldError[] = [];
  if (!isObject(message)) refuse('mail', [{ field: 'mail', reason: 'must be an object' }]);
  for (const key of Object.keys(message))
    if (!MAIL_FIELDS.has(key)) errors.push({ field: `mail.${key}`, reason: 'is not a mail field' });
  const to = checkList(errors, 'mail.to', message.to, true, isAddress, 'mail address');
  const cc = checkList(errors, 'mail.cc', message.cc, false, isAddress, 'mail address');
  const bcc = checkList(errors, 'mail.bcc', message.bcc, false, isAddress, 'mail address');
  if (to.length + cc.length + bcc.length > MAX_MAIL_RECIPIENTS) {
    errors.push({
      field: 'mail.to',
      reason: `to, cc and bcc together must name at most ${MAX_MAIL_RECIPIENTS} recipients`,
    });
  }
  if (message.from !== undefined && !isSender(message.from))
    errors.push({ field: 'mail.from', reason: 'is not a valid mail address' });
  if (message.replyTo !== undefined && !isSender(message.replyTo))
    errors.push({ field: 'mail.replyTo', reason: 'is not a valid mail address' });
  if (typeof message.subject !== 'string') errors.push({ field: 'mail.subject', reason: 'must be a string' });
  else checkText(errors, 'mail.subject', message.subject, MAX_SUBJECT_CHARS, true);
  checkText(errors, 'mail.html', message.html, MAX_BODY_CHARS);
  checkText(errors, 'mail.text', message.text, MAX_BODY_CHARS);
  if (message.html === undefined && message.text === undefined)
    errors.push({ field: 'mail.html', reason: 'html or text is required' });
  if (errors.length) refuse('mail', errors);
  const out: MailMessage = { to: [...to], subject: message.subject as string };
  if (message.cc !== undefined) out.cc = [...cc];
  if (message.bcc !== undefined) out.bcc = [...bcc];
  for (const k of ['from', 'replyTo', 'html', 'text'] as const)
    if (message[k] !== undefined) out[k] = message[k] as string;
  return out;
}

/** The SMS as it will be committed, or a 400 VALIDATION (`sms.to[0]`, `sms.text`). */
export function checkSms(message: unknown): SmsMessage {
  const errors: FieldError[] = [];
  if (!isObject(message)) refuse('sms', [{ field: 'sms', reason: 'must be an object' }]);
  for (const key of Object.keys(message))
    if (key !== 'to' && key !== 'text') errors.push({ field: `sms.${key}`, reason: 'is not an SMS field' });
  const to = checkList(
    errors,
    'sms.to',
    message.to,
    true,
    (v) => typeof v === 'string' && PHONE.test(v),
    'phone number',
  );
  if (to.length > MAX_SMS_RECIPIENTS)
    errors.push({ field: 'sms.to', reason: `must name at most ${MAX_SMS_RECIPIENTS} phone numbers` });
  if (typeof message.text !== 'string' || message.text.length === 0)
    errors.push({ field: 'sms.text', reason: 'must be a non-empty string' });
  else checkText(errors, 'sms.text', message.text, MAX_SMS_CHARS);
  if (errors.length) refuse('sms', errors);
  return { to: [...to], text: message.text as string };
}

/** `+4479001234567` → `**********567`: logs show the last 3 digits of a phone number only. */
export function maskPhone(phone: string): string {
  return phone.length <= 3 ? '*'.repeat(phone.length) : '*'.repeat(phone.length - 3) + phone.slice(-3);
}

/** `anna.b@example.com` → `a***@example.com`: logs name the domain and first letter of a mail address only. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}
