/**
 * Offer's pure rules: building and changing an offer (the sheet's lists,
 * texts and dates), its status moves, which references a change adds, the
 * streamed document, and the listing's query and filter. The list, id and
 * date rules are the catalogue's (BenefitCategory/rules.ts). No I/O;
 * unit-tested in test/_platform/catalogue-rules.test.ts.
 */
import type { DeepReadonly, FieldError, ListingSpec } from '../../runtime';
import type { CreateOfferInput, ListOffersInput, UpdateOfferInput } from '../../schemas/Offer/inputs';
import { escapeRegex, listingProblems, MAX_FILTER_TEXT, problemsText } from '../_platform/paging';
import { isoInstant, requiredText, same, textList } from '../_platform/catalogue';
import { offerError } from './errors';
import { OFFER_STATUSES, type OfferRecord, type OfferStatus } from './types';

/** startDate strictly before endDate, both ISO 8601 date-times with a zone (or dates: midnight UTC). */
export function dateRange(
  start: unknown,
  end: unknown,
): { ok: true; startDate: string; endDate: string } | { ok: false; problems: FieldError[] } {
  const startDate = isoInstant(start);
  const endDate = isoInstant(end);
  const problems: FieldError[] = [];
  if (!startDate) problems.push({ field: 'startDate', reason: 'must be an ISO 8601 date-time with a zone' });
  if (!endDate) problems.push({ field: 'endDate', reason: 'must be an ISO 8601 date-time with a zone' });
  if (startDate && endDate && startDate >= endDate)
    problems.push({ field: 'endDate', reason: 'must be after startDate' });
  return problems.length ? { ok: false, problems } : { ok: true, startDate: startDate!, endDate: endDate! };
}

/** The sheet's images: http(s) URLs, each once. */
export function imageList(values: readonly string[]): { list: string[]; problems: FieldError[] } {
  const r = textList(values, 'images', { caseSensitive: true });
  values.forEach((raw, i) => {
    if (r.problems.some((p) => p.field === `images.${i}`)) return;
    let ok: boolean;
    try {
      const u = new URL(raw.trim());
      ok = u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      ok = false;
    }
    if (!ok) r.problems.push({ field: `images.${i}`, reason: 'must be an http or https URL' });
  });
  return r;
}

/** The texts and lists of a body (create or update), as they are stored; `problems` name the fields. */
function contentOf(input: UpdateOfferInput): { fields: Partial<OfferRecord>; problems: FieldError[] } {
  const problems: FieldError[] = [];
  const fields: Partial<OfferRecord> = {};
  if (input.partnerId !== undefined) fields.partnerId = input.partnerId;
  if (input.title !== undefined) fields.title = requiredText(input.title, 'title', problems);
  if (input.offerType !== undefined) fields.offerType = requiredText(input.offerType, 'offerType', problems);
  if (input.shortDescription !== undefined) fields.shortDescription = input.shortDescription.trim();
  if (input.description !== undefined) fields.description = input.description.trim();
  if (input.keywords !== undefined) {
    const l = textList(input.keywords, 'keywords');
    fields.keywords = l.list;
    problems.push(...l.problems);
  }
  if (input.images !== undefined) {
    const l = imageList(input.images);
    fields.images = l.list;
    problems.push(...l.problems);
  }
  if (input.categoryIds !== undefined) {
    const l = textList(input.categoryIds, 'categoryIds', { caseSensitive: true });
    fields.categoryIds = l.list;
    problems.push(...l.problems);
  }
  return { fields, problems };
}

/**
 * A new offer from createOffer's body: `problems` (the texts and lists) and
 * `dateProblems` (the range) name the fields; whether the partner and the
 * categories exist is for the handler to ask.
 */
export function buildOffer(
  input: CreateOfferInput,
  id: string,
  now: string,
): { offer: OfferRecord; problems: FieldError[]; dateProblems: FieldError[] } {
  const { fields, problems } = contentOf(input);
  const dates = dateRange(input.startDate, input.endDate);
  const offer: OfferRecord = {
    id,
    partnerId: input.partnerId,
    status: input.status ?? 'unpublished',
    keywords: fields.keywords ?? [],
    offerType: fields.offerType ?? '',
    startDate: dates.ok ? dates.startDate : '',
    endDate: dates.ok ? dates.endDate : '',
    images: fields.images ?? [],
    shortDescription: fields.shortDescription ?? '',
    title: fields.title ?? '',
    description: fields.description ?? '',
    categoryIds: fields.categoryIds ?? [],
    createdAt: now,
    updatedAt: now,
  };
  return { offer, problems, dateProblems: dates.ok ? [] : dates.problems };
}

const UPDATABLE = [
  'partnerId',
  'keywords',
  'offerType',
  'startDate',
  'endDate',
  'images',
  'shortDescription',
  'title',
  'description',
  'categoryIds',
] as const;

/**
 * The offer after updateOffer's body; the dates are checked as they will be
 * (a date not given keeps the offer's). `changed` lists the fields that
 * differ (none: `next` is the current offer).
 */
