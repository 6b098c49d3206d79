/** Reading roles: getRole, getRolesForAuthentication (the role check's fallback), getPermissions (the catalogue). */
import type { ReadCtx, StaticCtx } from '../../../runtime';
import { publishedRoles } from '../deployment';
import { activeRolesMatching, rolesForReading } from '../rules';
import { roleError } from '../errors';
import type { RoleManagerClassState } from '../types';
import { catalogueOf, findRole } from './common';

/** the role's id from the body, else from the GET query (400 9010 without one) */
function idFrom(ctx: ReadCtx<RoleManagerClassState, { id?: string }>): string {
  const id = ctx.request.body?.id ?? (ctx.request.query ?? {}).id;
  if (typeof id !== 'string' || id.length === 0) {
    throw roleError('ROLE_INVALID_INPUT', 'id is required', { errors: [{ field: 'id', reason: 'is required' }] });
  }
  return id;
}

/** body or query {id}. */
export function getRole(ctx: ReadCtx<RoleManagerClassState, { id?: string }>) {
  return { role: findRole(rolesForReading(ctx.state.private), idFrom(ctx)) };
}

/** body {names?}: the active roles whose id or name is listed (all active roles without names). */
export function getRolesForAuthentication(ctx: ReadCtx<RoleManagerClassState, { names?: string[] }>) {
  const names = ctx.request.body?.names;
  return { roles: publishedRoles(activeRolesMatching(rolesForReading(ctx.state.private), names)) };
}

/** The permission catalogue: class key → method names a program management user may call. */
export function getPermissions(ctx: StaticCtx<Record<string, never>>) {
  return { permissions: catalogueOf(ctx) };
}
