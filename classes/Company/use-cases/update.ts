/** updateCompany: any spec 2.2 field but status (update_company). */
import { refuseWhilePending } from '../../_platform/gated-change';
import {
  applyCompanyUpdate,
  assertMayReach,
  checkCompanyUnique,
  checkReferences,
  companyScope,
  referencedFields,
} from '../rules';
import { activeSettings } from '../settings-client';
import type { UpdateCompanyInput } from '../../../schemas/Company/inputs';
import { changeCompany } from './change';
import { COMPANY_EVENTS, now, requireCompany, whilePending, writable, type CompanyCtx } from './common';

export async function updateCompany(ctx: CompanyCtx<UpdateCompanyInput>) {
  const state = writable(ctx);
  const input = ctx.request.body;
  assertMayReach(companyScope(ctx.identity), input.id);
  const old = requireCompany(state.companies, input.id);
  // a waiting company is refused before its input is judged (409 6015 whatever the update)
  refuseWhilePending(old.pendingApprovalId, whilePending(old.id));
  const requested = applyCompanyUpdate(old, input, now());
  checkCompanyUnique(state.companies, requested, { isNew: false });
  const fields = referencedFields(input);
  if (fields.length) checkReferences(requested, fields, await activeSettings(ctx));
  return changeCompany(ctx, state, COMPANY_EVENTS.update, old, requested);
}
