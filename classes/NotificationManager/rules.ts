/**
 * NotificationManager's rules, pure: recipients, what a send delivers per
 * channel (rendered with the platform's mustache templates,
 * classes/_platform/templates.ts), template and channel updates, the listing
 * and the streamed document.
 */
import { isMailAddress, type FieldError, type ListingSpec } from '../../runtime';
import type {
  ListNotificationTemplatesInput,
  UpdateNotificationTemplateInput,
} from '../../schemas/NotificationManager/inputs';
import { escapeRegex, problemsText, type FieldProblem } from '../_platform/paging';
import { checkParameters, checkTemplate, fieldsOf, renderTemplate, type TemplateMode } from '../_platform/templates';
import {
  CHANNELS,
  type ChannelName,
  type Channels,
  type Delivery,
  type ListTemplatesQuery,
  type NotificationTemplate,
  type PendingChange,
} from './types';
import { notificationError } from './errors';

export type { FieldProblem };

// ------------------------------------------------------------------ recipients

/** at most this many `to` entries per call (schema too): 10,000 members with email and inbox */
export const MAX_RECIPIENTS = 20_000;

const PHONE = /^\+[1-9][0-9]{5,14}$/;
const INBOX = /^(M|PM)[A-Za-z0-9_.+\-=]{1,190}$/;

export type RecipientKind = 'email' | 'phone' | 'inbox';

/**
 * What a `to` entry names: an email address (it has an @), a phone number
 * (+ and 6 to 15 digits, as the SMS port takes them) or a UserNotification inbox (M<member id>,
 * PM<program management user id>); undefined for anything else.
 */
export function recipientKind(entry: string): RecipientKind | undefined {
  // what the mail port sends to, with a dot in the domain
  if (entry.includes('@'))
    return isMailAddress(entry) && entry.slice(entry.indexOf('@') + 1).includes('.') ? 'email' : undefined;
  if (entry.startsWith('+')) return PHONE.test(entry) ? 'phone' : undefined;
  return INBOX.test(entry) ? 'inbox' : undefined;
}

export interface Recipients {
  emails: string[];
  phones: string[];
  inboxes: string[];
}

