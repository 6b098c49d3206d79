/**
 * Member documents in the document store (spec 1 rule 5) and the listing
 * queries over them (listMembers, getMemberDependants), pure.
 */
import type {
  DeepReadonly,
  DocumentGauge,
  FieldError,
  Filter,
  IndexSpec,
  ListingSpec,
  ProjectedDocument,
} from '../../runtime';
import type { ListMembershipsInput, ListMembersInput } from '../../schemas/Member/inputs';
import { escapeRegex, listingProblems, pageInfo, problemsText } from '../_platform/paging';
import { memberError } from './errors';
import type { MemberPrivateState, MemberProfile } from './types';

export const MEMBERS_COLLECTION = 'members';

/**
 * listMembers, newest first: a company's members (a company user's listing always is one), a status's,
 * or both, are read off an index in that order; the other filters are tested on the members met there
 */
export const LIST_MEMBERS: ListingSpec = {
  name: 'listMembers',
  sort: { createdAt: -1, _id: 1 },
  filterSets: [[], ['status'], ['companyId'], ['companyId', 'status']],
};

/** besides those LIST_MEMBERS needs (derived by the runtime) */
export const MEMBER_INDEXES: IndexSpec[] = [
  { keys: { memberType: 1 } },
  { keys: { primaryMemberId: 1 } },
  { keys: { staffId: 1 } },
  { keys: { emailLower: 1 } },
  { keys: { membershipStatuses: 1 } },
  // the quarantine's held pushes, a company's at a time (listHeldHrPushes)
  { keys: { hrDeactivationHeld: 1, companyId: 1 } },
  // the fields listMembers searches (with staffId): MongoDB scans these index keys instead of
  // the documents for a case-insensitive search, and the embedded store keeps a search column of each
  { keys: { fullName: 1 } },
  { keys: { email: 1 } },
];

/** what operators watch on /metrics: runtime_document_count{collection="members", gauge} */
export const MEMBER_GAUGES: DocumentGauge[] = [
  {
    name: 'hr_held_deactivations',
    help: 'members whose deactivating HR push the quarantine holds for review',
    filter: { hrDeactivationHeld: true },
  },
];

/**
 * Every document the member is streamed to (the class's `stream.toDocuments`): what the store holds of it, which
 * its personal-data export reads back by collection and id.
 */
export function memberDocuments(state: DeepReadonly<MemberPrivateState>, id: string): ProjectedDocument[] {
  return state.profile ? [{ collection: MEMBERS_COLLECTION, id, doc: memberDocument(state.profile, state) }] : [];
}

/** The listed view of a member (no documents, no photo data). */
export function memberDocument(
  profile: DeepReadonly<MemberProfile>,
  state: DeepReadonly<MemberPrivateState>,
): Record<string, unknown> {
  return {
    id: profile.id,
    status: profile.status,
    statusReason: profile.statusReason ?? null,
    name: profile.name,
    middleName: profile.middleName ?? null,
    surname: profile.surname,
    fullName: [profile.name, profile.middleName, profile.surname].filter(Boolean).join(' '),
    staffId: profile.staffId ?? null,
    email: profile.email ?? null,
    emailLower: profile.email ? profile.email.toLowerCase() : null,
    phone: profile.phone ?? null,
    companyId: profile.company?.id ?? null,
    grade: profile.grade ?? null,
    memberType: profile.memberType ?? null,
    memberSubType: profile.memberSubType ?? null,
    loginMethod: profile.loginMethod,
    primaryMemberId: profile.primaryMemberId ?? null,
    relation: profile.relation ?? null,
    isDependant: Boolean(profile.primaryMemberId),
    hasIdPhoto: Boolean(profile.idPhoto),
    membershipStatuses: [...new Set((profile.memberships ?? []).map((m) => m.status))],
    tierIds: [...new Set((profile.memberships ?? []).map((m) => m.tierId))],
    familyMemberCount: (profile.familyMembers ?? []).length,
    hasWaitingApproval: Boolean(state.pendingPhoto || state.pendingChange || state.heldHr),
    hrDeactivationHeld: Boolean(state.heldHr),
    hrHeldAt: state.heldHr?.heldAt ?? null,
    hrHeld: state.heldHr
      ? {
          kind: state.heldHr.kind,
          approvalId: state.heldHr.approvalId,
          heldAt: state.heldHr.heldAt,
          replaced: state.heldHr.replaced,
        }
      : null,
    createdAt: profile.createdAt,
    updatedAt: profile.updatedAt,
    // a tombstone (README "Erasure"): its personal values are erased, so the listing can say why
    ...(state.erasure ? { erased: true } : {}),
  };
}

