/**
 * An entity moved to another company while its change waits for approval
 * (the HR system moves a member): the waiting record moves with it, so the
 * new company's approvers see and review it and the old company's no longer
 * do. Only the class whose entity the record changes may move it, and only
 * while it is pending (a reviewed record stays where it was reviewed).
 */
import type { Ctx } from '../../../runtime';
import { approvalError } from '../errors';
import type { ApprovalManagerState } from '../types';
import type { MoveApprovalCompanyInput } from '../../../schemas/ApprovalManager/inputs';

/** Pure: why the caller may not move the record (null: it may), as ApprovalManager's error name. */
export function companyMoveRefusal(
  record: { classId: string; approvalStatus: string },
  callerClassId: string | undefined,
): 'APPROVAL_CALLBACK_CLASS_MISMATCH' | 'APPROVAL_NOT_PENDING' | null {
  if (callerClassId !== record.classId) return 'APPROVAL_CALLBACK_CLASS_MISMATCH';
  if (record.approvalStatus !== 'pending') return 'APPROVAL_NOT_PENDING';
  return null;
}

export function moveApprovalCompany(ctx: Ctx<ApprovalManagerState, MoveApprovalCompanyInput>) {
  const record = ctx.state.public.approval;
  const caller = ctx.identity.type === 'class' ? ctx.identity.classId : undefined;
  const refusal = companyMoveRefusal(record, caller);
  if (refusal === 'APPROVAL_CALLBACK_CLASS_MISMATCH') {
    throw approvalError(refusal, `Only ${record.classId} moves its approval records, not ${caller ?? 'this caller'}`, {
      approvalId: record.id,
    });
  }
  if (refusal)
    throw approvalError(
      refusal,
      `Approval ${record.id} is ${record.approvalStatus}: it stays with the company it was reviewed in`,
      { approvalId: record.id },
    );
  const from = record.companyId ?? null;
  const to = ctx.request.body.companyId;
  if (from === to) return { approvalId: record.id, companyId: to, moved: false };
  record.companyId = to;
  record.updatedAt = new Date().toISOString();
  return { approvalId: record.id, companyId: to, from, moved: true };
}
