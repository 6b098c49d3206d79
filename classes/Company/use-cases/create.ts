/** The singleton's creation (init) and createCompany (spec 3.3: a new company is `pending` until `company_create` is approved). */
import { randomUUID } from 'node:crypto';
import { actorFromIdentity } from '../../_platform/actor';
import { requestGatedChange } from '../../_platform/gated-change';
import {
  assertInternal,
  checkCompanyUnique,
  checkReferences,
  companyScope,
  fromEntity,
  newCompany,
  referencedFields,
  toEntity,
} from '../rules';
import { activeSettings } from '../settings-client';
import type { CreateCompanyInput } from '../../../schemas/Company/inputs';
import { APPROVAL_CALLBACK, COMPANY_EVENTS, logCompany, now, whilePending, writable, type CompanyCtx } from './common';

/** Creates the singleton (instance `default`) without companies. */
export function init(ctx: CompanyCtx) {
  ctx.state.private.companies = {};
  return { id: ctx.instanceId, companies: 0 };
}

/**
 * A new company, stored `pending` (or as the workflow approved it at once)
 * and audit-logged either way; its references must be active settings.
 */
export async function createCompany(ctx: CompanyCtx<CreateCompanyInput>) {
  const state = writable(ctx);
  assertInternal(companyScope(ctx.identity), 'create companies');
  const input = ctx.request.body;
  const company = newCompany(input, actorFromIdentity(ctx.identity), now(), input.id ?? randomUUID());
  checkCompanyUnique(state.companies, company, { isNew: true });
  checkReferences(company, referencedFields(input), await activeSettings(ctx));
  const change = await requestGatedChange(ctx, {
    event: COMPANY_EVENTS.create,
    entityId: company.id,
    oldEntity: null,
    newEntity: toEntity(company),
    // a new company waits for nothing yet
    pendingApprovalId: null,
    whilePending: whilePending(company.id),
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
    // the record belongs to the company it creates: that company's users see it
    companyId: company.id,
  });
  const stored = change.applied
    ? fromEntity(change.entity, null)
    : { ...company, pendingApprovalId: change.approvalId };
  state.companies[company.id] = stored;
  await logCompany(ctx, company.id, null, stored, {
    event: COMPANY_EVENTS.create,
    approvalId: change.approvalRecord.id,
  });
  ctx.response.status = 201;
  return { company: stored, approval: change.approval, newStatus: change.newStatus };
}