/** The call's `to`, sorted by kind and without repeats (emails compared case-insensitively); bad entries as problems. */
export function classifyRecipients(
  to: readonly string[],
  field = 'to',
): { recipients: Recipients; problems: FieldProblem[] } {
  const recipients: Recipients = { emails: [], phones: [], inboxes: [] };
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  to.forEach((entry, i) => {
    const kind = typeof entry === 'string' ? recipientKind(entry) : undefined;
    if (!kind) {
      problems.push({
        field: `${field}.${i}`,
        reason:
          'must be an email address, a phone number (+ and 6 to 15 digits) or an inbox id (M<userId>, PM<userId>)',
      });
      return;
    }
    const key = kind === 'email' ? `e:${entry.toLowerCase()}` : `${kind[0]}:${entry}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (kind === 'email') recipients.emails.push(entry);
    else if (kind === 'phone') recipients.phones.push(entry);
    else recipients.inboxes.push(entry);
  });
  return { recipients, problems };
}

/** The call's recipients followed by the template's defaults, without repeats (`lower`: compare case-insensitively). */
export function mergeRecipients(
  call: readonly string[],
  defaults: readonly string[] | undefined,
  lower: boolean,
): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const r of [...call, ...(defaults ?? [])]) {
    const key = lower ? r.toLowerCase() : r;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(r);
  }
  return out;
}

// ------------------------------------------------------------------ rendering

/** The texts of a channel that are rendered, with their field path and mode (html escapes values). */
export function channelTexts(
  channels: Channels,
  channel: ChannelName,
): { field: string; text: string; mode: TemplateMode }[] {
  switch (channel) {
    case 'email':
      return [
        { field: 'channels.email.subject', text: channels.email.subject, mode: 'text' },
        { field: 'channels.email.html', text: channels.email.html, mode: 'html' },
      ];
    case 'in_app':
      return [
        { field: 'channels.in_app.subject', text: channels.in_app.subject ?? '', mode: 'text' },
        { field: 'channels.in_app.content', text: channels.in_app.content, mode: 'text' },
      ];
    case 'sms':
      return [{ field: 'channels.sms.content', text: channels.sms.content, mode: 'text' }];
  }
}

export function enabledChannels(template: NotificationTemplate): ChannelName[] {
  return CHANNELS.filter((c) => template.channels[c]?.enabled === true);
}

/** Parameter names the enabled channels use, in order of first use. */
export function usedParameters(template: NotificationTemplate): string[] {
  return fieldsOf(enabledChannels(template).flatMap((c) => channelTexts(template.channels, c).map((t) => t.text)));
}

export type DeliveryPlan =
  | { ok: true; delivery: Delivery }
  | {
      ok: false;
      error: 'invalid_parameters' | 'missing_parameters' | 'invalid_recipients' | 'message_too_long';
      problems: FieldProblem[];
      missing?: string[];
    };

/** The mail and SMS ports' limits (runtime/mail/message.ts): a rendered message past them is the send's 400, not a failed delivery. */
export const MESSAGE_LIMITS = Object.freeze({ subject: 998, html: 512 * 1024, sms: 1600, inApp: 4000 });

/** A subject is one line: line breaks a parameter brought in become spaces. */
export function oneLine(text: string): string {
  return text.replace(/\r\n|[\r\n]/g, ' ');
}

function lengthProblems(d: Delivery): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const over = (field: string, text: string | undefined, max: number) => {
    if (text !== undefined && text.length > max)
      problems.push({ field, reason: `is ${text.length} characters once rendered; at most ${max}` });
  };
  over('channels.email.subject', d.email?.subject, MESSAGE_LIMITS.subject);
  over('channels.email.html', d.email?.html, MESSAGE_LIMITS.html);
  over('channels.in_app.subject', d.inApp?.item.subject, MESSAGE_LIMITS.subject);
  over('channels.in_app.content', d.inApp?.item.content, MESSAGE_LIMITS.inApp);
  over('channels.sms.content', d.sms?.text, MESSAGE_LIMITS.sms);
  if (d.sms && d.sms.text.length === 0)
    problems.push({ field: 'channels.sms.content', reason: 'is empty once rendered' });
  if (d.inApp && d.inApp.item.content.length === 0)
    problems.push({ field: 'channels.in_app.content', reason: 'is empty once rendered' });
  return problems;
}

/**
 * What one send of an active template delivers: each enabled channel rendered
 * with the parameters, to the call's recipients of its kind merged with the
 * channel's defaults (email `to`, SMS `to`; in-app has none). A channel
 * without recipients is left out. Refused: non-string parameters, parameters
 * an enabled channel uses but the call lacks (all named), bad `to` entries.
 */
export function planDelivery(
  template: NotificationTemplate,
  input: { to?: readonly string[]; parameters?: unknown },
): DeliveryPlan {
  const check = checkParameters(input.parameters, usedParameters(template));
  if (!check.ok) {
    return check.reason === 'missing'
      ? { ok: false, error: 'missing_parameters', missing: check.missing, problems: check.errors }
      : { ok: false, error: 'invalid_parameters', problems: check.errors };
  }
  const { recipients, problems } = classifyRecipients(input.to ?? []);
  if (problems.length) return { ok: false, error: 'invalid_recipients', problems };

  const p = check.parameters;
  const ch = template.channels;
  const delivery: Delivery = { templateId: template.templateId };
  if (ch.email.enabled) {
    const to = mergeRecipients(recipients.emails, ch.email.to, true);
    if (to.length)
      delivery.email = {
        to,
        subject: oneLine(renderTemplate(ch.email.subject, p, 'text')),
        html: renderTemplate(ch.email.html, p, 'html'),
      };
  }
  if (ch.in_app.enabled && recipients.inboxes.length) {
    const subject = oneLine(renderTemplate(ch.in_app.subject ?? '', p, 'text'));
    delivery.inApp = {
      inboxes: recipients.inboxes,
      item: {
        templateId: template.templateId,
        ...(subject ? { subject } : {}),
        content: renderTemplate(ch.in_app.content, p, 'text'),
        ...(ch.in_app.metadata ? { metadata: ch.in_app.metadata } : {}),
      },
    };
  }
  if (ch.sms.enabled) {
    const to = mergeRecipients(recipients.phones, ch.sms.to, false);
    if (to.length) delivery.sms = { to, text: renderTemplate(ch.sms.content, p, 'text') };
  }
  const tooLong = lengthProblems(delivery);
  if (tooLong.length) return { ok: false, error: 'message_too_long', problems: tooLong };
  return { ok: true, delivery };
}

/** How many messages a delivery sends (emails, inbox items, SMS). */
export function deliveryCounts(d: Delivery): { email: number; inApp: number; sms: number } {
  return { email: d.email?.to.length ?? 0, inApp: d.inApp?.inboxes.length ?? 0, sms: d.sms?.to.length ?? 0 };
}

// ------------------------------------------------------------------ updates

/**
 * The problems of a channel about to be saved: each text a valid template
 * (checkTemplate: it parses, no partials, no unescaped values in html), the
 * texts it sends not empty while it is enabled, default recipients of the
 * channel's kind.
 */
export function channelProblems(channels: Channels, channel: ChannelName): FieldProblem[] {
  const problems: FieldProblem[] = channelTexts(channels, channel).flatMap((t) =>
    checkTemplate(t.text, t.mode, t.field),
  );
  // an enabled channel has something to send
  const required: Record<ChannelName, { field: string; text: string | undefined }[]> = {
    email: [
      { field: 'channels.email.subject', text: channels.email.subject },
      { field: 'channels.email.html', text: channels.email.html },
    ],
    in_app: [{ field: 'channels.in_app.content', text: channels.in_app.content }],
    sms: [{ field: 'channels.sms.content', text: channels.sms.content }],
  };
  if (channels[channel].enabled)
    for (const r of required[channel])
      if (!r.text?.trim())
        problems.push({ field: r.field, reason: `must not be empty while the ${channel} channel is enabled` });
  if (channel === 'email')
    for (const [i, to] of channels.email.to.entries())
      if (recipientKind(to) !== 'email')
        problems.push({ field: `channels.email.to.${i}`, reason: 'must be an email address' });
  if (channel === 'sms')
    for (const [i, to] of (channels.sms.to ?? []).entries())
      if (recipientKind(to) !== 'phone')
        problems.push({ field: `channels.sms.to.${i}`, reason: 'must be a phone number (+ and 6 to 15 digits)' });
  return problems;
}

/** updateNotificationTemplate: title and description; null when it changes nothing. */
export function applyTemplateUpdate(
  t: NotificationTemplate,
  input: UpdateNotificationTemplateInput,
  now: string,
): NotificationTemplate | null {
  const next = {
    ...t,
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
  };
  if (next.title === t.title && next.description === t.description) return null;
  return { ...next, updatedAt: now };
}

/** The fields each channel has (spec 2.8). */
export const CHANNEL_FIELDS: Readonly<Record<ChannelName, readonly string[]>> = Object.freeze({
  email: ['enabled', 'to', 'subject', 'json', 'html'],
  in_app: ['enabled', 'subject', 'content', 'metadata'],
  sms: ['enabled', 'content', 'to'],
});

/**
 * updateNotificationChannel: the fields given replace the channel's (`metadata: null` removes the in-app
 * metadata); a field the channel does not have is a problem; `unchanged` when nothing differs.
 */
export function applyChannelUpdate(
  t: NotificationTemplate,
  channel: ChannelName,
  content: Record<string, unknown>,
  now: string,
): { ok: true; template: NotificationTemplate } | { ok: false; problems: FieldProblem[] } | { ok: 'unchanged' } {
  const allowed = CHANNEL_FIELDS[channel];
  const problems = Object.keys(content)
    .filter((k) => !allowed.includes(k))
    .map((k) => ({
      field: `content.${k}`,
      reason: `is not a field of the ${channel} channel (${allowed.join(', ')})`,
    }));
  if (problems.length) return { ok: false, problems };
  const current = t.channels[channel] as unknown as Record<string, unknown>;
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(content)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  if (JSON.stringify(next) === JSON.stringify(current)) return { ok: 'unchanged' };
  return { ok: true, template: { ...t, channels: { ...t.channels, [channel]: next }, updatedAt: now } };
}

// ------------------------------------------------------------------ listing

export const TEMPLATES_COLLECTION = 'notification_templates';
export const DEFAULT_PAGE_SIZE = 10;

/** The streamed document: the template, its enabled channels, a lower-cased search column, the approval it waits for. */
export function templateDocument(
  t: NotificationTemplate,
  pending: PendingChange | null | undefined,
): Record<string, unknown> {
  return {
    templateId: t.templateId,
    title: t.title,
    description: t.description,
    status: t.status,
    audience: t.audience,
    channels: t.channels,
    enabledChannels: enabledChannels(t),
    searchText: `${t.templateId} ${t.title} ${t.description}`.toLowerCase(),
    pendingApprovalId: pending?.approvalId ?? null,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** The listing's filter document (MongoDB, also the embedded store's). */
/** listNotificationTemplates, by template id: all, or by status, off an index in that order (paged in memory after) */
export const LIST_NOTIFICATION_TEMPLATES: ListingSpec = {
  name: 'listNotificationTemplates',
  sort: { templateId: 1 },
  filterSets: [[], ['status']],
};

export function listFilter(q: ListTemplatesQuery): Record<string, unknown> {
  return {
    ...(q.status ? { status: q.status } : {}),
    ...(q.search ? { searchText: { $regex: escapeRegex(q.search.toLowerCase()) } } : {}),
  };
}

/** The same filter on a document in memory (for templates created by the listing itself). */
export function matchesList(doc: Record<string, unknown>, q: ListTemplatesQuery): boolean {
  if (q.status && doc.status !== q.status) return false;
  const searchText = doc.searchText ?? '';
  const text = typeof searchText === 'string' ? searchText : JSON.stringify(searchText);
  if (q.search && !text.includes(q.search.toLowerCase())) return false;
  return true;
}

/** The refusal of a bad listing (or other READ) input, by its schema: 400 16008, each field and reason. */
export function invalidQuery(errors: FieldError[]) {
  return notificationError('NOTIFICATION_INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors });
}

/**
 * listNotificationTemplates' query from its validated input (the schema
 * refuses unknown names, bad values and page sizes): page 1 and 10 a page
 * unless given, the search trimmed (blank: none).
 */
export function listQuery(input: ListNotificationTemplatesInput): ListTemplatesQuery {
  const query: ListTemplatesQuery = { page: input.page ?? 1, limit: input.limit ?? DEFAULT_PAGE_SIZE };
  if (input.status) query.status = input.status;
  const search = input.search?.trim();
  if (search) query.search = search;
  return query;
}

/** Documents of the store and templates the listing just created, as one page: by templateId. */
export function pageOf(
  docs: Record<string, unknown>[],
  q: ListTemplatesQuery,
): { items: Record<string, unknown>[]; total: number } {
  const sorted = [...docs].sort((a, b) => String(a.templateId).localeCompare(String(b.templateId)));
  return { items: sorted.slice((q.page - 1) * q.limit, q.page * q.limit), total: sorted.length };
}
