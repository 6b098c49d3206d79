/**
 * Partner rules, pure: ids, contract dates, social media accounts, map
 * coordinates, building and changing partners and venues, status moves,
 * what is streamed, the listings' inputs and filters, the audit-trail query.
 * Unit-tested in test/Partner/rules.test.ts.
 */
import type {
  CreateVenueInput,
  GetLogEntriesInput,
  InitInput,
  ListPartnersInput,
  ListVenuesInput,
  UpdatePartnerContractInput,
  UpdatePartnerDetailsInput,
  UpdateVenueInput,
} from '../../schemas/Partner/inputs';
import { isDeepStrictEqual } from 'node:util';
import type { DeepReadonly } from '../../runtime';
import type { Actor } from '../_platform/actor';
import { escapeRegex, problemsText, type FieldProblem, type ListingQuery } from '../_platform/paging';
import { invalidLogQuery, partnerError } from './errors';
import { typeForMimeType } from '../_platform/file-types';
import {
  PARTNER_STATUSES,
  SOCIAL_MEDIA_PLATFORMS,
  VENUE_STATUSES,
  VENUE_TYPE,
  type MapCoordinates,
  type PartnerRecord,
  type PartnerStatus,
  type PendingApproval,
  type SocialMediaAccount,
  type Venue,
} from './types';

export type { FieldProblem } from '../_platform/paging';

export const PARTNERS_COLLECTION = 'partners';
export const VENUES_COLLECTION = 'venues';

/** the stream's search column (lower-cased text of the searchable fields), never answered */
export const SEARCH_FIELD = 'searchText';

// ---------------------------------------------------------------- ids

/** a partner id: it names the partner's file instance `partner_<id>` too (FileManager's entity id rule) */
export const PARTNER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export function partnerIdProblem(id: string | undefined): string | null {
  if (typeof id === 'string' && PARTNER_ID_PATTERN.test(id)) return null;
  return 'must be 1 to 100 letters, digits, `_` or `-`, starting with a letter or digit';
}

// ---------------------------------------------------------------- dates

/** An ISO 8601 date or date-time (with a zone) as a UTC instant string; undefined when it is not one. */
export function normalizeDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/i.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined; // years 0000-9999 only: instants compare as strings
}

export type ContractDates =
  { ok: true; contractStartDate: string; contractEndDate: string } | { ok: false; problems: FieldProblem[] };

/** Contract dates: both valid, start before end (dates without a time are midnight UTC). */
export function contractDates(start: unknown, end: unknown): ContractDates {
  const s = normalizeDate(start);
  const e = normalizeDate(end);
  const problems: FieldProblem[] = [];
  const reason = 'must be an ISO 8601 date or date-time with a zone';
  if (!s) problems.push({ field: 'contractStartDate', reason });
  if (!e) problems.push({ field: 'contractEndDate', reason });
  if (s && e && s >= e) problems.push({ field: 'contractEndDate', reason: 'must be after contractStartDate' });
  return problems.length ? { ok: false, problems } : { ok: true, contractStartDate: s!, contractEndDate: e! };
}

// ---------------------------------------------------------------- fields

const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;

/** spec 2.5: platforms of the list only, an http(s) URL each, no account twice */
export function socialMediaProblems(
  accounts: readonly SocialMediaAccount[] | null | undefined,
  field = 'socialMediaAccounts',
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  (accounts ?? []).forEach((a, i) => {
    if (!(SOCIAL_MEDIA_PLATFORMS as readonly string[]).includes(a?.platform)) {
      problems.push({
        field: `${field}.${i}.platform`,
        reason: `must be one of: ${SOCIAL_MEDIA_PLATFORMS.join(', ')}`,
      });
    }
    if (typeof a?.url !== 'string' || !HTTP_URL.test(a.url))
      problems.push({ field: `${field}.${i}.url`, reason: 'must be an http or https URL' });
    const key = `${a?.platform}\u0000${a?.url}`;
    if (seen.has(key)) problems.push({ field: `${field}.${i}`, reason: 'is given twice' });
    seen.add(key);
  });
  return problems;
}

