/**
 * What ProgramManagementUser's use cases share: the handlers' context types,
 * the state of a user's instance, the refusal while a user waits for an
 * approval, the audit entry of a change, the roles a change gives (read from
 * RoleManager), what the caller holds, and the privilege check.
 */
import { client, isUnknownInstance, type BaseCtx, type Ctx, type ReadCtx, type StaticCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { isDeveloperOrSystem } from '../../_platform/privileged';
import { holdingOf, type HeldRole } from '../../_platform/permissions';
import type { RoleManager } from '../../RoleManager/RoleManager.class';
import { userError } from '../errors';
import { companyRefusal, privilegeRefusal, unknownRoles, type UserChange } from '../rules';
import { isErased } from '../subject-data-rules';
import type { ProgramManagementUserClassState, ProgramManagementUserRecord, UserState } from '../types';

/** a ProgramManagementUser write's context: one user's state, and the method's body `I` */
export type UserCtx<I = Record<string, never>> = Ctx<ProgramManagementUserClassState, I>;
/** a ProgramManagementUser READ's context */
export type UserReadCtx<I = Record<string, never>> = ReadCtx<ProgramManagementUserClassState, I>;
/** a ProgramManagementUser STATIC's context */
export type UserStaticCtx<I = Record<string, never>> = StaticCtx<I>;

export const CLASS_ID = 'ProgramManagementUser';
/** the approval callback of user_create */
export const CREATE_CALLBACK = 'approveUserCreate';
/** the approval callback of user_update and user_status_update */
export const CHANGE_CALLBACK = 'approveUser';
/** entity type of the audit entries */
export const ENTITY_TYPE = 'programManagementUser';

export const now = () => new Date().toISOString();

/**
 * The user's state to change. Every write of a user reaches its state through
 * here, so an erased user (DataSubject) is refused them all in one place:
 * 410 4023, whatever the write (a change, an approval callback, a sign-in
 * step). Only the erasure itself reads the state without it.
 */
export function st(ctx: UserCtx<unknown>): UserState {
  const s = ctx.state.private;
  if (isErased(s.user)) {
    throw userError(
      'PM_USER_ERASED',
      `User ${s.user.id} was erased (erasure ${s.user.erasureId ?? 'unknown'}): it takes no change any more`,
      { id: s.user.id, erasureId: s.user.erasureId ?? null },
    );
  }
  return s;
}

/** 409 4003: the user waits for an approval. */
export function whilePending(id: string) {
  return (approvalId: string) =>
    userError(
      'PM_USER_APPROVAL_PENDING',
      `User ${id} waits for approval ${approvalId}; it takes no other change until then`,
      { id, approvalId },
    );
}

/**
 * The audit entry of a change. The record holds no secret (passwords and
 * OTPs live elsewhere); the email and name are personal data, masked.
 */
export async function logUser(
  ctx: UserCtx<unknown>,
  before: ProgramManagementUserRecord | null,
  after: ProgramManagementUserRecord,
  additionalData: Record<string, unknown>,
) {
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: after.id,
    before,
    after,
    sensitiveFields: ['email', 'name'],
    ignore: ['updatedAt'],
    additionalData,
    ...(after.companyId ? { companyId: after.companyId } : {}),
  });
}

/**
 * The active roles of RoleManager among `names` (by id or name), as
 * RoleManager holds them now (not the deployed snapshot: a role activated a
 * moment ago may be given). 400 4009 naming the roles that are not active
 * roles. A project without RoleManager's singleton has no roles yet.
 */
export async function activeRoles(
  ctx: Pick<BaseCtx, 'call'>,
  names: readonly string[],
  field = 'roles',
): Promise<HeldRole[]> {
  if (names.length === 0) return [];
  let roles: HeldRole[] = [];
  try {
    roles = (
      await client<typeof RoleManager>(ctx, 'RoleManager').getRolesForAuthentication('default', { names: [...names] })
    ).roles;
  } catch (err) {
    if (!isUnknownInstance(err)) throw err;
  }
  const unknown = unknownRoles(names, roles);
  if (unknown.length) {
    throw userError('PM_USER_UNKNOWN_ROLES', `Not active roles: ${unknown.join(', ')}`, {
      errors: unknown.map((r) => ({ field, reason: `'${r}' is not an active role` })),
    });
  }
  return roles;
}

/** The roles a user holds now (its roles that are still active; a deactivated or deleted role holds nothing). */
export async function heldRoles(ctx: Pick<BaseCtx, 'call'>, names: readonly string[]): Promise<HeldRole[]> {
  if (names.length === 0) return [];
  try {
    return (
      await client<typeof RoleManager>(ctx, 'RoleManager').getRolesForAuthentication('default', { names: [...names] })
    ).roles;
  } catch (err) {
    if (isUnknownInstance(err)) return [];
    throw err;
  }
}

/** The company a tenant-bound caller is limited to (undefined: not limited). */
export function callerTenant(ctx: Pick<BaseCtx, 'identity' | 'tenancy'>): string | undefined {
  return ctx.tenancy.tenant ?? ctx.identity.tenant;
}

/** 403 4021 unless the changed user stays in the tenant-bound caller's company (rules.ts companyRefusal). */
export function checkCompanyKept(ctx: Pick<BaseCtx, 'identity' | 'tenancy'>, next: ProgramManagementUserRecord): void {
  const refusal = companyRefusal(next, callerTenant(ctx));
  if (refusal) throw userError(refusal.error, refusal.message, refusal.details);
}

/**
 * No privilege beyond your own (rules.ts privilegeRefusal): what the caller
 * holds is what its active roles grant as the role check knows them
 * (ctx.roles()), everything for the system identity and developers.
 */
export async function checkPrivilege(ctx: Pick<BaseCtx, 'identity' | 'roles'>, change: UserChange): Promise<void> {
  const developer = isDeveloperOrSystem(ctx.identity);
  const holding = developer ? ({ all: true } as const) : holdingOf(await ctx.roles());
  const userId = ctx.identity.type === 'program_management_user' ? ctx.identity.userId : undefined;
  const refusal = privilegeRefusal(change, { holding, developer, ...(userId ? { userId } : {}) });
  if (refusal) throw userError(refusal.error, refusal.message, refusal.details);
}
