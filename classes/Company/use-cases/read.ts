/** getCompany: one company by id or bgId (body or query). */
import type { DeepReadonly } from '../../../runtime';
import { ownEntry } from '../../_platform/records';
import { companyError } from '../errors';
import { assertMayReach, companyScope, findByBgId } from '../rules';
import type { Company as CompanyRecord, CompanyLookupInput } from '../types';
import { param, readable, type CompanyReadCtx } from './common';

export function getCompany(ctx: CompanyReadCtx<CompanyLookupInput>): DeepReadonly<CompanyRecord> {
  const state = readable(ctx);
  const id = param(ctx, 'id');
  const bgId = param(ctx, 'bgId');
  let company: DeepReadonly<CompanyRecord> | undefined;
  if (typeof id === 'string' && id) company = ownEntry(state.companies, id);
  else if (typeof bgId === 'string' && bgId) company = findByBgId(state.companies, bgId);
  else
    throw companyError('COMPANY_INVALID_QUERY', 'Give the company id or bgId', {
      errors: [{ field: 'id', reason: 'id or bgId is required' }],
    });
  const scope = companyScope(ctx.identity);
  if (!company) {
    // a company user learns nothing about other companies: 403 whether or not they exist
    if (scope.kind === 'own') assertMayReach(scope, typeof id === 'string' ? id : '');
    throw companyError(
      'COMPANY_NOT_FOUND',
      id
        ? `No company with id '${typeof id === 'string' ? id : JSON.stringify(id)}'`
        : `No company with bgId '${typeof bgId === 'string' ? bgId : JSON.stringify(bgId)}'`,
      id ? { id } : { bgId },
    );
  }
  assertMayReach(scope, company.id);
  return company;
}
