/**
 * ProgramManagementUser's pure rules: new users and updates, the status
 * machine, what a caller may grant (no privilege beyond your own), the
 * permissions a user's roles give, the identity the authorizer gets, who may
 * sign in how, the streamed document and the listing filter. No I/O;
 * unit-tested in test/ProgramManagementUser/rules.test.ts.
 */
import type { DeepReadonly, FieldError, ListingSpec } from '../../runtime';
import type { Actor } from '../_platform/actor';
import { escapeRegex, MAX_FILTER_TEXT } from '../_platform/paging';
import { permissionsNotHeld, type HeldRole, type Holding } from '../_platform/permissions';
import {
  USER_STATUSES,
  type ProgramManagementUserRecord,
  type ResolvedIdentity,
  type UserState,
  type UserStatus,
} from './types';
import type { CreateUserInput, ListUsersInput, UpdateUserInput } from '../../schemas/ProgramManagementUser/inputs';
import { isErased } from './subject-data-rules';

export const USERS_COLLECTION = 'programManagementUsers';
/** the lookup key naming a user by its (lower-cased) email */
export const EMAIL_LOOKUP = 'email';

// ---------------------------------------------------------------- records

/** Emails compare case-insensitively: stored, looked up and throttled lower-cased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Type and company together: a company user names its company, an internal user none. */
export function scopeProblems(type: string, companyId: string | null | undefined): FieldError[] {
  if (type === 'company' && !companyId) return [{ field: 'companyId', reason: 'is required for a company user' }];
  if (type === 'internal' && companyId)
    return [{ field: 'companyId', reason: 'must be absent (or null) for an internal user' }];
  return [];
}

/** Role names once each, in the order given. */
export function uniqueRoles(roles: readonly string[]): string[] {
  return [...new Set(roles)];
}

export function newUser(input: CreateUserInput, actor: Actor, now: string, id: string): ProgramManagementUserRecord {
  return {
    id,
    email: normalizeEmail(input.email),
    name: input.name.trim(),
    type: input.type,
    companyId: input.type === 'company' ? (input.companyId ?? null) : null,
    loginMethod: input.loginMethod,
    roles: uniqueRoles(input.roles),
    developer: input.developer === true,
    status: 'pending',
    createdBy: actor,
    createdAt: now,
    updatedAt: now,
    invitedAt: null,
    acceptedAt: null,
    lastLoginAt: null,
  };
}

const UPDATABLE = ['name', 'email', 'type', 'companyId', 'loginMethod', 'roles', 'developer'] as const;

/**
 * The user after an update body (any of the fields, none of them status).
 * A type change to `internal` clears the company. Answers the changed field
 * names (empty: the update changes nothing).
 */
export function applyUserUpdate(
  current: DeepReadonly<ProgramManagementUserRecord>,
  input: UpdateUserInput,
  now: string,
): { next: ProgramManagementUserRecord; changed: string[] } {
  const next = JSON.parse(JSON.stringify(current)) as ProgramManagementUserRecord;
  if (input.name !== undefined) next.name = input.name.trim();
  if (input.email !== undefined) next.email = normalizeEmail(input.email);
  if (input.type !== undefined) next.type = input.type;
  if (input.companyId !== undefined) next.companyId = input.companyId;
  if (next.type === 'internal' && input.companyId === undefined) next.companyId = null;
  if (input.loginMethod !== undefined) next.loginMethod = input.loginMethod;
  if (input.roles !== undefined) next.roles = uniqueRoles(input.roles);
  if (input.developer !== undefined) next.developer = input.developer;
  const changed = UPDATABLE.filter((f) => JSON.stringify(next[f]) !== JSON.stringify(current[f]));
  if (changed.length) next.updatedAt = now;
  return { next, changed: [...changed] };
}

// ---------------------------------------------------------------- status

/** Spec 3.3: updateUserStatus sets any of the three statuses (through the workflow); the same status is no change. */
export function statusMove(from: UserStatus, to: string): { ok: true; to: UserStatus } | { ok: false; reason: string } {
  if (!(USER_STATUSES as readonly string[]).includes(to))
    return { ok: false, reason: `status must be one of ${USER_STATUSES.join(', ')}` };
  if (from === to) return { ok: false, reason: `the user is already ${to}` };
  return { ok: true, to: to as UserStatus };
}

