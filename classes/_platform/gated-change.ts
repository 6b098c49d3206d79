/**
 * The approval-gated change (spec 3.2, 3.4): the one way an entity class
 * changes an entity whose changes need approval.
 *
 *   1. guard: an entity that waits for an approval takes no other change;
 *   2. run the workflow for the event (runWorkflow: the approval record is
 *      committed with the change as an effect);
 *   3. apply (auto approval: the entity becomes the simulated approved state
 *      now) or hold (manual: the entity keeps its state and remembers the
 *      approval it waits for);
 *   4. callback: the class's approve/reject method settles the held change
 *      with settleGatedChange (a pure function): the patch applied on
 *      approve, nothing on reject, a conflict when the patch no longer fits,
 *      and a redelivered callback recognised as already settled.
 *
 * Where the entity keeps its pending approval id (a field of the record, a
 * `pendingChange` beside it, a map of pending approvals) is the class's
 * business: the class passes the id it holds and stores the outcome.
 *
 *   const change = await requestGatedChange(ctx, {
 *     event, entityId: old.id, oldEntity: old, newEntity: requested,
 *     pendingApprovalId: old.pendingApprovalId,
 *     whilePending: (approvalId) => companyError('COMPANY_APPROVAL_PENDING', ..., { approvalId }),
 *     approveCallback: 'approveCompany', rejectCallback: 'approveCompany',
 *   });
 *   state.companies[id] = change.applied ? change.entity : { ...old, pendingApprovalId: change.approvalId };
 *
 *   // in approveCompany (QUEUED_WRITE, access ['class:ApprovalManager'])
 *   const outcome = settleGatedChange(current, body, { pendingApprovalId: current.pendingApprovalId,
 *     mismatch: (waiting) => companyError('COMPANY_APPROVAL_MISMATCH', ...) });
 */
import type { ActorError, Ctx } from '../../runtime';
import type { ApprovalCallbackBody, ApprovalRecord } from './approvals';
import {
  applyApprovalCallback,
  approvalSummary,
  PatchConflictError,
  runWorkflow,
  type RunWorkflowInput,
  type RunWorkflowResult,
} from './workflow';

/** Pure: throws the class's error when the entity already waits for an approval. */
export function refuseWhilePending(
  pendingApprovalId: string | null | undefined,
  whilePending: (approvalId: string) => ActorError,
): void {
  if (pendingApprovalId) throw whilePending(pendingApprovalId);
}

export interface GatedChangeInput<T extends object> extends RunWorkflowInput<T> {
  /** the approval the entity waits for now (null/undefined: none) */
  pendingApprovalId: string | null | undefined;
  /** the class's error for a change requested while the entity waits */
  whilePending: (approvalId: string) => ActorError;
}

interface GatedChangeCommon<T extends object> {
  approvalRecord: ApprovalRecord;
  /** what entity classes answer about the approval (approvalSummary) */
  approval: ReturnType<typeof approvalSummary>;
  /** the status the entity has once approved */
  newStatus: string | null;
  workflow: RunWorkflowResult<T>;
}

/** The entity changed now: store `entity` (the simulated approved state). */
export interface AppliedChange<T extends object> extends GatedChangeCommon<T> {
  applied: true;
  entity: T;
}

/** The change waits for `approvalId`: keep the entity, remember the id. */
export interface HeldChange<T extends object> extends GatedChangeCommon<T> {
  applied: false;
  approvalId: string;
}

export type GatedChange<T extends object> = AppliedChange<T> | HeldChange<T>;

/** Steps 1-3: guard, run the workflow, answer whether the change applies now or waits. */
export async function requestGatedChange<T extends object>(
  ctx: Ctx,
  input: GatedChangeInput<T>,
): Promise<GatedChange<T>> {
  const { pendingApprovalId, whilePending, ...workflowInput } = input;
  refuseWhilePending(pendingApprovalId, whilePending);
  const wf = await runWorkflow(ctx, workflowInput);
  const common = {
    approvalRecord: wf.approvalRecord,
    approval: approvalSummary(wf.approvalRecord),
    newStatus: wf.newStatus ?? null,
    workflow: wf,
  };
  if (wf.isApproved) return { ...common, applied: true, entity: wf.simulatedApprovedState };
  return { ...common, applied: false, approvalId: wf.approvalRecord.id };
}

export interface SettleOptions {
  /** the approval the entity waits for */
  pendingApprovalId: string | null | undefined;
  /** the last approval this entity settled: a callback for it again is a redelivery, answered `settled` */
  lastSettledApprovalId?: string | null;
  /** the class's error for a callback of an approval the entity does not wait for */
  mismatch: (waiting: string | null) => ActorError;
  /** the time an approved change is applied (updatedAt); default now */
  now?: string;
}

export type SettledChange<T> =
  /** approve: store `entity` and clear the pending id */
  | { kind: 'approved'; entity: T }
  /** reject: the entity keeps its state; clear the pending id */
  | { kind: 'rejected'; entity: T }
  /** approve, but the patch no longer fits the entity (it changed meanwhile): clear the pending id, keep the entity */
  | { kind: 'conflict'; entity: T; problems: string[] }
  /** the same callback again (redelivery): change nothing */
  | { kind: 'settled' };

/** Step 4, pure: what an approve/reject callback does to the entity that waits for it. */
export function settleGatedChange<T>(
  current: T,
  body: Pick<ApprovalCallbackBody, 'approvalId' | 'action' | 'jsonPatch'>,
  options: SettleOptions,
): SettledChange<T> {
  if (!options.pendingApprovalId || options.pendingApprovalId !== body.approvalId) {
    if (options.lastSettledApprovalId && options.lastSettledApprovalId === body.approvalId) return { kind: 'settled' };
    throw options.mismatch(options.pendingApprovalId ?? null);
  }
  if (body.action !== 'approve') return { kind: 'rejected', entity: current };
  try {
    return { kind: 'approved', entity: applyApprovalCallback(current, body, options.now) };
  } catch (err) {
    if (err instanceof PatchConflictError) return { kind: 'conflict', entity: current, problems: err.problems };
    throw err;
  }
}
