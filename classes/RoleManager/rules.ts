/**
 * Pure rules of RoleManager: the built-in super role, name uniqueness, the
 * permission catalogue and its checks, the Role status machine (spec 3.3),
 * listing queries and the setState check. No I/O here.
 */
import type { DeepReadonly, FieldError, ListingSpec } from '../../runtime';
import { escapeRegex } from '../_platform/paging';
import type { ListRolesInput, SetStateInput, UpdateRoleInput } from '../../schemas/RoleManager/inputs';
import { canonicalJson } from './deployment';
import type { RoleErrorName } from './errors';
import {
  ROLE_STATUSES,
  type DeploymentState,
  type RoleEntity,
  type RoleManagerState,
  type RoleStatus,
  type StoredRole,
} from './types';
import { permissionsNotHeld, type Holding, type PermissionMap } from '../_platform/permissions';

export { holdingOf, permissionCatalogue, permissionsNotHeld } from '../_platform/permissions';
export type { CatalogueEntry, HeldRole, Holding } from '../_platform/permissions';

// ---------------------------------------------------------------- super role and state

export const SUPER_ROLE_ID = 'super';
export const SUPER_ROLE_NAME = 'super';

/** The built-in level-1 role: always present, always active, never changed. */
export function superRole(now: string): StoredRole {
  return {
    id: SUPER_ROLE_ID,
    name: SUPER_ROLE_NAME,
    description: 'Built-in super role: every operation without permission checks',
    level: 1,
    createdBy: { id: 'system', type: 'system', name: 'system' },
    permissions: {},
    status: 'active',
    createdAt: now,
    updatedAt: now,
    pendingApprovalId: null,
  };
}

export function isBuiltIn(role: Pick<RoleEntity, 'id'>): boolean {
  return role.id === SUPER_ROLE_ID;
}

export function emptyDeployment(): DeploymentState {
  return { version: 0, hash: null, lastDeployedAt: null, scheduledFor: null };
}

/**
 * Fills what a new (or upserted) instance lacks: the roles map with the super
 * role, and the deployment record. Mutates and returns the partition.
 */
export function ensureState(s: Partial<RoleManagerState>, now: string): RoleManagerState {
  s.roles ??= {};
  if (!s.roles[SUPER_ROLE_ID] || !isIntactSuper(s.roles[SUPER_ROLE_ID])) {
    const existing = s.roles[SUPER_ROLE_ID];
    s.roles[SUPER_ROLE_ID] = superRole(existing?.createdAt ?? now);
  }
  s.deployment ??= emptyDeployment();
  return s as RoleManagerState;
}

function isIntactSuper(r: StoredRole): boolean {
  return r.level === 1 && r.status === 'active' && r.name === SUPER_ROLE_NAME && r.pendingApprovalId === null;
}

/** Roles of a (possibly empty, frozen) state for reading: the super role is always there. */
export function rolesForReading(partition: DeepReadonly<Partial<RoleManagerState>>): DeepReadonly<StoredRole>[] {
  const roles: Record<string, DeepReadonly<StoredRole>> = { ...(partition.roles ?? {}) };
  if (!roles[SUPER_ROLE_ID]) roles[SUPER_ROLE_ID] = superRole(new Date(0).toISOString());
  return Object.values(roles);
}

// ---------------------------------------------------------------- names

export function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

/** The role (other than `exceptId`) whose name equals `name` case-insensitively. */
export function nameConflict(roles: Iterable<StoredRole>, name: string, exceptId?: string): StoredRole | undefined {
  const key = nameKey(name);
  for (const r of roles) if (r.id !== exceptId && nameKey(r.name) === key) return r;
  return undefined;
}

// ---------------------------------------------------------------- permissions

/** Sorted, de-duplicated method lists; classes with empty lists dropped. */
export function normalizePermissions(p: PermissionMap | undefined | null): PermissionMap {
  const out: PermissionMap = {};
  for (const classId of Object.keys(p ?? {}).sort()) {
    const methods = [...new Set((p as PermissionMap)[classId])].sort();
    if (methods.length) out[classId] = methods;
  }
  return out;
}

