/**
 * setState: an operator's restore tool (system identity and developers only,
 * 403 9016 for everyone else). Replaces the roles after validation; keeps the
 * built-in super role and the deployment record; audit-logged and deployed.
 * Not a workflow event.
 */
import { assertDeveloperOrSystem } from '../../_platform/privileged';
import { logChange } from '../../_platform/audit-log';
import { entityOf, stateFromInput, SUPER_ROLE_ID, superRole } from '../rules';
import type { SetStateInput } from '../../../schemas/RoleManager/inputs';
import { roleError } from '../errors';
import { catalogueOf, enqueueDeployment, now, ROLE_MANAGER_INSTANCE, writable, type RoleCtx } from './common';
import { problemsText } from '../../_platform/paging';

export async function setState(ctx: RoleCtx<SetStateInput>) {
  assertDeveloperOrSystem(ctx, 'RoleManager.setState', (message, details) =>
    roleError('ROLE_DEVELOPER_ONLY', message, details),
  );
  const body = ctx.request.body;
  const s = writable(ctx);
  const at = now();
  const result = stateFromInput(body.roles, catalogueOf(ctx), s.roles[SUPER_ROLE_ID] ?? superRole(at), at);
  if (!result.ok) {
    const summary = problemsText(result.errors);
    throw result.status === 'conflict'
      ? roleError('ROLE_NAME_TAKEN', `Role names must be unique: ${summary}`, { errors: result.errors })
      : roleError('ROLE_INVALID_STATE', `Invalid role state: ${summary}`, { errors: result.errors });
  }
  const before = Object.fromEntries(Object.values(s.roles).map((r) => [r.id, entityOf(r)]));
  const after = Object.fromEntries(Object.values(result.roles).map((r) => [r.id, entityOf(r)]));
  s.roles = result.roles;
  await logChange(ctx, {
    entityType: 'roles',
    entityId: ROLE_MANAGER_INSTANCE,
    before,
    after,
    additionalData: { event: 'setState' },
  });
  const deploymentJobId = await enqueueDeployment(ctx, 'setState');
  return { roles: Object.keys(s.roles).sort(), deploymentJobId };
}
