/**
 * SystemEmail's pure rules: the checks of a template being saved, the record
 * a creation or update makes, the status change, the mail a send renders and
 * its recipients, the fields a template uses, the streamed document and the
 * listing filter. No I/O; unit-tested in test/SystemEmail/rules.test.ts.
 */
import type { FieldError, ListingSpec } from '../../runtime';
import type {
  CreateSystemEmailTemplateInput,
  ListSystemEmailTemplatesInput,
  UpdateSystemEmailTemplateInput,
} from '../../schemas/SystemEmail/inputs';
import { escapeRegex, MAX_FILTER_TEXT, problemsText, type FieldProblem } from '../_platform/paging';
import { checkTemplate, renderParts, templateFields, type RenderResult } from '../_platform/templates';
import { systemEmailError } from './errors';
import {
  TEMPLATE_TYPES,
  type PendingApproval,
  type SystemEmailTemplate,
  type TemplateCreator,
  type TemplateStatus,
} from './types';

/** default page size of listSystemEmailTemplates (spec 8: notifications default to 10) */
export const DEFAULT_PAGE_SIZE = 10;

/** Problems of the subject (rendered as text) and html (values escaped) of a template being saved. */
export function templateProblems(input: Pick<SystemEmailTemplate, 'subject' | 'html'>): FieldProblem[] {
  return [...checkTemplate(input.subject, 'text', 'subject'), ...checkTemplate(input.html, 'html', 'html')];
}

/** Addresses once each (case-insensitively), in the order given. */
export function uniqueAddresses(addresses: readonly string[]): string[] {
  const seen = new Set<string>();
  return addresses.filter((a) => {
    const key = a.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function buildTemplate(
  input: CreateSystemEmailTemplateInput,
  createdBy: TemplateCreator,
  now: string,
): SystemEmailTemplate {
  return {
    templateId: input.templateId,
    type: input.type,
    status: input.status,
    to: uniqueAddresses(input.to ?? []),
    title: input.title,
    subject: input.subject,
    html: input.html,
    json: input.json,
    createdBy,
    createdAt: now,
    updatedAt: now,
  };
}

/** The template as an update asks it to be (`to` absent keeps the recipients). */
export function applyUpdate(
  template: SystemEmailTemplate,
  input: UpdateSystemEmailTemplateInput,
  now: string,
): SystemEmailTemplate {
  return {
    ...template,
    to: input.to === undefined ? template.to : uniqueAddresses(input.to),
    title: input.title,
    subject: input.subject,
    html: input.html,
    json: input.json,
    updatedAt: now,
  };
}

/** Whether two versions of a template differ in anything but updatedAt. */
export function sameContent(a: SystemEmailTemplate, b: SystemEmailTemplate): boolean {
  const { updatedAt: _a, ...restA } = a;
  const { updatedAt: _b, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}

export type StatusMove = { ok: true; to: TemplateStatus } | { ok: false; reason: string };

/** active ⇄ inactive; the status the template has already is no move. */
export function statusMove(current: TemplateStatus, requested: TemplateStatus): StatusMove {
  if (requested === current) return { ok: false, reason: `the template is ${current} already` };
  return { ok: true, to: requested };
}

/** The recipients of a send: the call's when it names some, else the template's; null when there are none. */
export function recipientsFor(callTo: readonly string[] | undefined, templateTo: readonly string[]): string[] | null {
  const list = uniqueAddresses(callTo && callTo.length ? callTo : templateTo);
  return list.length ? list : null;
}

/** A rendered subject is one header line: line breaks a parameter brings become spaces. */
export function subjectLine(subject: string): string {
  return subject.replace(/[\r\n]+/g, ' ').trim();
}

/** Subject (as text) and html (values escaped) rendered with the call's parameters. */
export function renderMail(
  template: Pick<SystemEmailTemplate, 'subject' | 'html'>,
  parameters: unknown,
): RenderResult<'subject' | 'html'> {
  const r = renderParts(
    { subject: { template: template.subject, mode: 'text' }, html: { template: template.html, mode: 'html' } },
    parameters,
  );
  return r.ok ? { ok: true, rendered: { subject: subjectLine(r.rendered.subject), html: r.rendered.html } } : r;
}

/** The parameters a template uses: all of them (order of first use, subject first), and per part. */
export function fieldsOfTemplate(template: Pick<SystemEmailTemplate, 'subject' | 'html'>) {
  const subject = templateFields(template.subject);
  const html = templateFields(template.html);
  return { fields: [...new Set([...subject, ...html])], subject, html };
}

export const TEMPLATES_COLLECTION = 'systemEmailTemplates';

/** The streamed document: what listings show (no html or json), and a lower-cased search column. */
export function templateDocument(t: SystemEmailTemplate, pending: PendingApproval | null): Record<string, unknown> {
  return {
    templateId: t.templateId,
    type: t.type,
    status: t.status,
    title: t.title,
    subject: t.subject,
    to: t.to,
    createdBy: t.createdBy,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    pendingApproval: pending,
    search: `${t.templateId} ${t.title}`.toLowerCase(),
  };
}

export interface ListQuery {
  status?: TemplateStatus;
  type?: (typeof TEMPLATE_TYPES)[number];
  search?: string;
  page: number;
  limit: number;
}

/** The refusal of a bad listing (or other READ) input, by its schema: 400 11009, each field and reason. */
export function invalidQuery(errors: FieldError[]) {
  return systemEmailError('SYSTEM_EMAIL_INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors });
}

/**
 * listSystemEmailTemplates' query from its validated input (the schema refuses
 * unknown names, bad values and page sizes): page 1 and 10 a page unless
 * given, the search trimmed (blank: none).
 */
export function listQuery(input: ListSystemEmailTemplatesInput): ListQuery {
  const search = input.search?.trim();
  return {
    page: input.page ?? 1,
    limit: input.limit ?? DEFAULT_PAGE_SIZE,
    ...(input.status ? { status: input.status } : {}),
    ...(input.type ? { type: input.type } : {}),
    ...(search ? { search } : {}),
  };
}

/** MongoDB filter of a listing; search: a case-insensitive literal in the template id or title. */
/** listSystemEmailTemplates, by template id: all, or by status or type, off an index in that order */
export const LIST_SYSTEM_EMAIL_TEMPLATES: ListingSpec = {
  name: 'listSystemEmailTemplates',
  sort: { templateId: 1 },
  filterSets: [[], ['status'], ['type']],
};

export function buildListFilter(q: ListQuery): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  if (q.status) and.push({ status: q.status });
  if (q.type) and.push({ type: q.type });
  if (q.search) and.push({ search: { $regex: escapeRegex(q.search.toLowerCase().slice(0, MAX_FILTER_TEXT)) } });
  return and.length ? { $and: and } : {};
}
