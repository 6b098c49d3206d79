/**
 * What RoleManager's use cases share: the handler context, the singleton's
 * state for writing, role lookups, the permission and name checks, the audit
 * entry of a role change and the deployment queued after a change.
 */
import type { BaseCtx, Ctx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { ensureState, nameConflict, permissionCatalogue, permissionErrors } from '../rules';
import { roleError } from '../errors';
import type { PermissionMap, RoleEntity, RoleManagerClassState, RoleManagerState } from '../types';
import { problemsText } from '../../_platform/paging';

/** a RoleManager handler's context: the singleton's state, and the method's body `I` */
export type RoleCtx<I = Record<string, never>> = Ctx<RoleManagerClassState, I>;

/** the singleton's instance id */
export const ROLE_MANAGER_INSTANCE = 'default';
/** the deployment method (queued after every applied change, scheduled at the end of a cool-down) */
export const DEPLOY = 'saveRolesToLayerAndTriggerDeployment';
/** the approve and reject callback of every role event */
export const APPROVE = 'approve';

export type WorkflowEvent = 'role_create' | 'role_update' | 'role_status_update';

export function now(): string {
  return new Date().toISOString();
}

/** The instance's state for writing (created on first use, super role kept intact). */
export function writable(ctx: RoleCtx<unknown>): RoleManagerState {
  return ensureState(ctx.state.private, now());
}

/** The role `id` (404 9000 when there is none). */
export function findRole<R extends { id: string }>(roles: Iterable<R>, id: string): R {
  for (const r of roles) if (r.id === id) return r;
  throw roleError('ROLE_NOT_FOUND', `No role '${id}'`, { id });
}

/** The permission catalogue: class key → method names a program management user may call. */
export function catalogueOf(ctx: Pick<BaseCtx, 'ports'>): PermissionMap {
  return permissionCatalogue(ctx.ports.catalogue());
}

/** 400 9002 when a permission names a class or method outside the catalogue. */
export function checkPermissions(ctx: Pick<BaseCtx, 'ports'>, permissions: PermissionMap): void {
  const errors = permissionErrors(permissions, catalogueOf(ctx));
  if (errors.length) {
    throw roleError('ROLE_INVALID_PERMISSIONS', `Unknown permissions: ${problemsText(errors)}`, { errors });
  }
}

/** 409 9001 when another role has this name (case-insensitively). */
export function checkName(roles: RoleManagerState['roles'], name: string, exceptId?: string): void {
  const clash = nameConflict(Object.values(roles), name, exceptId);
  if (clash)
    throw roleError('ROLE_NAME_TAKEN', `A role named '${clash.name}' already exists`, { name, roleId: clash.id });
}

/** The audit entry of one role's change (entity type `role`, entity id = role id). */
export async function logRoleChange(
  ctx: RoleCtx<unknown>,
  id: string,
  before: RoleEntity | null,
  after: RoleEntity,
  additionalData: Record<string, unknown>,
): Promise<void> {
  await logChange(ctx, {
    entityType: 'role',
    entityId: id,
    before,
    after,
    additionalData,
  });
}

/** Queues a deployment attempt (committed with the change); answers its job id. */
export async function enqueueDeployment(ctx: RoleCtx<unknown>, trigger: string): Promise<string> {
  return (await ctx.enqueue('RoleManager', DEPLOY, ROLE_MANAGER_INSTANCE, { trigger })).jobId;
}