export function applyOfferUpdate(
  current: DeepReadonly<OfferRecord>,
  input: UpdateOfferInput,
  now: string,
): { next: OfferRecord; changed: string[]; problems: FieldError[]; dateProblems: FieldError[] } {
  const base = JSON.parse(JSON.stringify(current)) as OfferRecord;
  const { fields, problems } = contentOf(input);
  const dates = dateRange(input.startDate ?? current.startDate, input.endDate ?? current.endDate);
  const next: OfferRecord = {
    ...base,
    ...fields,
    ...(dates.ok ? { startDate: dates.startDate, endDate: dates.endDate } : {}),
  };
  const dateProblems = dates.ok ? [] : dates.problems;
  const changed = UPDATABLE.filter((f) => !same(next[f], current[f]));
  if (problems.length || dateProblems.length || !changed.length)
    return { next: base, changed: [], problems, dateProblems };
  return { next: { ...next, updatedAt: now }, changed: [...changed], problems, dateProblems };
}

/** updateOfferStatus: any of the three statuses; the same status is no move. */
export function offerStatusMove(
  from: OfferStatus,
  to: string,
): { ok: true; to: OfferStatus } | { ok: false; reason: string } {
  if (!(OFFER_STATUSES as readonly string[]).includes(to))
    return { ok: false, reason: `status must be one of ${OFFER_STATUSES.join(', ')}` };
  if (from === to) return { ok: false, reason: `the offer is already ${to}` };
  return { ok: true, to: to as OfferStatus };
}

/**
 * What a change asks the other classes about: the partner when it is new
 * (or the offer is), and the category ids `next` has that `current` does not,
 * with the field naming each (categories are never deleted, so those held
 * were checked when they were added).
 */
export function newReferences(
  current: DeepReadonly<Pick<OfferRecord, 'partnerId' | 'categoryIds'>> | null,
  next: DeepReadonly<Pick<OfferRecord, 'partnerId' | 'categoryIds'>>,
): { partnerId: string | null; categories: { id: string; field: string }[] } {
  const held = new Set(current?.categoryIds ?? []);
  return {
    partnerId: !current || current.partnerId !== next.partnerId ? next.partnerId : null,
    categories: next.categoryIds.map((id, i) => ({ id, field: `categoryIds.${i}` })).filter((c) => !held.has(c.id)),
  };
}

// ---------------------------------------------------------------- stream and listing

export const OFFERS_COLLECTION = 'offers';

/** the streamed document's own columns, never answered */
export const OFFER_HIDDEN_COLUMNS = ['search', 'sortTitle'];

/** The streamed document: the offer, its lower-cased title (the order) and a search column (title, short description, keywords). */
export function offerDocument(o: DeepReadonly<OfferRecord>): Record<string, unknown> {
  return {
    ...(JSON.parse(JSON.stringify(o)) as OfferRecord),
    sortTitle: o.title.toLowerCase(),
    search: [o.title, o.shortDescription, ...o.keywords].join('\n').toLowerCase(),
  };
}

export const DEFAULT_PAGE_SIZE = 20;

export interface OfferListQuery {
  page: number;
  limit: number;
  status?: OfferStatus[];
  partnerId?: string;
  categoryId?: string;
  offerType?: string;
  search?: string;
}

/**
 * listOffers' schema-checked input as its query: page 1 and 20 a page unless
 * given, the status always a list, blank texts none, the search trimmed.
 */
export function offerListQuery(input: ListOffersInput): OfferListQuery {
  const { page = 1, limit = DEFAULT_PAGE_SIZE, status, partnerId, categoryId, offerType } = input;
  const search = input.search?.trim();
  return {
    page,
    limit,
    ...(status ? { status: Array.isArray(status) ? status : [status] } : {}),
    ...(partnerId ? { partnerId } : {}),
    ...(categoryId ? { categoryId } : {}),
    ...(offerType ? { offerType } : {}),
    ...(search ? { search } : {}),
  };
}

/**
 * A refused listing input (the schema's problems): 400 18076 naming each
 * field, one reason a field (a status that is neither one of the statuses nor
 * a list of them fails both ways; the reason kept says what it takes).
 */
export function invalidOfferQuery(errors: readonly FieldError[]) {
  const problems = listingProblems(errors);
  return offerError('OFFER_INVALID_QUERY', `Invalid listing: ${problemsText(problems)}`, { errors: problems });
}

/** MongoDB filter of a listing; search: a case-insensitive literal in the title, short description or a keyword. */
export function buildOfferListFilter(q: OfferListQuery): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  if (q.status) and.push({ status: { $in: q.status } });
  if (q.partnerId) and.push({ partnerId: q.partnerId });
  if (q.categoryId) and.push({ categoryIds: q.categoryId });
  if (q.offerType) and.push({ offerType: q.offerType });
  if (q.search) and.push({ search: { $regex: escapeRegex(q.search.toLowerCase().slice(0, MAX_FILTER_TEXT)) } });
  return and.length ? { $and: and } : {};
}

/** the order of the listing: by title, then id */
export const OFFER_ORDER = { sortTitle: 1, _id: 1 } as const;

/** listOffers: all, or by status, partner or category, off an index in that order */
export const LIST_OFFERS: ListingSpec = {
  name: 'listOffers',
  sort: { ...OFFER_ORDER },
  filterSets: [[], ['status'], ['partnerId'], ['categoryIds']],
};
