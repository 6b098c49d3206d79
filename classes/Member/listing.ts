/**
 * Member documents in the document store (spec 1 rule 5) and the listing
 * queries over them (listMembers, getMemberDependants), pure.
 */
import type { Filter, IndexSpec } from '../../runtime';
import { pageInfo, parsePaging, type FieldProblem } from '../_platform/paging';
import { memberError } from './errors';
import type { MemberPrivateState, MemberProfile } from './types';

export const MEMBERS_COLLECTION = 'members';

export const MEMBER_INDEXES: IndexSpec[] = [
  { keys: { status: 1 } },
  { keys: { companyId: 1 } },
  { keys: { memberType: 1 } },
  { keys: { primaryMemberId: 1 } },
  { keys: { staffId: 1 } },
  { keys: { emailLower: 1 } },
  { keys: { membershipStatuses: 1 } },
  { keys: { createdAt: -1 } },
  // the fields listMembers searches (with staffId): MongoDB scans these index keys instead of
  // the documents for a case-insensitive search, and the embedded store keeps a search column of each
  { keys: { fullName: 1 } },
  { keys: { email: 1 } },
];

/** The listed view of a member (no documents, no photo data). */
export function memberDocument(profile: MemberProfile, state: MemberPrivateState): Record<string, unknown> {
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
    hasWaitingApproval: Boolean(state.pendingPhoto || state.pendingChange),
    createdAt: profile.createdAt,
    updatedAt: profile.updatedAt,
  };
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface ListMembersQuery {
  status?: string | string[];
  companyId?: string | string[];
  memberType?: string | string[];
  membershipStatus?: string | string[];
  primaryMemberId?: string;
  /** only primary members (no dependants) */
  primaryOnly?: boolean;
  search?: string;
  page?: number;
  limit?: number;
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
    and.push({ membershipStatuses: Array.isArray(q.membershipStatus) ? { $in: q.membershipStatus } : q.membershipStatus });
  }
  if (q.primaryMemberId !== undefined) and.push({ primaryMemberId: q.primaryMemberId });
  if (q.primaryOnly) and.push({ primaryMemberId: null });
  const search = q.search?.trim();
  if (search) {
    const rx = { $regex: escapeRegex(search), $options: 'i' };
    // fullName holds name, middle name and surname, so it alone finds any part of them
    and.push({ $or: [{ fullName: rx }, { email: rx }, { staffId: rx }] });
  }
  return and.length === 0 ? {} : and.length === 1 ? and[0]! : { $and: and };
}

export interface Page {
  page: number;
  limit: number;
  skip: number;
}

/** page (from 1) and limit (1-100) from a body or query; 400 (5005) when out of range. */
export function pageOf(raw: Record<string, unknown>, dflt = 20): Page {
  const errors: FieldProblem[] = [];
  const { page, limit } = parsePaging(raw, errors, dflt);
  if (errors.length) throw memberError('INVALID_QUERY', `Invalid listing: ${errors.map((e) => `${e.field} ${e.reason}`).join('; ')}`, { errors });
  return { page, limit, skip: (page - 1) * limit };
}

export function pageAnswer<T>(key: string, items: T[], total: number, page: Page): Record<string, unknown> {
  return { [key]: items, ...pageInfo(total, page.page, page.limit) };
}
