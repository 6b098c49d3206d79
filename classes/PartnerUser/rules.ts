/**
 * PartnerUser's pure rules: a new user and a whole-record update, what the
 * partners and venues of a user must satisfy, adding and removing venues
 * (duplicates prevented), the status machine, who holds an email, the
 * streamed document, the listing's query and filter, and the roles offered.
 * No I/O; unit-tested in test/PartnerUser/rules.test.ts.
 */
import type { DeepReadonly, FieldError, ListingSpec } from '../../runtime';
import { escapeRegex, MAX_FILTER_TEXT } from '../_platform/paging';
import {
  PARTNER_USER_ROLES,
  PARTNER_USER_STATUSES,
  type PartnerMembership,
  type PartnerUserRecord,
  type PartnerUserRole,
  type PartnerUserState,
  type PartnerUserStatus,
  type VenueAssignment,
} from './types';
import type { InitInput, ListPartnerUsersInput, UpdateUserInput } from '../../schemas/PartnerUser/inputs';

export const PARTNER_USERS_COLLECTION = 'partnerUsers';
/** the lookup key naming a partner user by its (lower-cased) email */
export const EMAIL_LOOKUP = 'email';

// ---------------------------------------------------------------- records

/** Emails compare case-insensitively: stored and looked up lower-cased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function memberships(partners: readonly PartnerMembership[]): PartnerMembership[] {
  return partners.map((p) => ({ partnerId: p.partnerId, role: p.role }));
}

function assignments(venues: readonly VenueAssignment[]): VenueAssignment[] {
  return venues.map((v) => ({ partnerId: v.partnerId, venueId: v.venueId }));
}

/** A new user (`pending`, spec 3.3) from init's body. */
export function newPartnerUser(input: InitInput, actorId: string, now: number, id: string): PartnerUserRecord {
  return {
    id,
    fullName: input.fullName.trim(),
    email: normalizeEmail(input.email),
    partners: memberships(input.partners),
    venues: assignments(input.venues ?? []),
    status: 'pending',
    statusReason: null,
    createdBy: actorId,
    updatedBy: actorId,
    createdAt: now,
    updatedAt: now,
  };
}

const REPLACED = ['fullName', 'email', 'partners', 'venues'] as const;

/**
 * The user after updateUser's body, which carries every field (no partial
 * update: the schema requires them all). Answers the changed field names
 * (empty: the update changes nothing, and the record is the current one).
 */
export function replaceUser(
  current: DeepReadonly<PartnerUserRecord>,
  input: UpdateUserInput,
  actorId: string,
  now: number,
): { next: PartnerUserRecord; changed: string[] } {
  const base = JSON.parse(JSON.stringify(current)) as PartnerUserRecord;
  const next: PartnerUserRecord = {
    ...base,
    fullName: input.fullName.trim(),
    email: normalizeEmail(input.email),
    partners: memberships(input.partners),
    venues: assignments(input.venues),
  };
  const changed = REPLACED.filter((f) => JSON.stringify(next[f]) !== JSON.stringify(current[f]));
  if (!changed.length) return { next: base, changed: [] };
  return { next: { ...next, updatedBy: actorId, updatedAt: now }, changed: [...changed] };
}

/**
 * What the partners and venues of a user must satisfy, as field problems:
 * each partner once; each venue once, and only of a partner the user
 * belongs to (whether the partner and the venue exist is Partner's to say).
 */
export function membershipProblems(
  partners: readonly PartnerMembership[],
  venues: readonly VenueAssignment[],
  venuesField = 'venues',
): FieldError[] {
  const problems: FieldError[] = [];
  const seenPartners = new Set<string>();
  partners.forEach((p, i) => {
    if (seenPartners.has(p.partnerId))
      problems.push({ field: `partners[${i}].partnerId`, reason: `'${p.partnerId}' is given twice` });
    seenPartners.add(p.partnerId);
  });
  const seenVenues = new Set<string>();
  venues.forEach((v, i) => {
    if (!seenPartners.has(v.partnerId))
      problems.push({
        field: `${venuesField}[${i}].partnerId`,
        reason: `'${v.partnerId}' is not a partner of this user`,
      });
    if (seenVenues.has(v.venueId))
      problems.push({ field: `${venuesField}[${i}].venueId`, reason: `'${v.venueId}' is given twice` });
    seenVenues.add(v.venueId);
  });
  return problems;
}