/** Entries that name an unknown class, or a method program management users cannot call. */
export function permissionErrors(p: PermissionMap, catalogue: PermissionMap, field = 'permissions'): FieldError[] {
  const errors: FieldError[] = [];
  for (const classId of Object.keys(p)) {
    const known = Object.prototype.hasOwnProperty.call(catalogue, classId) ? catalogue[classId] : undefined;
    if (!known) {
      errors.push({ field: `${field}.${classId}`, reason: `unknown class '${classId}'` });
      continue;
    }
    for (const m of p[classId]) {
      if (!known.includes(m)) errors.push({ field: `${field}.${classId}`, reason: `unknown method '${m}'` });
    }
  }
  return errors;
}

// ---------------------------------------------------------------- entity

/** The role without approval bookkeeping (what workflows patch and the audit log records). */
export function entityOf(role: StoredRole): RoleEntity {
  const { pendingApprovalId: _pending, ...entity } = role;
  return entity;
}

/** True when the two differ only in updatedAt. */
export function sameContent(a: RoleEntity, b: RoleEntity): boolean {
  const strip = ({ updatedAt: _u, ...rest }: RoleEntity) => rest;
  return canonicalJson(strip(a)) === canonicalJson(strip(b));
}

/** what an update asks to change (description null removes it) */
export type RoleChanges = Omit<UpdateRoleInput, 'id'>;

/** The role as an update asks for it (nothing else changes). */
export function applyChanges(role: RoleEntity, changes: RoleChanges, now: string): RoleEntity {
  const next: RoleEntity = { ...role, updatedAt: now };
  if (changes.name !== undefined) next.name = changes.name.trim();
  if (changes.description === null) delete next.description;
  else if (changes.description !== undefined) next.description = changes.description;
  if (changes.permissions !== undefined) next.permissions = normalizePermissions(changes.permissions);
  return next;
}

// ---------------------------------------------------------------- status machine (spec 3.3)

/**
 * Whether a role change may start. Spec 3.3: createRole sets `inactive`; the
 * workflow moves `inactive` to `active`; updateStatus changes the status
 * through the workflow. Refused here:
 *  - any change of the built-in super role (ROLE_BUILT_IN)
 *  - any change while an approval is pending (ROLE_PENDING_APPROVAL)
 *  - a status that is not active/inactive (ROLE_INVALID_INPUT; the schema normally answers first)
 *  - updateStatus to the current status (ROLE_STATUS_UNCHANGED)
 */
export function changeRefusal(
  role: Pick<StoredRole, 'id' | 'status' | 'pendingApprovalId'>,
  change: { kind: 'update' } | { kind: 'status'; status: string },
): RoleErrorName | null {
  if (isBuiltIn(role)) return 'ROLE_BUILT_IN';
  if (role.pendingApprovalId) return 'ROLE_PENDING_APPROVAL';
  if (change.kind === 'status') {
    if (!ROLE_STATUSES.includes(change.status as RoleStatus)) return 'ROLE_INVALID_INPUT';
    if (change.status === role.status) return 'ROLE_STATUS_UNCHANGED';
  }
  return null;
}

/**
 * The status after an approval callback (pure model of what the workflow
 * patch does, used by the table-driven test): approve → the status the
 * approval was created with; reject → unchanged.
 */
export function statusAfterReview(
  current: RoleStatus,
  approvedStatus: RoleStatus | null,
  action: 'approve' | 'reject',
): RoleStatus {
  return action === 'approve' && approvedStatus ? approvedStatus : current;
}

// ---------------------------------------------------------------- lookups for authentication

