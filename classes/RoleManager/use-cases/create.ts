/**
 * createRole (event role_create): a role, `inactive` until its approval. Only
 * permissions the caller holds; level 1 only by level-1 users and only
 * through an approval with approvers (README "No privilege beyond your own").
 */
import { randomUUID } from 'node:crypto';
import { actorFromIdentity } from '../../_platform/actor';
import { normalizePermissions, type RoleChange } from '../rules';
import type { RoleEntity } from '../types';
import type { CreateRoleInput } from '../../../schemas/RoleManager/inputs';
import { refuseEscalation, requestRoleChange } from './change';
import { checkName, checkPermissions, now, writable, type RoleCtx } from './common';

export async function createRole(ctx: RoleCtx<CreateRoleInput>) {
  const body = ctx.request.body;
  const s = writable(ctx);
  const name = body.name.trim();
  checkName(s.roles, name);
  const permissions = normalizePermissions(body.permissions);
  checkPermissions(ctx, permissions);
  const actor = actorFromIdentity(ctx.identity);
  const at = now();
  const role: RoleEntity = {
    id: randomUUID(),
    name,
    ...(body.description !== undefined ? { description: body.description } : {}),
    level: body.level ?? 10,
    createdBy: { id: actor.id, type: actor.type, ...(actor.name ? { name: actor.name } : {}) },
    permissions,
    status: 'inactive',
    createdAt: at,
    updatedAt: at,
  };
  const change: RoleChange = { kind: 'create', role };
  await refuseEscalation(ctx, change);
  const answer = await requestRoleChange(ctx, s, {
    event: 'role_create',
    change,
    old: null,
    requested: role,
    pendingApprovalId: null,
  });
  ctx.response.status = 201;
  return answer;
}
