/**
 * Operator-only methods: the methods that write a class's
 * whole state or its workflow rules at once, past every workflow and
 * approval (RoleManager.setState, Setting.setState, Workflow.init /
 * setState / updateWorkflowConfiguration), are for the system identity (CLI,
 * seeds) and developers only.
 *
 * Their access lists keep `program_management_user` (developers are program
 * management users, and still pass the role check), so the role check alone
 * would let any level-1 user, or a level-10 user granted the method, rewrite
 * roles, settings or approval rules. This is the one place that narrows them:
 *
 *   assertDeveloperOrSystem(ctx, 'RoleManager.setState', (message, details) => roleError('ROLE_DEVELOPER_ONLY', message, details));
 *
 * The refusal is built by the calling class, so it carries the class's own
 * code (spec 7.1); it must be a 403.
 */
import type { Ctx, Identity } from '../../runtime';
import { actorFromIdentity } from './actor';

/** Pure: the system identity (CLI, seeds) or a developer (a program management user whose actor is `developer`). */
export function isDeveloperOrSystem(identity: Identity): boolean {
  if (identity.type === 'system') return true;
  return identity.type === 'program_management_user' && actorFromIdentity(identity).type === 'developer';
}

/** Builds the calling class's 403 error. */
export type Refusal = (message: string, details: Record<string, unknown>) => Error;

/**
 * Throws the refusal unless the caller is the system identity or a developer.
 * `what` names the operation in the message (e.g. `Setting.setState`).
 */
export function assertDeveloperOrSystem(ctx: Pick<Ctx, 'identity'>, what: string, refuse: Refusal): void {
  if (isDeveloperOrSystem(ctx.identity)) return;
  const identity = ctx.identity;
  throw refuse(`${what} is for the system identity and developers only`, {
    identityType: identity.type,
    ...(identity.type === 'class' ? { callerClassId: identity.classId } : {}),
  });
}
