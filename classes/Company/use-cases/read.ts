/** getCompany: one company by id or bgId (POST body or GET query, checked by the schema). */
import type { DeepReadonly } from '../../../runtime';
import { ownEntry } from '../../_platform/records';
import { companyError } from '../errors';
import { assertMayReach, companyScope, findByBgId } from '../rules';
import type { GetCompanyInput } from '../../../schemas/Company/inputs';
import type { Company as CompanyRecord } from '../types';
import { readable, type CompanyReadCtx } from './common';

export function getCompany(ctx: CompanyReadCtx<GetCompanyInput>): DeepReadonly<CompanyRecord> {
  const state = readable(ctx);
  const { id, bgId } = ctx.request.body;
  let company: DeepReadonly<CompanyRecord> | undefined;
  if (id) company = ownEntry(state.companies, id);
  else if (bgId) company = findByBgId(state.companies, bgId);
  else
    throw companyError('COMPANY_INVALID_QUERY', 'Give the company id or bgId', {
      errors: [{ field: 'id', reason: 'id or bgId is required' }],
    });
  const scope = companyScope(ctx.identity);
  if (!company) {
    // a company user learns nothing about other companies: 403 whether or not they exist
    if (scope.kind === 'own') assertMayReach(scope, id ?? '');
    throw companyError(
      'COMPANY_NOT_FOUND',
      id ? `No company with id '${id}'` : `No company with bgId '${bgId}'`,
      id ? { id } : { bgId },
    );
  }
  assertMayReach(scope, company.id);
  return company;
}