/** Users that hold their email (the `email` lookup key): every user but an inactive one. */
export function holdsEmail(status: UserStatus): boolean {
  return status !== 'inactive';
}

// ---------------------------------------------------------------- no privilege beyond your own

/** What the caller may do, as the privilege rule needs it. */
export interface CallerPower {
  /** what the caller's active roles grant (everything for the system identity, developers and level-1 holders) */
  holding: Holding;
  /** a developer or the system identity */
  developer: boolean;
  /** the caller's user id (a program management user), to refuse edits of oneself */
  userId?: string;
}

/** A change of a user as the privilege rule sees it, with the roles it gives and takes resolved by RoleManager. */
export interface UserChange {
  kind: 'create' | 'update' | 'status';
  old: DeepReadonly<ProgramManagementUserRecord> | null;
  next: DeepReadonly<ProgramManagementUserRecord>;
  /** the active roles the user has once changed */
  grantedRoles: readonly HeldRole[];
  /** the active roles the user has now (none on creation) */
  heldRoles: readonly HeldRole[];
}

export type PrivilegeError =
  'PM_USER_SELF_EDIT' | 'PM_USER_DEVELOPER_ONLY' | 'PM_USER_LEVEL_NOT_HELD' | 'PM_USER_PERMISSION_NOT_HELD';

export interface PrivilegeRefusal {
  error: PrivilegeError;
  message: string;
  details: Record<string, unknown>;
}

function unionOf(roles: readonly HeldRole[]): Record<string, string[]> {
  const out = Object.create(null) as Record<string, string[]>;
  for (const r of roles) {
    if (r.status === 'inactive') continue;
    for (const [classId, methods] of Object.entries(r.permissions ?? {})) {
      if (Array.isArray(methods))
        out[classId] = [...new Set([...(out[classId] ?? []), ...(methods as readonly string[])])];
    }
  }
  return out;
}

/**
 * Nobody grants what they do not hold (GUIDE 5a, RoleManager's 9012-9014 for
 * users). Refused, in this order:
 *  - PM_USER_SELF_EDIT: a user changing its own status, or any field of its
 *    own but its name;
 *  - PM_USER_DEVELOPER_ONLY: creating a developer, changing the flag, or
 *    changing a developer at all, by anyone but a developer (or the system);
 *  - PM_USER_LEVEL_NOT_HELD: giving a level-1 role, or changing a user who
 *    holds one, without holding everything;
 *  - PM_USER_PERMISSION_NOT_HELD: the permissions of the roles given, and of
 *    the roles the changed user holds now (a user cannot touch someone who can
 *    do more than it can), must all be held by the caller.
 */
export function privilegeRefusal(change: UserChange, caller: CallerPower): PrivilegeRefusal | null {
  const { old, next } = change;
  if (old && caller.userId !== undefined && caller.userId === old.id) {
    const changed =
      change.kind === 'status'
        ? ['status']
        : UPDATABLE.filter((f) => f !== 'name' && JSON.stringify(next[f]) !== JSON.stringify(old[f]));
    if (changed.length) {
      return {
        error: 'PM_USER_SELF_EDIT',
        message: `Nobody changes their own ${changed.join(', ')}`,
        details: { id: old.id, fields: [...changed] },
      };
    }
  }
  const touchesDeveloper = next.developer || (old?.developer ?? false);
  if (touchesDeveloper && !caller.developer) {
    return {
      error: 'PM_USER_DEVELOPER_ONLY',
      message: old?.developer
        ? `User ${old.id} is a developer: only a developer changes one`
        : 'Only a developer makes a developer',
      details: { id: next.id },
    };
  }
  const levelOne = [...change.grantedRoles, ...change.heldRoles].filter(
    (r) => r.level === 1 && r.status !== 'inactive',
  );
  if (levelOne.length && !caller.holding.all) {
    return {
      error: 'PM_USER_LEVEL_NOT_HELD',
      message: `Only users holding a level-1 role give level-1 roles or change their holders`,
      details: { id: next.id, roles: [...new Set(levelOne.map((r) => r.name ?? r.id))].sort() },
    };
  }
  const notHeld = permissionsNotHeld(unionOf([...change.grantedRoles, ...change.heldRoles]), caller.holding);
  if (notHeld.length) {
    return {
      error: 'PM_USER_PERMISSION_NOT_HELD',
      message: `You cannot give or touch permissions you do not hold: ${notHeld.join(', ')}`,
      details: { id: next.id, notHeld },
    };
  }
  return null;
}