/** latitude −90…90, longitude −180…180, both finite numbers */
export function coordinatesProblems(c: MapCoordinates | null | undefined, field = 'mapCoordinates'): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const inRange = (v: unknown, limit: number) =>
    typeof v === 'number' && Number.isFinite(v) && v >= -limit && v <= limit;
  if (!inRange(c?.latitude, 90))
    problems.push({ field: `${field}.latitude`, reason: 'must be a number from -90 to 90' });
  if (!inRange(c?.longitude, 180))
    problems.push({ field: `${field}.longitude`, reason: 'must be a number from -180 to 180' });
  return problems;
}

/** the venue's type is the service's: a client that sends one is refused, naming the field */
export function venueTypeProblem(body: { type?: unknown }): FieldProblem | null {
  return body.type === undefined
    ? null
    : { field: 'type', reason: `is system-managed (always '${VENUE_TYPE}') and cannot be set` };
}

/** a logo is an image (jpeg, jpg, png, gif, webp) */
export function logoTypeProblem(mimeType: string): string | null {
  const type = typeof mimeType === 'string' && mimeType.includes('/') ? typeForMimeType(mimeType) : null;
  return type?.fileType === 'image'
    ? null
    : `'${mimeType}' is not an image type: jpeg, jpg, png, gif or webp, as a mime type`;
}

/** spec 2.5, 8: partner documents are images (5 MB) and documents (10 MB), as for members; not JSON files */
export function documentTypeProblem(mimeType: string): string | null {
  const type = typeof mimeType === 'string' && mimeType.includes('/') ? typeForMimeType(mimeType) : null;
  if (type && (type.fileType === 'image' || type.fileType === 'document')) return null;
  return `'${mimeType}' is not a partner document type: images (jpeg, jpg, png, gif, webp) or documents (pdf, doc, docx, xls, xlsx, txt, csv), as a mime type`;
}

// ---------------------------------------------------------------- partners

/** keys of PartnerRecord that updatePartnerDetails may remove (null) */
const OPTIONAL_DETAILS = [
  'partnerTier',
  'socialMediaAccounts',
  'website',
  'partnerTypeId',
  'partnerSubtypeIds',
  'tradeLicenseNumber',
  'accountAgent',
] as const;
const REQUIRED_DETAILS = ['legalName', 'brandName', 'businessAddress', 'city', 'country'] as const;

function withOptional<T extends object>(target: T, key: string, value: unknown): void {
  const t = target as Record<string, unknown>;
  if (value === null || value === undefined) delete t[key];
  else t[key] = value;
}

/** a list of ids without repeats, in the order given */
function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** The new partner, `inactive` until its creation is approved (spec 3.3 knows only active and inactive). */
export function buildPartner(input: {
  id: string;
  body: InitInput;
  dates: { contractStartDate: string; contractEndDate: string };
  brandLogoPath?: string;
  createdBy: Actor;
  now: string;
}): PartnerRecord {
  const b = input.body;
  const partner: PartnerRecord = {
    id: input.id,
    legalName: b.legalName,
    brandName: b.brandName,
    businessAddress: b.businessAddress,
    city: b.city,
    country: b.country,
    primaryContact: { name: b.primaryContact.name, email: b.primaryContact.email, phone: b.primaryContact.phone },
    contractId: b.contractId,
    contractStartDate: input.dates.contractStartDate,
    contractEndDate: input.dates.contractEndDate,
    status: 'inactive',
    createdBy: input.createdBy,
    createdAt: input.now,
    updatedAt: input.now,
  };
  withOptional(partner, 'brandLogoPath', input.brandLogoPath);
  for (const key of OPTIONAL_DETAILS) withOptional(partner, key, b[key]);
  if (partner.partnerSubtypeIds) partner.partnerSubtypeIds = distinct(partner.partnerSubtypeIds);
  return partner;
}