/** The memberships and assignments of `next` that `current` does not have (the ones to check with Partner). */
export function newReferences(
  current: DeepReadonly<Pick<PartnerUserRecord, 'partners' | 'venues'>> | null,
  next: DeepReadonly<Pick<PartnerUserRecord, 'partners' | 'venues'>>,
): { partners: { partnerId: string; index: number }[]; venues: (VenueAssignment & { index: number })[] } {
  const knownPartners = new Set((current?.partners ?? []).map((p) => p.partnerId));
  const knownVenues = new Set((current?.venues ?? []).map((v) => `${v.partnerId}\u0000${v.venueId}`));
  return {
    partners: next.partners
      .map((p, index) => ({ partnerId: p.partnerId, index }))
      .filter((p) => !knownPartners.has(p.partnerId)),
    venues: next.venues
      .map((v, index) => ({ partnerId: v.partnerId, venueId: v.venueId, index }))
      .filter((v) => !knownVenues.has(`${v.partnerId}\u0000${v.venueId}`)),
  };
}

/**
 * addVenues: the venues asked for that the user does not have yet, appended
 * in the order given. Duplicates are prevented: a venue the user has, or one
 * asked for twice, is added once (`alreadyAssigned` lists those it had).
 * A venue asked for under another partner than the one it is assigned with
 * is a problem, as is one of a partner the user does not belong to.
 */
export function addVenues(
  current: DeepReadonly<Pick<PartnerUserRecord, 'partners' | 'venues'>>,
  requested: readonly VenueAssignment[],
): { venues: VenueAssignment[]; added: VenueAssignment[]; alreadyAssigned: VenueAssignment[]; problems: FieldError[] } {
  const partners = new Set(current.partners.map((p) => p.partnerId));
  const held = new Map(current.venues.map((v) => [v.venueId, v.partnerId] as const));
  const venues = assignments(current.venues);
  const added: VenueAssignment[] = [];
  const alreadyAssigned: VenueAssignment[] = [];
  const problems: FieldError[] = [];
  requested.forEach((v, i) => {
    if (!partners.has(v.partnerId)) {
      problems.push({ field: `venues[${i}].partnerId`, reason: `'${v.partnerId}' is not a partner of this user` });
      return;
    }
    const partnerOf = held.get(v.venueId);
    if (partnerOf !== undefined && partnerOf !== v.partnerId) {
      problems.push({
        field: `venues[${i}].venueId`,
        reason: `'${v.venueId}' is given with partner '${partnerOf}' elsewhere`,
      });
      return;
    }
    const one = { partnerId: v.partnerId, venueId: v.venueId };
    if (partnerOf !== undefined) {
      if (!added.some((a) => a.venueId === v.venueId) && !alreadyAssigned.some((a) => a.venueId === v.venueId))
        alreadyAssigned.push(one);
      return;
    }
    held.set(v.venueId, v.partnerId);
    venues.push(one);
    added.push(one);
  });
  return { venues, added, alreadyAssigned, problems };
}

/** removeVenues: the user's venues without those named (`notAssigned`: ids the user does not have). */
export function removeVenues(
  current: DeepReadonly<Pick<PartnerUserRecord, 'venues'>>,
  venueIds: readonly string[],
): { venues: VenueAssignment[]; removed: VenueAssignment[]; notAssigned: string[] } {
  const asked = new Set(venueIds);
  const venues = assignments(current.venues.filter((v) => !asked.has(v.venueId)));
  const removed = assignments(current.venues.filter((v) => asked.has(v.venueId)));
  const held = new Set(current.venues.map((v) => v.venueId));
  const notAssigned = [...asked].filter((id) => !held.has(id));
  return { venues, removed, notAssigned };
}