/** listMembers's filters as listMembersFilter reads them (the validated input, its search trimmed) */
export interface ListMembersQuery {
  status?: string | string[];
  companyId?: string | string[];
  memberType?: string | string[];
  membershipStatus?: string | string[];
  primaryMemberId?: string;
  /** only primary members (no dependants) */
  primaryOnly?: boolean;
  search?: string;
}

/**
 * A refused listing input (the schema's problems): 400 (5005) with
 * `details.errors: [{field, reason}]`, one reason a field (a filter that takes
 * one value or a list fails both ways; the reason kept says what it takes).
 */
export function invalidQuery(errors: readonly FieldError[]) {
  const problems = listingProblems(errors);
  return memberError('INVALID_QUERY', `Invalid listing: ${problemsText(problems)}`, { errors: problems });
}

/** listMembers's schema-checked input as its query: page 1 and 20 a page unless given, the search trimmed. */
export function listMembersQuery(input: ListMembersInput): ListMembersQuery & Page {
  const { page = 1, limit = 20, search, ...filters } = input;
  const text = search?.trim();
  return { ...filters, ...(text ? { search: text } : {}), page, limit, skip: (page - 1) * limit };
}

export interface MembershipListQuery extends Page {
  tierId?: string;
  tierGroup?: ListMembershipsInput['tierGroup'];
  status?: ListMembershipsInput['status'];
}

/** listMemberships's schema-checked input as its query: page 1 and 10 a page unless given. */
export function membershipListQuery(input: ListMembershipsInput): MembershipListQuery {
  const { tierId, tierGroup, status, page = 1, limit = 10 } = input;
  return { tierId, tierGroup, status, page, limit, skip: (page - 1) * limit };
}

function oneOrMany(v: string | string[]): unknown {
  return Array.isArray(v) ? { $in: v } : v;
}

/** listMembers filter: status, company, member type, membership status, search on name, email and staff id. */
export function listMembersFilter(q: ListMembersQuery, restrictCompanyIds?: string[]): Filter {
  const and: Filter[] = [];
  if (q.status !== undefined) and.push({ status: oneOrMany(q.status) });
  if (q.companyId !== undefined) and.push({ companyId: oneOrMany(q.companyId) });
  if (restrictCompanyIds) and.push({ companyId: { $in: restrictCompanyIds } });
  if (q.memberType !== undefined) and.push({ memberType: oneOrMany(q.memberType) });
  if (q.membershipStatus !== undefined) {
    and.push({
      membershipStatuses: Array.isArray(q.membershipStatus) ? { $in: q.membershipStatus } : q.membershipStatus,
    });
  }
  if (q.primaryMemberId !== undefined) and.push({ primaryMemberId: q.primaryMemberId });
  if (q.primaryOnly) and.push({ primaryMemberId: null });
  const search = q.search?.trim();
  if (search) {
    const rx = { $regex: escapeRegex(search), $options: 'i' };
    // fullName holds name, middle name and surname, so it alone finds any part of them
    and.push({ $or: [{ fullName: rx }, { email: rx }, { staffId: rx }] });
  }
  return and.length === 0 ? {} : and.length === 1 ? and[0] : { $and: and };
}

export interface Page {
  page: number;
  limit: number;
  skip: number;
}

export function pageAnswer<T>(key: string, items: T[], total: number, page: Page): Record<string, unknown> {
  return { [key]: items, ...pageInfo(total, page.page, page.limit) };
}
