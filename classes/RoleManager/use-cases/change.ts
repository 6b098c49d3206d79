/**
 * A role change through the approval gate (createRole, updateRole,
 * updateStatus): the refusals judged before the workflow runs (README "No
 * privilege beyond your own"), the approval-gated change
 * (classes/_platform/gated-change.ts), the level-1 check on its result, and
 * apply or hold.
 */
import { client, type BaseCtx } from '../../../runtime';
import { actorFromIdentity, isPrivilegedActor } from '../../_platform/actor';
import { requestGatedChange } from '../../_platform/gated-change';
import { isDeveloperOrSystem } from '../../_platform/privileged';
import { currentStatusFor } from '../../_platform/workflow';
import type { Workflow } from '../../Workflow/Workflow.class';
import {
  changeRefusal,
  escalationRefusal,
  holdingOf,
  levelOneApprovalRefusal,
  touchesLevelOne,
  type Holding,
  type RoleChange,
} from '../rules';
import { roleError } from '../errors';
import type { RoleEntity, RoleManagerState, StoredRole } from '../types';
import { APPROVE, enqueueDeployment, logRoleChange, type RoleCtx, type WorkflowEvent } from './common';

/** 409 9003: the role waits for an approval. */
function pendingError(role: Pick<RoleEntity, 'id' | 'status'>) {
  return (approvalId: string) =>
    roleError('ROLE_PENDING_APPROVAL', `Role '${role.id}' waits for approval ${approvalId}`, {
      id: role.id,
      status: role.status,
      pendingApprovalId: approvalId,
    });
}

/** Whether the change may start (domain.ts changeRefusal): 409 9004 built-in, 9003 pending, 9008 same status; 400 9010. */
export function refuseChange(role: StoredRole, change: Parameters<typeof changeRefusal>[1]): void {
  const refusal = changeRefusal(role, change);
  if (!refusal) return;
  const messages: Record<string, string> = {
    ROLE_BUILT_IN: `The built-in role '${role.id}' cannot be changed`,
    ROLE_PENDING_APPROVAL: `Role '${role.id}' waits for approval ${role.pendingApprovalId}`,
    ROLE_STATUS_UNCHANGED: `Role '${role.id}' is already ${role.status}`,
    ROLE_INVALID_INPUT: `Invalid status`,
  };
  throw roleError(refusal, messages[refusal] ?? refusal, {
    id: role.id,
    status: role.status,
    pendingApprovalId: role.pendingApprovalId,
  });
}

/** What the caller may grant: everything for the system identity and developers, else what its active roles grant. */
async function callerHolding(ctx: Pick<BaseCtx, 'identity' | 'roles'>): Promise<Holding> {
  if (isDeveloperOrSystem(ctx.identity)) return { all: true };
  return holdingOf(await ctx.roles());
}

/** No privilege beyond your own (domain.ts escalationRefusal): 403 9012, 9013 or 9014. */
export async function refuseEscalation(ctx: Pick<BaseCtx, 'identity' | 'roles'>, change: RoleChange): Promise<void> {
  const refusal = escalationRefusal(change, await callerHolding(ctx), ctx.identity.roles ?? []);
  if (refusal) throw roleError(refusal.error, refusal.message, refusal.details);
}

/** 403 9015 when a level-1 change would not wait for an approval with approvers. */
function levelOneRefusal(
  ctx: Pick<BaseCtx, 'identity'>,
  change: RoleChange,
  ruleApprovers: readonly string[],
  autoApproved: boolean,
): void {
  const refusal = levelOneApprovalRefusal({
    levelOne: touchesLevelOne(change),
    system: ctx.identity.type === 'system',
    ruleApprovers,
    autoApproved,
  });
  if (refusal)
    throw roleError(refusal.error, refusal.message, { reason: refusal.reason, approvers: [...ruleApprovers] });
}

/**
 * A level-1 role change waits for an approval with approvers (403 9015
 * otherwise). Judged before the workflow runs, so a refused change leaves no
 * approval record: the rule the workflow will pick (Workflow.run, through
 * its typed client), and the developer bypass that would approve it at once.
 * The gated change's result is checked again after (the rules may change in
 * between).
 */
async function requireLevelOneApproval(
  ctx: RoleCtx<unknown>,
  change: RoleChange,
  event: WorkflowEvent,
  oldEntity: RoleEntity | null,
  newEntity: RoleEntity,
): Promise<void> {
  if (!touchesLevelOne(change) || ctx.identity.type === 'system') return;
  const actor = actorFromIdentity(ctx.identity);
  const { rule } = await client<typeof Workflow>(ctx, 'Workflow').run(undefined, {
    classId: ctx.classId,
    event,
    currentStatus: currentStatusFor(oldEntity, newEntity),
    entity: newEntity,
    actor,
  });
  levelOneRefusal(ctx, change, rule.approvers, isPrivilegedActor(actor));
}

export interface RoleChangeRequest {
  event: WorkflowEvent;
  change: RoleChange;
  /** the role before the change; null on creation */
  old: RoleEntity | null;
  requested: RoleEntity;
  /** the approval the role waits for (null on creation) */
  pendingApprovalId: string | null;
}

/**
 * Runs the approval-gated change. Auto-approved: the change applies now, is
 * logged, and a deployment is queued. Manual: the role keeps its state (a
 * new role is stored `inactive`, and logged as created) and remembers the
 * approval it waits for; the approve callback finishes the change.
 */
export async function requestRoleChange(ctx: RoleCtx<unknown>, s: RoleManagerState, r: RoleChangeRequest) {
  const { event, change, old, requested } = r;
  const id = requested.id;
  await requireLevelOneApproval(ctx, change, event, old, requested);
  const gated = await requestGatedChange(ctx, {
    event,
    entityId: id,
    oldEntity: old,
    newEntity: requested,
    approveCallback: APPROVE,
    rejectCallback: APPROVE,
    pendingApprovalId: r.pendingApprovalId,
    whilePending: pendingError(old ?? requested),
  });
  levelOneRefusal(ctx, change, gated.workflow.rule.approvers, gated.applied);
  let deploymentJobId: string | null = null;
  if (gated.applied) {
    s.roles[id] = { ...gated.entity, pendingApprovalId: null };
    await logRoleChange(ctx, id, old, gated.entity, { event, approvalId: gated.approvalRecord.id });
    deploymentJobId = await enqueueDeployment(ctx, event);
  } else {
    s.roles[id] = { ...(old ?? requested), pendingApprovalId: gated.approvalId };
    if (!old) await logRoleChange(ctx, id, null, requested, { event, approvalId: gated.approvalId });
  }
  ctx.emit(event, {
    roleId: id,
    approvalId: gated.approvalRecord.id,
    approvalStatus: gated.approvalRecord.approvalStatus,
  });
  return { role: s.roles[id], approval: gated.approval, deploymentJobId };
}