// ---------------------------------------------------------------- status

/** Spec 3.3: updateStatus sets any of the three statuses (through the workflow); the same status is no change. */
export function statusMove(
  from: PartnerUserStatus,
  to: string,
): { ok: true; to: PartnerUserStatus } | { ok: false; reason: string } {
  if (!(PARTNER_USER_STATUSES as readonly string[]).includes(to))
    return { ok: false, reason: `status must be one of ${PARTNER_USER_STATUSES.join(', ')}` };
  if (from === to) return { ok: false, reason: `the user is already ${to}` };
  return { ok: true, to: to as PartnerUserStatus };
}

/** Users that hold their email (the `email` lookup key): every user but an inactive one. */
export function holdsEmail(status: PartnerUserStatus): boolean {
  return status !== 'inactive';
}

/** Does `after` take an email `before` does not hold (so another user might hold it)? */
export function takesEmail(
  before: DeepReadonly<Pick<PartnerUserRecord, 'status' | 'email'>> | null,
  after: DeepReadonly<Pick<PartnerUserRecord, 'status' | 'email'>>,
): boolean {
  return holdsEmail(after.status) && (!before || !holdsEmail(before.status) || before.email !== after.email);
}

// ---------------------------------------------------------------- roles

const ROLE_LABELS: Record<PartnerUserRole, string> = { admin: 'Admin', manager: 'Manager', staff: 'Staff' };

/** getRoles (spec 4.5): key, value and label per role. */
export function roleOptions(): { key: string; value: PartnerUserRole; label: string }[] {
  return PARTNER_USER_ROLES.map((value) => ({ key: value.toUpperCase(), value, label: ROLE_LABELS[value] }));
}

// ---------------------------------------------------------------- stream and listing

/** The streamed document: the record, the approval it waits for, the partner ids (the partnerId filter) and the search column. */
export function partnerUserDocument(
  u: DeepReadonly<PartnerUserRecord>,
  pending: DeepReadonly<PartnerUserState['pendingApproval']>,
): Record<string, unknown> {
  return {
    ...(JSON.parse(JSON.stringify(u)) as PartnerUserRecord),
    pendingApproval: pending ?? null,
    partnerIds: u.partners.map((p) => p.partnerId),
    search: `${u.fullName} ${u.email}`.toLowerCase(),
  };
}

/** the streamed document's own columns, not answered */
export const HIDDEN_COLUMNS = ['partnerIds', 'search'];

export const DEFAULT_PAGE_SIZE = 20;
export interface ListQuery {
  page: number;
  limit: number;
  status?: PartnerUserStatus;
  partnerId?: string;
  search?: string;
}

/** listPartnerUsers' query from its input, which its schema has checked: page 1 and 20 a page unless given, the search trimmed (blank: none). */
export function listQuery(input: ListPartnerUsersInput): ListQuery {
  const { page = 1, limit = DEFAULT_PAGE_SIZE, status, partnerId } = input;
  const search = input.search?.trim();
  return {
    page,
    limit,
    ...(status ? { status } : {}),
    ...(partnerId ? { partnerId } : {}),
    ...(search ? { search } : {}),
  };
}

/** MongoDB filter of a listing; search: a case-insensitive literal in the full name or email. */
/** listPartnerUsers, by name then id: all, or by status or partner, off an index in that order */
export const LIST_PARTNER_USERS: ListingSpec = {
  name: 'listPartnerUsers',
  sort: { search: 1, _id: 1 },
  filterSets: [[], ['status'], ['partnerIds']],
};

export function buildListFilter(q: ListQuery): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  if (q.status) and.push({ status: q.status });
  if (q.partnerId) and.push({ partnerIds: q.partnerId });
  if (q.search) and.push({ search: { $regex: escapeRegex(q.search.toLowerCase().slice(0, MAX_FILTER_TEXT)) } });
  return and.length ? { $and: and } : {};
}
