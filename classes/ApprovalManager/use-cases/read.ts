/** getApproval: one record with its before/after view, for its approvers and holders of the permission. */
import type { ReadCtx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { canReview } from '../rules';
import type { ApprovalManagerState } from '../types';
import type { GetApprovalInput } from '../../../schemas/ApprovalManager/inputs';
import { requirePermissionUnless, view } from './common';

export async function getApproval(ctx: ReadCtx<ApprovalManagerState, GetApprovalInput>) {
  const record = ctx.state.public.approval;
  if (ctx.identity.type === 'program_management_user') {
    const eligible = canReview(actorFromIdentity(ctx.identity), record.approvers, await ctx.roles());
    await requirePermissionUnless(ctx, eligible, `it is no approver of approval ${record.id}`);
  }
  return view(ctx, record);
}