/**
 * A tenant-bound caller (a company user) keeps users in its company: the user
 * it changes must stay a company user of `tenant`. The runtime's tenancy
 * cannot see this, since the change is applied later, by the approver's
 * callback. Null: allowed (and always for a caller without a tenant).
 */
export function companyRefusal(
  next: DeepReadonly<Pick<ProgramManagementUserRecord, 'id' | 'type' | 'companyId'>>,
  tenant: string | null | undefined,
): { error: 'PM_USER_OUTSIDE_COMPANY'; message: string; details: Record<string, unknown> } | null {
  if (!tenant) return null;
  if (next.type === 'company' && next.companyId === tenant) return null;
  return {
    error: 'PM_USER_OUTSIDE_COMPANY',
    message: `A user of company ${tenant} keeps the users it changes in company ${tenant}`,
    details: {
      id: next.id,
      companyId: tenant,
      errors: [
        { field: next.type === 'company' ? 'companyId' : 'type', reason: `must keep the user in company ${tenant}` },
      ],
    },
  };
}

/** Role names of `wanted` that none of `found` has as id or name (sorted). */
export function unknownRoles(wanted: readonly string[], found: readonly Pick<HeldRole, 'id' | 'name'>[]): string[] {
  const known = new Set(found.flatMap((r) => [r.id, r.name].filter((x): x is string => typeof x === 'string')));
  return [...new Set(wanted.filter((w) => !known.has(w)))].sort();
}

// ---------------------------------------------------------------- permissions

/**
 * The permissions a user's active roles give, grouped by class key: every
 * method of the catalogue with a level-1 role, else the union of the
 * roles' permissions (kept to the catalogue: a role may name a method that no
 * longer exists).
 */
export function permissionsOf(
  roles: readonly HeldRole[],
  catalogue: Readonly<Record<string, readonly string[]>>,
): { level: 1 | 10 | null; permissions: Record<string, string[]> } {
  const active = roles.filter((r) => r.status !== 'inactive');
  const out: Record<string, string[]> = {};
  if (active.some((r) => r.level === 1)) {
    for (const classId of Object.keys(catalogue).sort()) out[classId] = [...catalogue[classId]].sort();
    return { level: 1, permissions: out };
  }
  const union = unionOf(active);
  for (const classId of Object.keys(union).sort()) {
    const known = catalogue[classId] ?? [];
    const methods = union[classId].filter((m) => known.includes(m)).sort();
    if (methods.length) out[classId] = methods;
  }
  return { level: active.length ? 10 : null, permissions: out };
}

// ---------------------------------------------------------------- identity and sign-in

/**
 * What the authorizer takes from the stored user (runtime identitySource):
 * only an `active` user is active; its roles, its company as tenant for a
 * company user, its developer flag, and the instant before which tokens
 * are refused (a password change or reset). An erased user is no one's
 * session, whatever its status.
 */
export function identityOf(s: DeepReadonly<Partial<UserState>>): ResolvedIdentity {
  const u = s.user;
  if (!u || isErased(u)) return { active: false, roles: [] };
  return {
    active: u.status === 'active',
    roles: [...u.roles],
    ...(u.type === 'company' && u.companyId ? { tenant: u.companyId } : {}),
    developer: u.developer,
    ...(s.sessionsValidAfter ? { validAfter: s.sessionsValidAfter } : {}),
  };
}

/** May this user sign in with email and password (login, checkOtp, resendOtp, sendPasswordResetEmail, resetPassword)? */
export function mayUsePassword(u: DeepReadonly<ProgramManagementUserRecord> | undefined | null): boolean {
  return Boolean(u && !isErased(u) && u.status === 'active' && u.loginMethod === 'email_password');
}