function copy<T>(v: DeepReadonly<T> | T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** updatePartnerDetails: the fields given replace the partner's; null removes an optional one. */
export function applyDetails(
  partner: DeepReadonly<PartnerRecord> | PartnerRecord,
  body: UpdatePartnerDetailsInput,
  now: string,
): PartnerRecord {
  const next = copy<PartnerRecord>(partner);
  for (const key of REQUIRED_DETAILS) if (typeof body[key] === 'string') next[key] = body[key]!;
  for (const key of OPTIONAL_DETAILS) if (key in body) withOptional(next, key, body[key]);
  if (next.partnerSubtypeIds) next.partnerSubtypeIds = distinct(next.partnerSubtypeIds);
  next.updatedAt = now;
  return next;
}

/** updatePartnerContract: the given fields, the dates checked together with the partner's others. */
export function applyContract(
  partner: DeepReadonly<PartnerRecord> | PartnerRecord,
  body: UpdatePartnerContractInput,
  now: string,
): { ok: true; partner: PartnerRecord } | { ok: false; problems: FieldProblem[] } {
  const dates = contractDates(
    body.contractStartDate ?? partner.contractStartDate,
    body.contractEndDate ?? partner.contractEndDate,
  );
  if (!dates.ok) return dates;
  const next = copy<PartnerRecord>(partner);
  if (body.contractId !== undefined) next.contractId = body.contractId;
  next.contractStartDate = dates.contractStartDate;
  next.contractEndDate = dates.contractEndDate;
  next.updatedAt = now;
  return { ok: true, partner: next };
}

/** the same entity but for `updatedAt` */
export function sameEntity<T extends { updatedAt: string }>(a: DeepReadonly<T> | T, b: DeepReadonly<T> | T): boolean {
  return isDeepStrictEqual({ ...a, updatedAt: '' }, { ...b, updatedAt: '' });
}

export type StatusMove<S extends string> =
  { ok: true; to: S } | { ok: false; error: 'PARTNER_STATUS_UNCHANGED'; message: string };

/** updatePartnerStatus / updateVenueStatus (spec 3.3): `active` ↔ `inactive`; the same status again is refused. */
export function statusMove<S extends string>(from: S, to: S, allowed: readonly S[]): StatusMove<S> {
  if (!allowed.includes(to)) throw new Error(`not a status: ${to}`);
  if (from === to) return { ok: false, error: 'PARTNER_STATUS_UNCHANGED', message: `The status is already ${to}` };
  return { ok: true, to };
}

export const partnerStatusMove = (from: PartnerStatus, to: PartnerStatus) => statusMove(from, to, PARTNER_STATUSES);

/** The partner after a status change: the reason given, or none (a status change without a reason clears the old one). */
export function withStatus(
  partner: DeepReadonly<PartnerRecord> | PartnerRecord,
  status: PartnerStatus,
  reason: string | null | undefined,
  now: string,
): PartnerRecord {
  const next = copy<PartnerRecord>(partner);
  next.status = status;
  withOptional(
    next,
    'statusReason',
    reason === undefined || reason === null || reason.trim() === '' ? undefined : reason,
  );
  next.updatedAt = now;
  return next;
}

/** The partner with a new logo path (undefined: none). */
export function withLogo(
  partner: DeepReadonly<PartnerRecord> | PartnerRecord,
  brandLogoPath: string | undefined,
  now: string,
): PartnerRecord {
  const next = copy<PartnerRecord>(partner);
  withOptional(next, 'brandLogoPath', brandLogoPath);
  next.updatedAt = now;
  return next;
}

// ---------------------------------------------------------------- venues

/** The new venue, `inactive` until its creation is approved; type `venue` always. */
export function buildVenue(input: {
  id: string;
  partnerId: string;
  body: CreateVenueInput;
  createdBy: Actor;
  now: string;
}): Venue {
  const b = input.body;
  return {
    id: input.id,
    partnerId: input.partnerId,
    venueName: b.venueName,
    address: b.address,
    contactName: b.contactName,
    contactEmail: b.contactEmail,
    contactPhone: b.contactPhone,
    mapCoordinates: { latitude: b.mapCoordinates.latitude, longitude: b.mapCoordinates.longitude },
    type: VENUE_TYPE,
    status: 'inactive',
    createdBy: input.createdBy,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

const VENUE_FIELDS = ['venueName', 'address', 'contactName', 'contactEmail', 'contactPhone'] as const;

/** updateVenue: the given fields replace the venue's (status and type are not among them). */
export function applyVenueUpdate(venue: DeepReadonly<Venue> | Venue, body: UpdateVenueInput, now: string): Venue {
  const next = copy<Venue>(venue);
  for (const key of VENUE_FIELDS) if (typeof body[key] === 'string') next[key] = body[key]!;
  if (body.mapCoordinates)
    next.mapCoordinates = { latitude: body.mapCoordinates.latitude, longitude: body.mapCoordinates.longitude };
  next.updatedAt = now;
  return next;
}

export function withVenueStatus(venue: DeepReadonly<Venue> | Venue, status: Venue['status'], now: string): Venue {
  return { ...copy<Venue>(venue), status, updatedAt: now };
}

export const venueStatusMove = (from: Venue['status'], to: Venue['status']) => statusMove(from, to, VENUE_STATUSES);

/** A venue as clients get it: the PartnerLocation's fields, and `name` (its venueName) as other classes read it. */
export function venueView(venue: DeepReadonly<Venue> | Venue) {
  return { ...copy<Venue>(venue), name: venue.venueName };
}

// ---------------------------------------------------------------- streamed documents

const lower = (parts: (string | undefined | null)[]) =>
  parts
    .filter((p): p is string => typeof p === 'string' && p !== '')
    .join('\u0001')
    .toLowerCase();

/** The `partners` document: the partner, what it waits for, its venue count, and the search column. */
export function partnerDocument(
  partner: DeepReadonly<PartnerRecord>,
  pending: DeepReadonly<PendingApproval> | null,
  venueCount: number,
): Record<string, unknown> {
  return {
    ...copy<PartnerRecord>(partner),
    partnerSubtypeIds: partner.partnerSubtypeIds ? [...partner.partnerSubtypeIds] : [],
    pendingApproval: pending ? copy<PendingApproval>(pending) : null,
    venueCount,
    [SEARCH_FIELD]: lower([
      partner.legalName,
      partner.brandName,
      partner.contractId,
      partner.tradeLicenseNumber,
      partner.city,
      partner.country,
      partner.primaryContact.name,
      partner.primaryContact.email,
    ]),
  };
}

/** A `venues` document: the venue as clients get it, what it waits for, and the search column. */
export function venueDocument(
  venue: DeepReadonly<Venue>,
  pending: DeepReadonly<PendingApproval> | null,
): Record<string, unknown> {
  return {
    ...venueView(venue),
    pendingApproval: pending ? copy<PendingApproval>(pending) : null,
    [SEARCH_FIELD]: lower([venue.venueName, venue.address, venue.contactName, venue.contactEmail, venue.contactPhone]),
  };
}

// ---------------------------------------------------------------- listings

export type ListQuery = ListingQuery;

function searchFilter(search: string | undefined): Record<string, unknown> | null {
  const s = search?.trim().toLowerCase();
  return s ? { [SEARCH_FIELD]: { $regex: escapeRegex(s) } } : null;
}

const asList = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/**
 * listPartners' query from its checked input: status, type (partnerTypeId,
 * one or a list), subtypes (a partner matches when any of its subtypes is
 * asked for), search (legal and brand name, contract id, trade licence, city,
 * country, primary contact), page 1 and 20 a page unless given. Sorted by
 * brand name, then id.
 */
export function partnerListQuery(input: ListPartnersInput): ListQuery {
  const { status, search, page = 1, limit = 20 } = input;
  const type = asList(input.type);
  const subtypes = asList(input.subtypes);
  const and: Record<string, unknown>[] = [];
  if (status) and.push({ status });
  if (type) and.push({ partnerTypeId: { $in: type } });
  if (subtypes) and.push({ partnerSubtypeIds: { $in: subtypes } });
  const s = searchFilter(search);
  if (s) and.push(s);
  const filter = and.length === 0 ? {} : and.length === 1 ? and[0] : { $and: and };
  return { filter, sort: { brandName: 1, id: 1 }, page, limit, skip: (page - 1) * limit };
}

/** listVenues' query of one partner from its checked input: status, search (name, address, contact), page, limit (default 20); by venue name, then id. */
export function venueListQuery(input: ListVenuesInput, partnerId: string): ListQuery {
  const { status, search, page = 1, limit = 20 } = input;
  const and: Record<string, unknown>[] = [{ partnerId }];
  if (status) and.push({ status });
  const s = searchFilter(search);
  if (s) and.push(s);
  return {
    filter: and.length === 1 ? and[0] : { $and: and },
    sort: { venueName: 1, id: 1 },
    page,
    limit,
    skip: (page - 1) * limit,
  };
}

// ---------------------------------------------------------------- audit trail

/** the entity types Partner writes to the audit log */
export const PARTNER_LOG_ENTITY_TYPES = ['partner', 'venue', 'partner_document'] as const;

/** LogManager.getLogEntries's body for the Partner class's entries */
export interface LogQuery {
  classId: 'Partner';
  entityType?: string;
  entityId?: string;
  from?: string;
  to?: string;
  search?: string;
  page: number;
  limit: number;
}

/**
 * getLogEntries' query from its checked input: `partnerId` (the partner's own
 * entries), or `entityType` (partner, venue, partner_document) with
 * `entityId`; `from`/`to` (date-times with a zone, inclusive, read as
 * instants), `search`, page, limit (default 20). What its schema cannot say
 * is refused here: partnerId with another entity, a date that is no day of
 * the calendar (17010), from after to (17018).
 */
export function logQuery(input: GetLogEntriesInput): LogQuery {
  const errors: FieldProblem[] = [];
  const { partnerId, page = 1, limit = 20 } = input;
  let entityType: string | undefined = input.entityType;
  let entityId = input.entityId;
  if (partnerId !== undefined) {
    if (entityId !== undefined) errors.push({ field: 'entityId', reason: 'cannot be given with partnerId' });
    if (entityType !== undefined && entityType !== 'partner')
      errors.push({ field: 'entityType', reason: "must be 'partner' (or left out) with partnerId" });
    entityType = 'partner';
    entityId = partnerId;
  }
  const dates: { from?: string; to?: string } = {};
  for (const key of ['from', 'to'] as const) {
    const v = input[key];
    if (v === undefined) continue;
    if (Number.isNaN(Date.parse(v)))
      errors.push({ field: key, reason: 'must be an ISO 8601 date-time with a zone (e.g. 2024-05-01T00:00:00Z)' });
    else dates[key] = new Date(Date.parse(v)).toISOString();
  }
  if (errors.length) throw invalidLogQuery(errors);
  if (dates.from && dates.to && dates.from > dates.to) {
    const range = [{ field: 'from', reason: 'must not be after to' }];
    throw partnerError('PARTNER_INVALID_DATE_RANGE', `Invalid query: ${problemsText(range)}`, { errors: range });
  }
  const query: LogQuery = { classId: 'Partner', page, limit };
  if (entityType) query.entityType = entityType;
  if (entityId) query.entityId = entityId;
  if (dates.from) query.from = dates.from;
  if (dates.to) query.to = dates.to;
  if (input.search?.trim()) query.search = input.search.trim();
  return query;
}
