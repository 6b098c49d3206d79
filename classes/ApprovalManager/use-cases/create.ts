/** Creating a record: prepareApproval (the record as it will be stored, nothing stored) and createApproval (stores it). */
import { randomUUID } from 'node:crypto';
import type { BaseCtx, Ctx, StaticCtx } from '../../../runtime';
import { approvalView, planApproval } from '../rules';
import { approvalError } from '../errors';
import type { ApprovalManagerState, CreateApprovalInput } from '../types';

/** The calling class (callbacks may only name it), for class identities. */
function callerOf(ctx: BaseCtx): string | undefined {
  return ctx.identity.type === 'class' ? ctx.identity.classId : undefined;
}

/** The record under a fresh id, as createApproval will store it from the same body. */
export function prepareApproval(ctx: StaticCtx<CreateApprovalInput>) {
  const input = ctx.request.body;
  const planned = planApproval(randomUUID(), input, callerOf(ctx), input.createdAt ?? new Date().toISOString());
  return approvalView(planned.record, planned.patch, planned.oldValues);
}

/** Stores the record under the instance id (its blobs first: blob writes are idempotent by name). */
export async function createApproval(ctx: Ctx<ApprovalManagerState, CreateApprovalInput>) {
  const input = ctx.request.body;
  const planned = planApproval(ctx.instanceId!, input, callerOf(ctx), input.createdAt ?? new Date().toISOString());
  const { record, patch, oldValues } = planned;
  for (const blob of planned.blobs) {
    try {
      await ctx.ports.blobs.put(blob.name, Buffer.from(blob.json, 'utf8'), 'application/json');
    } catch (err) {
      throw approvalError('APPROVAL_PATCH_STORE_FAILED', `Could not store the ${blob.what} of approval ${record.id}`, {
        file: blob.name,
        error: (err as Error).message,
      });
    }
  }
  ctx.state.public.approval = record;
  ctx.response.status = 201;
  return approvalView(record, patch, oldValues);
}
