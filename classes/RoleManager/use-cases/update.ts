/** updateRole (event role_update): name, description (null removes it), permissions. */
import { applyChanges, entityOf, sameContent, type RoleChange } from '../rules';
import type { UpdateRoleInput } from '../../../schemas/RoleManager/inputs';
import { refuseChange, refuseEscalation, requestRoleChange } from './change';
import { checkName, checkPermissions, findRole, now, writable, type RoleCtx } from './common';

export async function updateRole(ctx: RoleCtx<UpdateRoleInput>) {
  const body = ctx.request.body;
  const s = writable(ctx);
  const stored = findRole(Object.values(s.roles), body.id);
  refuseChange(stored, { kind: 'update' });
  const old = entityOf(stored);
  const requested = applyChanges(old, body, now());
  if (body.name !== undefined) checkName(s.roles, requested.name, stored.id);
  if (body.permissions !== undefined) checkPermissions(ctx, requested.permissions);
  const change: RoleChange = { kind: 'update', old, next: requested };
  await refuseEscalation(ctx, change);
  // an update that changes nothing answers the role as it is, without an approval
  if (sameContent(old, requested)) return { role: stored, approval: null, deploymentJobId: null };
  return requestRoleChange(ctx, s, {
    event: 'role_update',
    change,
    old,
    requested,
    pendingApprovalId: stored.pendingApprovalId,
  });
}
