/**
 * The one call entity classes make for a workflow event (spec 3.4, 6).
 *
 *   const wf = await runWorkflow(ctx, {
 *     event: 'company_create', entityId: id, oldEntity: null, newEntity: company,
 *     approveCallback: 'approveCompany', rejectCallback: 'approveCompany',
 *   });
 *   if (wf.isApproved) state.company = wf.simulatedApprovedState;   // auto: apply now
 *   else { state.company = company; state.pendingApprovalId = wf.approvalRecord.id; } // manual: wait
 *
 * and a callback method (QUEUED_WRITE, access ['class:ApprovalManager']) that
 * applies the change on approve with applyApprovalCallback.
 *
 * Steps: (1) Workflow.run picks the one rule for {class, event, current status,
 * new entity, actor}; (2) the new status is the rule's target (or, for `*`, the
 * status the new entity asks for); (3) jsonPatch = RFC 6902 diff from the old
 * entity (`{}` on creation) to the new entity with that status; (4)
 * ApprovalManager.prepareApproval answers the record as it will be stored,
 * approved automatically when the rule has no approvers or the actor is a
 * developer or the system, with the rule's allowSelfApproval and the old values
 * of the patched paths (for the reviewers' before/after view), and
 * ApprovalManager.createApproval is committed with the calling change as an
 * effect (ctx.effect): the record exists once, and only if the change commits;
 * (5) the simulated approved state is the patch applied to a copy of the old entity.
 *
 * Current status: the old entity's `status`; on creation (no old entity) the
 * status the create handler gave the new entity (e.g. `pending` for a company,
 * `inactive` for a role: spec 3.3 "workflow moves pending to active"). An
 * entity without a string `status` has current status `none`; rules with `*`
 * match every status.
 *
 * Auto approvals queue no callback: the calling handler applies
 * simulatedApprovedState itself, in the same atomic write that created the
 * approval (spec 3.2's "callback executed automatically", done inline).
 */
import { applyPatch, createPatch, type Operation } from 'rfc6902';
import { ActorError, type Ctx } from '../../runtime';
import type { ApprovalCallbackBody, ApprovalRecord } from './approvals';
import { oldValuesOf } from './old-values';
import { platformWorkflowError } from './errors';
import { actorFromIdentity } from './actor';
import { recordCompany } from './scope';

function companyOf(ctx: Ctx, explicit: string | undefined): { companyId?: string } {
  const companyId = recordCompany(ctx, explicit);
  return companyId === undefined ? {} : { companyId };
}

export type { ApprovalCallbackBody, ApprovalRecord } from './approvals';

/**
 * The rule Workflow.run matched, as the platform reads it (Workflow/types.ts
 * WorkflowRule is the full type; it fits this shape).
 */
export interface MatchedRule {
  event: string | number;
  currentStatus: string;
  targetStatus: string;
  /** role names; empty = auto-approve */
  approvers: string[];
  allowSelfApproval?: boolean;
  description?: string;
}

/** Status used as the current status of an entity that has none. */
export const NO_STATUS = 'none';

export interface RunWorkflowInput<T extends object> {
  /** workflow event name (spec 6) */
  event: string;
  /** the entity's id (for singletons: the id of the record inside the instance) */
  entityId: string;
  /** the entity before the change; null on creation */
  oldEntity: T | null;
  /** the entity as requested (its `status` is the requested status) */
  newEntity: T;
  /** method of the calling class run (QUEUED_WRITE) when the approval is approved */
  approveCallback: string;
  /** method run when the approval is rejected (none when omitted) */
  rejectCallback?: string;
  additionalData?: Record<string, unknown>;
  /** rule set to use when it is not the calling class's own (e.g. Partner's venues use `Venue`) */
  workflowClassId?: string;
  /** the company the entity belongs to (company scope); default: recordCompany (the instance's owner, else the caller's company) */
  companyId?: string;
}

export interface RunWorkflowResult<T extends object> {
  /** true for auto approvals: apply simulatedApprovedState now */
  isApproved: boolean;
  approvalRecord: ApprovalRecord;
  /** the status the entity has once approved */
  newStatus: string | undefined;
  /** the old entity with the patch applied (what the entity becomes once approved) */
  simulatedApprovedState: T;
  rule: MatchedRule;
}

export interface WorkflowChange<T extends object> {
  newStatus: string | undefined;
  jsonPatch: Operation[];
  simulatedApprovedState: T;
}

function statusOf(entity: object | null | undefined): string | undefined {
  const s = (entity as { status?: unknown } | null | undefined)?.status;
  return typeof s === 'string' ? s : undefined;
}