/** Active roles whose id or name is in `names` (all active roles when names is undefined). */
export function activeRolesMatching<R extends Pick<StoredRole, 'id' | 'name' | 'status'>>(
  roles: Iterable<R>,
  names?: readonly string[],
): R[] {
  const wanted = names ? new Set(names) : undefined;
  const out: R[] = [];
  for (const r of roles) {
    if (r.status !== 'active') continue;
    if (wanted && !wanted.has(r.id) && !wanted.has(r.name)) continue;
    out.push(r);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

// ---------------------------------------------------------------- listing

export const LIST_DEFAULT_LIMIT = 20;

export interface RoleListQuery {
  status?: RoleStatus;
  search?: string;
  page: number;
  limit: number;
}

/** listRoles's query from its input, which its schema has checked: page 1 and 20 a page unless given, the search trimmed (blank: none). */
export function listQuery(input: ListRolesInput): RoleListQuery {
  const query: RoleListQuery = { page: input.page ?? 1, limit: input.limit ?? LIST_DEFAULT_LIMIT };
  if (input.status) query.status = input.status;
  const search = input.search?.trim();
  if (search) query.search = search;
  return query;
}

/** MongoDB filter of a listing (status, and a case-insensitive literal search in name and description). */
/** listRoles, by name then id: all, or by status, off an index in that order */
export const LIST_ROLES: ListingSpec = {
  name: 'listRoles',
  sort: { nameLower: 1, _id: 1 },
  filterSets: [[], ['status']],
};

export function buildListFilter(q: RoleListQuery): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (q.status) filter.status = q.status;
  if (q.search) {
    const regex = { $regex: escapeRegex(q.search), $options: 'i' };
    filter.$or = [{ name: regex }, { description: regex }];
  }
  return filter;
}

/** The streamed document of a role (collection `roles`). */
export function roleDocument(role: StoredRole): Record<string, unknown> {
  return { ...role, nameLower: nameKey(role.name), builtIn: isBuiltIn(role) };
}

// ---------------------------------------------------------------- setState

/** one role of a setState input, as its schema describes it */
export type StateInputRole = SetStateInput['roles'][number];

/**
 * The roles a setState installs, or the reasons it is refused: ids and names
 * unique (names case-insensitively), permissions within the catalogue. An
 * entry for the super role is ignored: the built-in one is kept.
 */
export function stateFromInput(
  input: StateInputRole[],
  catalogue: PermissionMap,
  keepSuper: StoredRole,
  now: string,
):
  | { ok: true; roles: Record<string, StoredRole> }
  | { ok: false; status: 'invalid' | 'conflict'; errors: FieldError[] } {
  const errors: FieldError[] = [];
  let conflict = false;
  const roles: Record<string, StoredRole> = { [SUPER_ROLE_ID]: keepSuper };
  input.forEach((r, i) => {
    if (r.id === SUPER_ROLE_ID) return;
    const field = `roles.${i}`;
    if (Object.prototype.hasOwnProperty.call(roles, r.id)) {
      errors.push({ field: `${field}.id`, reason: `duplicate role id '${r.id}'` });
      return;
    }
    const clash = nameConflict(Object.values(roles), r.name);
    if (clash) {
      conflict = true;
      errors.push({ field: `${field}.name`, reason: `name '${r.name}' is already used by role '${clash.id}'` });
      return;
    }
    const permissions = normalizePermissions(r.permissions);
    errors.push(...permissionErrors(permissions, catalogue, `${field}.permissions`));
    roles[r.id] = {
      id: r.id,
      name: r.name.trim(),
      ...(r.description !== undefined ? { description: r.description } : {}),
      level: r.level,
      createdBy: r.createdBy ?? { id: 'system', type: 'system', name: 'system' },
      permissions,
      status: r.status,
      createdAt: r.createdAt ?? now,
      updatedAt: r.updatedAt ?? now,
      pendingApprovalId: r.pendingApprovalId ?? null,
    };
  });
  if (errors.length)
    return {
      ok: false,
      status: conflict && errors.every((e) => e.field.endsWith('.name')) ? 'conflict' : 'invalid',
      errors,
    };
  return { ok: true, roles };
}

// ---------------------------------------------------------------- no privilege beyond your own

/** Does the identity hold this role (its id, or its name case-insensitively, is among the identity's roles)? */
export function holdsRole(identityRoles: readonly string[], role: Pick<RoleEntity, 'id' | 'name'>): boolean {
  const key = nameKey(role.name);
  return identityRoles.some((r) => r === role.id || nameKey(r) === key);
}

/** A role change as the escalation check sees it. */
export type RoleChange =
  | { kind: 'create'; role: RoleEntity }
  | { kind: 'update'; old: RoleEntity; next: RoleEntity }
  | { kind: 'status'; old: RoleEntity; status: RoleStatus };

export type EscalationError = 'ROLE_SELF_EDIT' | 'ROLE_LEVEL_NOT_HELD' | 'ROLE_PERMISSION_NOT_HELD';

export interface EscalationRefusal {
  error: EscalationError;
  message: string;
  details: Record<string, unknown>;
}

/** Is a level-1 role created, changed or (de)activated by this change? */
export function touchesLevelOne(change: RoleChange): boolean {
  if (change.kind === 'create') return change.role.level === 1;
  if (change.kind === 'update') return change.old.level === 1 || change.next.level === 1;
  return change.old.level === 1;
}

/**
 * Nobody grants, through a role, a permission or a level, what it does not
 * hold itself, and nobody edits a role it holds (GUIDE 5a). Refused, in this
 * order:
 *  - ROLE_SELF_EDIT: updateRole / updateStatus of a role the identity holds
 *    (by id or name), or a rename to a name it holds (a rename hands the
 *    role to the holders of the new name);
 *  - ROLE_LEVEL_NOT_HELD: creating, changing or (de)activating a level-1 role
 *    without holding everything (a level-1 role, a developer, the system);
 *  - ROLE_PERMISSION_NOT_HELD: a created role, an updated role (all of its
 *    permissions, not only the added ones: editing a role that can do more
 *    than you is refused) or a role being activated whose permissions are
 *    not all held. Deactivating a level-10 role grants nothing.
 */
export function escalationRefusal(
  change: RoleChange,
  holding: Holding,
  identityRoles: readonly string[],
): EscalationRefusal | null {
  if (change.kind !== 'create') {
    const target = change.old;
    const renamedTo =
      change.kind === 'update' && nameKey(change.next.name) !== nameKey(target.name) ? change.next : null;
    if (holdsRole(identityRoles, target) || (renamedTo && holdsRole(identityRoles, { id: '', name: renamedTo.name }))) {
      return {
        error: 'ROLE_SELF_EDIT',
        message:
          renamedTo && !holdsRole(identityRoles, target)
            ? `A role cannot be renamed to '${renamedTo.name}', a role name you hold`
            : `You hold role '${target.name}': nobody edits a role they hold`,
        details: { id: target.id, name: target.name, ...(renamedTo ? { newName: renamedTo.name } : {}) },
      };
    }
  }
  if (touchesLevelOne(change) && !holding.all) {
    const role = change.kind === 'create' ? change.role : change.old;
    return {
      error: 'ROLE_LEVEL_NOT_HELD',
      message: `Only level-1 users create, change or activate level-1 roles`,
      details: { id: role.id, name: role.name, level: 1 },
    };
  }
  const granted =
    change.kind === 'create'
      ? change.role
      : change.kind === 'update'
        ? change.next
        : change.status === 'active'
          ? change.old
          : null;
  if (granted) {
    const notHeld = permissionsNotHeld(granted.permissions, holding);
    if (notHeld.length) {
      return {
        error: 'ROLE_PERMISSION_NOT_HELD',
        message: `You cannot grant permissions you do not hold: ${notHeld.join(', ')}`,
        details: { id: granted.id, notHeld },
      };
    }
  }
  return null;
}

export type LevelOneApprovalError = 'ROLE_LEVEL1_NEEDS_APPROVAL';

/**
 * Level-1 roles change only through an approval with approvers: never
 * automatically, even when the matched rule names no approver. The system
 * identity (CLI, seeds) is exempt. A developer's change would be approved
 * automatically (the platform's developer bypass), so it is refused here too.
 */
export function levelOneApprovalRefusal(input: {
  levelOne: boolean;
  system: boolean;
  ruleApprovers: readonly string[];
  autoApproved: boolean;
}): { error: LevelOneApprovalError; reason: 'rule_without_approvers' | 'auto_approved'; message: string } | null {
  if (!input.levelOne || input.system) return null;
  if (input.ruleApprovers.length === 0) {
    return {
      error: 'ROLE_LEVEL1_NEEDS_APPROVAL',
      reason: 'rule_without_approvers',
      message: 'Level-1 role changes need an approval with approvers, and the matched workflow rule names none',
    };
  }
  if (input.autoApproved) {
    return {
      error: 'ROLE_LEVEL1_NEEDS_APPROVAL',
      reason: 'auto_approved',
      message:
        'Level-1 role changes need an approval with approvers; this change would be approved automatically (a developer)',
    };
  }
  return null;
}
