/**
 * ContentManager's pure rules: a new content and an update of one, the
 * start/end window, status moves, what a rejected creation leaves, the
 * filters and order of the two listings, and the entity tag of getContents.
 * No I/O; unit-tested in test/ContentManager/rules.test.ts.
 */
import type { Actor } from '../_platform/actor';
import type { FieldProblem } from '../_platform/paging';
import { CATALOGUE, type ContentCatalogue, type ContentFields } from './schema-rules';
import {
  CONTENT_STATUSES,
  type ContentEntity,
  type ContentRecord,
  type ContentStatus,
  type PublishedContent,
} from './types';
import type {
  CreateContentInput,
  GetContentsForBackofficeInput,
  GetContentsInput,
  UpdateContentInput,
} from '../../schemas/ContentManager/inputs';

export const CONTENT_EVENTS = {
  create: 'content_create',
  update: 'content_update',
  status: 'content_status_update',
} as const;

// ---------------------------------------------------------------- records

/** Problems of a start/end window: both given, the start must be strictly before the end. */
export function windowProblems(startDate: string | null, endDate: string | null): FieldProblem[] {
  if (startDate === null || endDate === null) return [];
  return Date.parse(startDate) < Date.parse(endDate)
    ? []
    : [{ field: 'endDate', reason: `must be after startDate (${startDate})` }];
}

/** A new content, `pending` until content_create is approved (spec 3.3). */
export function newContent(
  input: CreateContentInput,
  fields: ContentFields,
  createdBy: Actor,
  now: string,
  id: string,
): ContentRecord {
  return {
    id,
    contentKey: input.contentKey,
    contentGroupKey: input.contentGroupKey,
    contentTitle: input.contentTitle.trim(),
    status: 'pending',
    startDate: input.startDate ?? null,
    endDate: input.endDate ?? null,
    order: input.order ?? null,
    fields,
    createdBy,
    createdAt: now,
    updatedAt: now,
    pendingApprovalId: null,
    lastSettledApprovalId: null,
  };
}

const UPDATABLE = ['contentKey', 'contentGroupKey', 'contentTitle', 'startDate', 'endDate', 'order', 'fields'] as const;

/** Which of the updatable fields the body names (none: 400). */
export function namedUpdates(input: UpdateContentInput): (typeof UPDATABLE)[number][] {
  return UPDATABLE.filter((k) => input[k] !== undefined);
}

/**
 * The content as an update asks it: every field given replaces the held one
 * (null clears startDate, endDate, order); `fields` are the checked fields
 * (merged over the held ones by the caller when the key is kept).
 */
export function applyContentUpdate(
  old: ContentRecord,
  input: UpdateContentInput,
  fields: ContentFields | undefined,
  now: string,
): ContentRecord {
  return {
    ...old,
    contentKey: input.contentKey ?? old.contentKey,
    contentGroupKey: input.contentGroupKey ?? old.contentGroupKey,
    contentTitle: input.contentTitle !== undefined ? input.contentTitle.trim() : old.contentTitle,
    startDate: input.startDate !== undefined ? input.startDate : old.startDate,
    endDate: input.endDate !== undefined ? input.endDate : old.endDate,
    order: input.order !== undefined ? input.order : old.order,
    fields: fields ?? old.fields,
    updatedAt: now,
  };
}