/** The current status a rule is matched against (see the module comment). */
export function currentStatusFor(oldEntity: object | null, newEntity: object): string {
  return statusOf(oldEntity ?? newEntity) ?? NO_STATUS;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Thrown by applyApprovalCallback when the patch no longer fits the entity. */
export class PatchConflictError extends Error {
  constructor(readonly problems: string[]) {
    super(`The approved change no longer applies to the entity: ${problems.join('; ')}`);
    this.name = 'PatchConflictError';
  }
}

function apply<T>(target: T, patch: Operation[]): T {
  const copy = clone(target) ?? ({} as T);
  const results = applyPatch(copy, patch);
  const problems = results.flatMap((r, i) => (r ? [`${patch[i].op} ${patch[i].path}: ${r.message || r.name}`] : []));
  if (problems.length) throw new PatchConflictError(problems);
  return copy;
}

/** Pure: the status, patch and simulated state of a change under a rule's target status. */
export function computeWorkflowChange<T extends object>(
  oldEntity: T | null,
  newEntity: T,
  targetStatus: string | null | undefined,
): WorkflowChange<T> {
  const newStatus = targetStatus ?? statusOf(newEntity);
  const target = newStatus === undefined ? clone(newEntity) : { ...clone(newEntity), status: newStatus };
  const base = oldEntity ?? ({} as T);
  const jsonPatch = createPatch(base, target);
  return { newStatus, jsonPatch, simulatedApprovedState: apply(base, jsonPatch) };
}

/**
 * Pure: the entity after an approval callback. approve → the patch applied to
 * a copy of `current`, and, when the entity has an `updatedAt` field, that
 * field set to `now` (the time the approved change is applied, not the time
 * it was requested); reject → `current` unchanged. Throws PatchConflictError
 * when the patch does not apply (the entity changed in between).
 */
export function applyApprovalCallback<T>(
  current: T,
  body: Pick<ApprovalCallbackBody, 'action' | 'jsonPatch'>,
  now: string = new Date().toISOString(),
): T {
  if (body.action !== 'approve') return current;
  const applied = apply(current, body.jsonPatch);
  if (
    applied !== null &&
    typeof applied === 'object' &&
    !Array.isArray(applied) &&
    Object.prototype.hasOwnProperty.call(applied, 'updatedAt')
  ) {
    (applied as unknown as { updatedAt: unknown }).updatedAt = now;
  }
  return applied;
}

/** Run the workflow of an event on the calling entity (INIT, WRITE or QUEUED_WRITE handlers). */
export async function runWorkflow<T extends object>(
  ctx: Ctx,
  input: RunWorkflowInput<T>,
): Promise<RunWorkflowResult<T>> {
  if (!ctx.instanceId) throw new Error(`runWorkflow needs an instance: ${ctx.classId}.${ctx.method} is ${ctx.kind}`);
  const actor = actorFromIdentity(ctx.identity);
  const currentStatus = currentStatusFor(input.oldEntity, input.newEntity);
  const run = await ctx.call('Workflow', 'run', undefined, {
    classId: input.workflowClassId ?? ctx.classId,
    event: input.event,
    currentStatus,
    entity: input.newEntity,
    actor,
  });
  const { rule, targetStatus } = run.body as { rule: MatchedRule; targetStatus: string | null };
  let change: WorkflowChange<T>;
  try {
    change = computeWorkflowChange(input.oldEntity, input.newEntity, targetStatus);
  } catch (err) {
    if (err instanceof ActorError) throw err;
    throw platformWorkflowError(
      'WORKFLOW_PATCH_FAILED',
      `Could not build the change of ${ctx.classId} ${input.entityId}: ${(err as Error).message}`,
    );
  }
  const callback = (methodName: string) => ({
    event: input.event,
    classId: ctx.classId,
    instanceId: ctx.instanceId!,
    methodName,
  });
  const approval = {
    event: input.event,
    instanceId: ctx.instanceId,
    entityId: input.entityId,
    entityOldStatus: statusOf(input.oldEntity) ?? null,
    entityNewStatus: change.newStatus ?? null,
    jsonPatch: change.jsonPatch,
    // what the patched paths held: the approval's before/after view (ApprovalManager/changes.ts)
    oldValues: oldValuesOf(input.oldEntity ?? {}, change.jsonPatch),
    actor,
    approvers: rule.approvers,
    allowSelfApproval: rule.allowSelfApproval === true,
    approveCallback: callback(input.approveCallback),
    ...(input.rejectCallback ? { rejectCallback: callback(input.rejectCallback) } : {}),
    additionalData: input.additionalData ?? {},
    ...companyOf(ctx, input.companyId),
    createdAt: new Date().toISOString(),
  };
  // the record as it will be stored (a read), then its creation committed with this change (an effect):
  // a change that throws or fails to commit leaves no approval record behind
  const approvalRecord = (await ctx.call('ApprovalManager', 'prepareApproval', undefined, approval))
    .body as ApprovalRecord;
  await ctx.effect({
    classId: 'ApprovalManager',
    method: 'createApproval',
    instanceId: approvalRecord.id,
    body: approval,
  });
  return {
    isApproved: approvalRecord.approvalStatus === 'approved',
    approvalRecord,
    newStatus: change.newStatus,
    simulatedApprovedState: change.simulatedApprovedState,
    rule,
  };
}

/** What entity classes answer about the approval a change created (the full record is ApprovalManager's). */
export function approvalSummary(record: ApprovalRecord) {
  return {
    id: record.id,
    event: record.event,
    approvalStatus: record.approvalStatus,
    approvalType: record.approvalType,
    approvers: record.approvers,
    entityOldStatus: record.entityOldStatus,
    entityNewStatus: record.entityNewStatus,
  };
}
