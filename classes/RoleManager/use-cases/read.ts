/** Reading roles: getRole, getRolesForAuthentication (the role check's fallback), getPermissions (the catalogue). */
import type { ReadCtx, StaticCtx } from '../../../runtime';
import { publishedRoles } from '../deployment';
import { activeRolesMatching, rolesForReading } from '../rules';
import type {
  GetPermissionsInput,
  GetRoleInput,
  GetRolesForAuthenticationInput,
} from '../../../schemas/RoleManager/inputs';
import type { RoleManagerClassState } from '../types';
import { catalogueOf, findRole } from './common';

/** {id}, as a GET query or a POST body (its schema requires it: 400 9010 without one). */
export function getRole(ctx: ReadCtx<RoleManagerClassState, GetRoleInput>) {
  return { role: findRole(rolesForReading(ctx.state.private), ctx.request.body.id) };
}

/** body {names?}: the active roles whose id or name is listed (all active roles without names). */
export function getRolesForAuthentication(ctx: ReadCtx<RoleManagerClassState, GetRolesForAuthenticationInput>) {
  const names = ctx.request.body?.names;
  return { roles: publishedRoles(activeRolesMatching(rolesForReading(ctx.state.private), names)) };
}

/** The permission catalogue: class key → method names a program management user may call. */
export function getPermissions(ctx: StaticCtx<GetPermissionsInput>) {
  return { permissions: catalogueOf(ctx) };
}
