/** updateStatus (event role_status_update): active or inactive. */
import { entityOf, type RoleChange } from '../rules';
import type { RoleEntity } from '../types';
import type { UpdateStatusInput } from '../../../schemas/RoleManager/inputs';
import { refuseChange, refuseEscalation, requestRoleChange } from './change';
import { findRole, now, writable, type RoleCtx } from './common';

export async function updateStatus(ctx: RoleCtx<UpdateStatusInput>) {
  const body = ctx.request.body;
  const s = writable(ctx);
  const stored = findRole(Object.values(s.roles), body.id);
  refuseChange(stored, { kind: 'status', status: body.status });
  const old = entityOf(stored);
  const requested: RoleEntity = { ...old, status: body.status, updatedAt: now() };
  const change: RoleChange = { kind: 'status', old, status: body.status };
  await refuseEscalation(ctx, change);
  return requestRoleChange(ctx, s, {
    event: 'role_status_update',
    change,
    old,
    requested,
    pendingApprovalId: stored.pendingApprovalId,
  });
}
