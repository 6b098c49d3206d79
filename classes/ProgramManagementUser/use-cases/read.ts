/**
 * The READs: getUser, getPermissions (the signed-in user's own), and the
 * class's own reads for sign-in and the authorizer: resolveIdentity (the
 * runtime's identity source), signInView, and verifyCredentials (the
 * password is checked here, in a READ that holds no instance exclusively,
 * so the hash never leaves the instance and no sign-in waits behind another).
 */
import type { VerifyCredentialsInput } from '../../../schemas/ProgramManagementUser/inputs';
import type { Identity } from '../../../runtime';
import { verifyPassword } from '../../_platform/passwords';
import { permissionCatalogue } from '../../_platform/permissions';
import { userError } from '../errors';
import { identityOf, mayUsePassword, permissionsOf } from '../rules';
import type { ResolvedIdentity } from '../types';
import { heldRoles, type UserReadCtx } from './common';

export function getUser(ctx: UserReadCtx) {
  const s = ctx.state.private;
  return { user: s.user, pendingApproval: s.pendingApproval ?? null, lastReview: s.lastReview ?? null };
}

/**
 * getPermissions' guard: the signed-in user's own instance only (403 4012),
 * judged from the id before the user is looked up, so whether another id is
 * a user is never told.
 */
export function ownUserOnly(caller: { identity: Identity; instanceId: string | undefined }): void {
  const { identity, instanceId } = caller;
  if (identity.type !== 'system' && !(identity.type === 'program_management_user' && identity.userId === instanceId)) {
    throw userError(
      'PM_USER_NOT_YOURS',
      'getPermissions answers the signed-in user only: call it on your own user id',
      { id: instanceId },
    );
  }
}

/**
 * The caller's own permissions, grouped by class key (spec 4.5), from its
 * stored roles as RoleManager holds them: every method of the catalogue with
 * a level-1 role, else the union of its active roles' permissions. Only for
 * the user itself (403 4012 for another instance).
 */
export async function getPermissions(ctx: UserReadCtx) {
  const u = ctx.state.private.user;
  const roles = await heldRoles(ctx, u.roles);
  const { level, permissions } = permissionsOf(roles, permissionCatalogue(ctx.ports.catalogue()));
  return { userId: u.id, roles: [...u.roles], level, developer: u.developer, permissions };
}

/** The identity source (ClassOptions.identitySource): the stored user is the truth, the token a session. */
export function resolveIdentity(ctx: UserReadCtx): ResolvedIdentity & { name?: string } {
  const s = ctx.state.private;
  return { ...identityOf(s), ...(s.user ? { name: s.user.name } : {}) };
}

/** The user as sign-in needs it (class only). */
export function signInView(ctx: UserReadCtx) {
  return { user: ctx.state.private.user };
}

/**
 * Is `password` this user's (class only)? Only an active email/password user
 * with a password can match; the hash is computed whatever the user, so
 * every refusal takes as long as a match.
 */
export async function verifyCredentials(ctx: UserReadCtx<VerifyCredentialsInput>) {
  const s = ctx.state.private;
  const usable = mayUsePassword(s.user);
  const valid = await verifyPassword(ctx.request.body.password, usable ? s.credentials?.passwordHash : null);
  return { valid: valid && usable, user: s.user };
}
