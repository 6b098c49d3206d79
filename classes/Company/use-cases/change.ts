/**
 * A change of an existing company (update_company, update_company_status)
 * through the platform's approval-gated change: refused while the company
 * waits for an approval, applied now when the workflow approves it at once
 * (and audit-logged), otherwise held until approveCompany settles it.
 */
import { requestGatedChange } from '../../_platform/gated-change';
import { fromEntity, toEntity } from '../rules';
import type { Company as CompanyRecord, CompanyState } from '../types';
import { APPROVAL_CALLBACK, logCompany, whilePending, type CompanyCtx } from './common';

export async function changeCompany(
  ctx: CompanyCtx<unknown>,
  state: CompanyState,
  event: string,
  old: CompanyRecord,
  requested: CompanyRecord,
) {
  const change = await requestGatedChange(ctx, {
    event,
    entityId: old.id,
    oldEntity: toEntity(old),
    newEntity: toEntity(requested),
    pendingApprovalId: old.pendingApprovalId,
    whilePending: whilePending(old.id),
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
    // the record belongs to the company it changes: that company's users see it
    companyId: old.id,
  });
  if (change.applied) {
    const applied = fromEntity(change.entity, null);
    state.companies[old.id] = applied;
    await logCompany(ctx, old.id, old, applied, { event, approvalId: change.approvalRecord.id });
  } else {
    state.companies[old.id] = { ...old, pendingApprovalId: change.approvalId };
  }
  return { company: state.companies[old.id], approval: change.approval, newStatus: change.newStatus };
}
