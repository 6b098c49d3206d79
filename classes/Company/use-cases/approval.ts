/**
 * approveCompany, the approval callback (approve and reject) of every
 * Company event, settled by the platform's settleGatedChange. Approve: the
 * approved patch is applied. Reject: nothing changes, except that a company
 * whose creation is rejected becomes `inactive`. An approved change that no
 * longer fits (patch conflict, bgId taken meanwhile) is not applied; the
 * company stops waiting and the result says why (code 6017).
 */
import { ActorError } from '../../../runtime';
import { settleGatedChange } from '../../_platform/gated-change';
import { PatchConflictError, type ApprovalCallbackBody } from '../../_platform/workflow';
import { ownEntry } from '../../_platform/records';
import { COMPANY_PATCH_CONFLICT, companyError } from '../errors';
import { afterRejection, checkCompanyUnique, fromEntity, toEntity } from '../rules';
import type { Company as CompanyRecord } from '../types';
import { logCompany, now, writable, type CompanyCtx } from './common';

export async function approveCompany(ctx: CompanyCtx<ApprovalCallbackBody>) {
  const state = writable(ctx);
  const body = ctx.request.body;
  const mismatch = (waiting: string | null) =>
    companyError(
      'COMPANY_APPROVAL_MISMATCH',
      `Approval ${body.approvalId} is not the one company '${body.entityId}' waits for`,
      { id: body.entityId, waiting },
    );
  const current = ownEntry(state.companies, body.entityId);
  if (!current) throw mismatch(null);
  const outcome = settleGatedChange(toEntity(current), body, {
    pendingApprovalId: current.pendingApprovalId,
    mismatch,
  });
  // no lastSettledApprovalId is given, so a callback is never answered as already settled: a second one is a mismatch
  if (outcome.kind === 'settled') return { applied: false, action: body.action, company: current };

  const released: CompanyRecord = { ...current, pendingApprovalId: null };
  state.companies[current.id] = released;
  const conflict = (reason: string) => {
    ctx.log.warn({ approvalId: body.approvalId, companyId: current.id, reason }, 'approved company change not applied');
    return { applied: false, action: body.action, code: COMPANY_PATCH_CONFLICT, reason, company: released };
  };
  let next: CompanyRecord;
  if (outcome.kind === 'conflict') return conflict(new PatchConflictError(outcome.problems).message);
  if (outcome.kind === 'approved') {
    next = fromEntity(outcome.entity, null);
    try {
      checkCompanyUnique(state.companies, next, { isNew: false });
    } catch (err) {
      if (err instanceof ActorError) return conflict(err.message);
      throw err;
    }
  } else {
    next = afterRejection(released, body.event, now());
    if (next === released) return { applied: false, action: body.action, company: released };
  }
  state.companies[current.id] = next;
  await logCompany(ctx, current.id, current, next, {
    event: body.event,
    approvalId: body.approvalId,
    action: body.action,
  });
  return { applied: true, action: body.action, company: next };
}