/** Whether two versions of a content differ in anything but their bookkeeping and updatedAt. */
export function sameContent(a: ContentEntity, b: ContentEntity): boolean {
  const strip = ({ updatedAt: _u, ...rest }: ContentEntity) => rest;
  return JSON.stringify(canonical(strip(toEntity(a)))) === JSON.stringify(canonical(strip(toEntity(b))));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** updateContentStatus: `active` or `inactive` (`pending` is the status of a creation waiting for approval), not the current one. */
export function statusMove(
  current: ContentStatus,
  requested: string,
): { ok: true; to: ContentStatus } | { ok: false; kind: 'invalid' | 'unchanged'; reason: string } {
  if (requested !== 'active' && requested !== 'inactive')
    return { ok: false, kind: 'invalid', reason: 'must be active or inactive' };
  if (requested === current) return { ok: false, kind: 'unchanged', reason: `the content is ${current} already` };
  return { ok: true, to: requested };
}

/** What a rejection leaves: a content whose creation is rejected is `inactive`; any other rejected change changes nothing. */
export function afterRejection(content: ContentRecord, event: string | number, now: string): ContentRecord {
  if (event === CONTENT_EVENTS.create && content.status === 'pending')
    return { ...content, status: 'inactive', updatedAt: now };
  return content;
}

/** The content as the workflow and the audit log see it (no bookkeeping). */
export function toEntity(c: ContentEntity): ContentEntity {
  return {
    id: c.id,
    contentKey: c.contentKey,
    contentGroupKey: c.contentGroupKey,
    contentTitle: c.contentTitle,
    status: c.status,
    startDate: c.startDate,
    endDate: c.endDate,
    order: c.order,
    fields: c.fields,
    createdBy: c.createdBy,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function fromEntity(
  e: ContentEntity,
  bookkeeping: Pick<ContentRecord, 'pendingApprovalId' | 'lastSettledApprovalId'>,
): ContentRecord {
  return { ...toEntity(e), ...bookkeeping };
}

// ---------------------------------------------------------------- listing input

/** A list filter its schema has checked: an array or one string, each comma-separated; trimmed, without repeats, sorted. */
function listOf(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const list = (Array.isArray(v) ? v : [v])
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter((x) => x !== '');
  return list.length ? [...new Set(list)].sort() : undefined;
}

/** every value of a list one of `allowed` (the catalogue's groups and keys are code, not the schema's) */
function known(list: string[] | undefined, allowed: readonly string[], k: string, errors: FieldProblem[]): void {
  for (const [i, x] of (list ?? []).entries())
    if (!allowed.includes(x))
      errors.push({ field: `${k}.${i}`, reason: `'${x}' is not one of: ${allowed.join(', ')}` });
}

export interface ContentsFilter {
  groups?: string[];
  keys?: string[];
  /** the filter as a canonical string (the same filters give the same string) */
  id: string;
}

/** getContents' filters (spec 4.5) from its checked input: contentGroupKeys, contentKeys, each of known values. */
export function contentsFilter(
  input: GetContentsInput,
  catalogue: ContentCatalogue = CATALOGUE,
): { ok: true; filter: ContentsFilter } | { ok: false; errors: FieldProblem[] } {
  const errors: FieldProblem[] = [];
  const groups = listOf(input.contentGroupKeys);
  const keys = listOf(input.contentKeys);
  known(
    groups,
    catalogue.groups.map((g) => g.key),
    'contentGroupKeys',
    errors,
  );
  known(
    keys,
    catalogue.keys.map((k) => k.contentKey),
    'contentKeys',
    errors,
  );
  if (errors.length) return { ok: false, errors };
  return { ok: true, filter: { groups, keys, id: `g=${(groups ?? []).join(',')};k=${(keys ?? []).join(',')}` } };
}

export interface BackofficeQuery {
  groups?: string[];
  keys?: string[];
  statuses?: ContentStatus[];
  search?: string;
  page: number;
  limit: number;
}

/** getContentsForBackoffice's query from its checked input: known groups, keys and statuses, search lower-cased (blank: none), page 1 and 20 a page unless given. */
export function backofficeQuery(
  input: GetContentsForBackofficeInput,
  catalogue: ContentCatalogue = CATALOGUE,
): { ok: true; query: BackofficeQuery } | { ok: false; errors: FieldProblem[] } {
  const errors: FieldProblem[] = [];
  const groups = listOf(input.contentGroupKeys);
  const keys = listOf(input.contentKeys);
  const statuses = listOf(input.statuses);
  known(
    groups,
    catalogue.groups.map((g) => g.key),
    'contentGroupKeys',
    errors,
  );
  known(
    keys,
    catalogue.keys.map((k) => k.contentKey),
    'contentKeys',
    errors,
  );
  known(statuses, CONTENT_STATUSES, 'statuses', errors);
  if (errors.length) return { ok: false, errors };
  const search = input.search?.trim().toLowerCase() || undefined;
  const { page = 1, limit = 20 } = input;
  return { ok: true, query: { groups, keys, statuses: statuses as ContentStatus[] | undefined, search, page, limit } };
}

// ---------------------------------------------------------------- order and visibility

const orderOf = (c: { order: number | null }) => (c.order === null ? Number.NEGATIVE_INFINITY : c.order);

function descending(a: number, b: number): number {
  return a === b ? 0 : a > b ? -1 : 1;
}

/** updatedAt descending, then id (a stable order for equal times) */
function newestFirst(a: ContentEntity, b: ContentEntity): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** getContents (spec 4.5): schema order, content order, updatedAt, all descending; a content without order after those with one. */
export function memberOrder(catalogue: ContentCatalogue = CATALOGUE) {
  return (a: ContentEntity, b: ContentEntity): number =>
    descending(catalogue.schemaOrder(a.contentKey), catalogue.schemaOrder(b.contentKey)) ||
    descending(orderOf(a), orderOf(b)) ||
    newestFirst(a, b);
}

/** getContentsForBackoffice (spec 4.5): order, then updatedAt, descending. */
export function backofficeOrder(a: ContentEntity, b: ContentEntity): number {
  return descending(orderOf(a), orderOf(b)) || newestFirst(a, b);
}

/** Whether a content is shown to members at `nowMs`: active, and within its window when it has one (start inclusive, end exclusive). */
export function isPublished(c: Pick<ContentEntity, 'status' | 'startDate' | 'endDate'>, nowMs: number): boolean {
  if (c.status !== 'active') return false;
  if (c.startDate !== null && Date.parse(c.startDate) > nowMs) return false;
  if (c.endDate !== null && Date.parse(c.endDate) <= nowMs) return false;
  return true;
}

export function publishedContent(c: ContentEntity): PublishedContent {
  return {
    id: c.id,
    contentKey: c.contentKey,
    contentGroupKey: c.contentGroupKey,
    status: c.status,
    order: c.order,
    fields: c.fields,
  };
}

export function backofficeMatches(c: ContentEntity, q: BackofficeQuery): boolean {
  if (q.groups && !q.groups.includes(c.contentGroupKey)) return false;
  if (q.keys && !q.keys.includes(c.contentKey)) return false;
  if (q.statuses && !q.statuses.includes(c.status)) return false;
  if (q.search && !c.contentTitle.toLowerCase().includes(q.search)) return false;
  return true;
}

// ---------------------------------------------------------------- getContents' index and entity tag

interface Candidate {
  content: PublishedContent;
  group: string;
  key: string;
  /** window bounds in ms (start inclusive, end exclusive) */
  from: number;
  until: number;
}

/**
 * What getContents needs of one committed state, made once per state: the
 * active contents in answer order with their windows, and the instants at
 * which one of them enters or leaves its window (sorted). Between two such
 * instants the answer to a filter does not change, so an answer is cached
 * per filter and "phase" (how many of those instants have passed).
 */
export class PublishedIndex {
  private readonly candidates: Candidate[];
  readonly boundaries: number[];
  private readonly answers = new Map<string, { phase: number; contents: readonly PublishedContent[] }>();

  constructor(contents: readonly ContentEntity[], catalogue: ContentCatalogue = CATALOGUE) {
    const active = contents.filter((c) => c.status === 'active').sort(memberOrder(catalogue));
    this.candidates = active.map((c) => ({
      content: Object.freeze(publishedContent(c)),
      group: c.contentGroupKey,
      key: c.contentKey,
      from: c.startDate === null ? Number.NEGATIVE_INFINITY : Date.parse(c.startDate),
      until: c.endDate === null ? Number.POSITIVE_INFINITY : Date.parse(c.endDate),
    }));
    const instants = new Set<number>();
    for (const c of this.candidates) {
      if (Number.isFinite(c.from)) instants.add(c.from);
      if (Number.isFinite(c.until)) instants.add(c.until);
    }
    this.boundaries = [...instants].sort((a, b) => a - b);
  }

  /** how many boundaries are at or before `nowMs` */
  phaseAt(nowMs: number): number {
    let lo = 0;
    let hi = this.boundaries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.boundaries[mid] <= nowMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** the published contents a filter selects at `nowMs` (the same frozen list for the same filter and phase) */
  select(filter: ContentsFilter, nowMs: number): readonly PublishedContent[] {
    const phase = this.phaseAt(nowMs);
    const hit = this.answers.get(filter.id);
    if (hit && hit.phase === phase) return hit.contents;
    const contents = Object.freeze(
      this.candidates
        .filter(
          (c) =>
            c.from <= nowMs &&
            nowMs < c.until &&
            (!filter.groups || filter.groups.includes(c.group)) &&
            (!filter.keys || filter.keys.includes(c.key)),
        )
        .map((c) => c.content),
    );
    // a bound on the filters remembered per state (there are few distinct ones: the app's screens)
    if (this.answers.size >= 64 && !hit) this.answers.clear();
    this.answers.set(filter.id, { phase, contents });
    return contents;
  }
}

/** 32-bit FNV-1a of a string, as 7 base-36 digits at most */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/** the schemas' own revision: a change of the definitions (their order) changes every tag */
export const SCHEMA_REVISION = shortHash(JSON.stringify(CATALOGUE.keys.map((k) => [k.contentKey, k.order])));

/**
 * getContents' entity tag: the instance version (any committed change of a
 * content moves it), the phase (a content entering or leaving its window),
 * the schemas' revision and the filter. The same tag means the same answer.
 */
export function contentsTag(
  version: number,
  phase: number,
  filter: ContentsFilter,
  schemaRevision = SCHEMA_REVISION,
): string {
  return `"${version}.${phase}.${schemaRevision}.${shortHash(filter.id)}"`;
}

/** If-None-Match (RFC 9110 13.1.2): `*`, or a list of tags compared weakly (W/ ignored). */
export function noneMatchHits(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return true;
  const bare = tag.startsWith('W/') ? tag.slice(2) : tag;
  for (const part of text.split(',')) {
    const t = part.trim();
    if ((t.startsWith('W/') ? t.slice(2) : t) === bare) return true;
  }
  return false;
}

// ---------------------------------------------------------------- the streamed documents

export const CONTENTS_COLLECTION = 'contents';

/** The streamed document of a content: the record and its lower-cased title (for search). */
export function contentDocument(c: ContentRecord): Record<string, unknown> {
  return { ...c, titleKey: c.contentTitle.toLowerCase() };
}
