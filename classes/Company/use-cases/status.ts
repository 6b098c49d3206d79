/** updateCompanyStatus: active or inactive (update_company_status; spec 3.3). */
import { refuseWhilePending } from '../../_platform/gated-change';
import { assertMayReach, checkCompanyStatusMove, companyScope } from '../rules';
import type { UpdateCompanyStatusInput } from '../../../schemas/Company/inputs';
import { changeCompany } from './change';
import { COMPANY_EVENTS, now, requireCompany, whilePending, writable, type CompanyCtx } from './common';

export async function updateCompanyStatus(ctx: CompanyCtx<UpdateCompanyStatusInput>) {
  const state = writable(ctx);
  const { id, status } = ctx.request.body;
  assertMayReach(companyScope(ctx.identity), id);
  const old = requireCompany(state.companies, id);
  // a waiting company is refused before the status is judged (409 6015 whatever the target)
  refuseWhilePending(old.pendingApprovalId, whilePending(old.id));
  const target = checkCompanyStatusMove(id, old.status, status);
  return changeCompany(ctx, state, COMPANY_EVENTS.status, old, { ...old, status: target, updatedAt: now() });
}