/** May this user accept an invitation (set its first password)? Created, approved (invited), not yet accepted. */
export function mayAcceptInvitation(u: DeepReadonly<ProgramManagementUserRecord> | undefined | null): boolean {
  return Boolean(
    u && !isErased(u) && u.status === 'pending' && u.loginMethod === 'email_password' && u.invitedAt && !u.acceptedAt,
  );
}

/**
 * May this user sign in by SSO? Active, or invited, pending and never signed
 * in (the first SSO sign-in activates it). A user set back to pending after
 * that (acceptedAt set) waits for an admin, not for its next sign-in.
 */
export function mayUseSso(u: DeepReadonly<ProgramManagementUserRecord> | undefined | null): boolean {
  return Boolean(
    u &&
    !isErased(u) &&
    u.loginMethod === 'sso' &&
    (u.status === 'active' || (u.status === 'pending' && u.invitedAt && !u.acceptedAt)),
  );
}

// ---------------------------------------------------------------- stream and listing

export function userDocument(
  u: DeepReadonly<ProgramManagementUserRecord>,
  pending: DeepReadonly<UserState['pendingApproval']>,
): Record<string, unknown> {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    type: u.type,
    companyId: u.companyId,
    loginMethod: u.loginMethod,
    roles: u.roles,
    developer: u.developer,
    status: u.status,
    createdBy: u.createdBy,
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
    invitedAt: u.invitedAt,
    acceptedAt: u.acceptedAt,
    lastLoginAt: u.lastLoginAt,
    pendingApproval: pending ?? null,
    // an erased user's name and email are ERASED already, so its search column holds no value either
    search: `${u.name} ${u.email}`.toLowerCase(),
    ...(u.erasedAt ? { erasedAt: u.erasedAt } : {}),
  };
}

export const DEFAULT_PAGE_SIZE = 20;
export interface ListQuery {
  page: number;
  limit: number;
  status?: string;
  type?: string;
  companyId?: string;
  loginMethod?: string;
  search?: string;
}

/** listUsers' query from its input, which its schema has checked: page 1 and 20 a page unless given, the search trimmed (blank: none). */
export function listQuery(input: ListUsersInput): ListQuery {
  const { page = 1, limit = DEFAULT_PAGE_SIZE, search: rawSearch, ...filters } = input;
  const search = rawSearch?.trim();
  return { page, limit, ...filters, ...(search ? { search } : {}) };
}

/** MongoDB filter of a listing; search: a case-insensitive literal in the name or email. */
/** listUsers, by name then id (`search` starts with the name): all, or by status or company, off an index in that order */
export const LIST_USERS: ListingSpec = {
  name: 'listUsers',
  sort: { search: 1, _id: 1 },
  filterSets: [[], ['status'], ['companyId']],
};

export function buildListFilter(q: ListQuery): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  if (q.status) and.push({ status: q.status });
  if (q.type) and.push({ type: q.type });
  if (q.loginMethod) and.push({ loginMethod: q.loginMethod });
  if (q.companyId) and.push({ companyId: q.companyId });
  if (q.search) and.push({ search: { $regex: escapeRegex(q.search.toLowerCase().slice(0, MAX_FILTER_TEXT)) } });
  return and.length ? { $and: and } : {};
}

/**
 * The user a self-call answered (verifyCredentials' `{valid, user}`,
 * completeSso's `{signedIn, user}`) when its `flag` is true. The answer comes
 * through the runtime as an unknown (a class calls itself by id: importing its
 * own class type would be a cycle), so its shape is checked, not assumed.
 */
export function answeredUser(answer: unknown, flag: 'valid' | 'signedIn'): ProgramManagementUserRecord | null {
  if (!answer || typeof answer !== 'object' || !(flag in answer) || !('user' in answer)) return null;
  if (Reflect.get(answer, flag) !== true) return null;
  return isUserRecord(answer.user) ? answer.user : null;
}

function isUserRecord(v: unknown): v is ProgramManagementUserRecord {
  return (
    !!v &&
    typeof v === 'object' &&
    'id' in v &&
    typeof v.id === 'string' &&
    'email' in v &&
    typeof v.email === 'string' &&
    'status' in v &&
    typeof v.status === 'string'
  );
}
