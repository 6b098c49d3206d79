/** reviewApproval: approve or reject a pending record; the originating class's callback is queued with the review's commit. */
import { ActorError, type Ctx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { callbackBody, reviewerWithRoles, reviewOutcome, reviewRefusal } from '../rules';
import { approvalError } from '../errors';
import type { ApprovalManagerState } from '../types';
import type { ReviewApprovalInput } from '../../../schemas/ApprovalManager/inputs';
import { fullPatch, view } from './common';

interface InnerError {
  status?: number;
  code?: number | string;
  message: string;
  classId?: string;
}

/** A failed callback's error, for the 502's details. */
function describe(err: unknown): InnerError {
  if (err instanceof ActorError) {
    const body = err.toBody();
    return {
      status: err.status,
      code: body.code as number | string | undefined,
      message: err.message,
      classId: body.classId as string | undefined,
    };
  }
  return { message: (err as Error)?.message ?? String(err) };
}

export async function reviewApproval(ctx: Ctx<ApprovalManagerState, ReviewApprovalInput>) {
  const { action, note } = ctx.request.body;
  const record = ctx.state.public.approval;
  if (record.approvalStatus !== 'pending') {
    throw approvalError('APPROVAL_NOT_PENDING', `Approval ${record.id} is already ${record.approvalStatus}`, {
      approvalStatus: record.approvalStatus,
    });
  }
  const roles = await ctx.roles();
  const reviewer = reviewerWithRoles(actorFromIdentity(ctx.identity), roles);
  const refusal = reviewRefusal(record, action, reviewer, roles);
  if (refusal === 'APPROVER_NOT_ELIGIBLE') {
    throw approvalError(
      'APPROVER_NOT_ELIGIBLE',
      `Only holders of the active roles ${record.approvers.join(', ')} may review approval ${record.id}`,
      {
        approvers: record.approvers,
      },
    );
  }
  if (refusal === 'SELF_APPROVAL_NOT_ALLOWED') {
    throw approvalError(
      'SELF_APPROVAL_NOT_ALLOWED',
      `The maker of a change may not approve it: approval ${record.id} was made by ${record.actor.type} ${record.actor.id}`,
      {
        actor: { id: record.actor.id, type: record.actor.type },
      },
    );
  }
  const outcome = reviewOutcome(record, action, reviewer, new Date().toISOString(), note);
  const next = outcome.record;
  const patch = await fullPatch(ctx, record);
  const cb = outcome.callback;
  if (cb) {
    // queued with this commit: the callback runs only if the review is recorded
    try {
      const { jobId } = await ctx.enqueue(cb.classId, cb.methodName, cb.instanceId, callbackBody(next, action, patch));
      next.callbackJobId = jobId;
    } catch (err) {
      throw approvalError(
        'APPROVAL_CALLBACK_FAILED',
        `The ${action} callback ${cb.classId}.${cb.methodName} of approval ${record.id} failed: ${(err as Error).message}`,
        {
          callback: cb,
          error: describe(err),
        },
      );
    }
  }
  ctx.state.public.approval = next;
  return view(ctx, next, patch);
}
