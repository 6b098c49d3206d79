/**
 * Manual stream of one company (spec 4.5: a READ, by company id). A READ
 * cannot commit, so streamCompany queues restreamCompany, whose commit
 * re-projects the companies.
 */
import { companyError } from '../errors';
import { assertMayReach, COMPANIES_COLLECTION, companyScope } from '../rules';
import type { StreamCompanyInput } from '../../../schemas/Company/inputs';
import {
  COMPANY_INSTANCE,
  now,
  readable,
  requireCompany,
  writable,
  type CompanyCtx,
  type CompanyReadCtx,
} from './common';

/**
 * The job id of a queued call's answer (202 {jobId, status, statusUrl}).
 * Read with a check rather than through the typed client: a client types a
 * method's answer as its handler's return, which a QUEUED_WRITE's caller
 * never gets.
 */
function jobIdOf(answer: unknown): string {
  if (answer && typeof answer === 'object' && 'jobId' in answer && typeof answer.jobId === 'string')
    return answer.jobId;
  throw new Error(`Company.restreamCompany answered no job id: ${JSON.stringify(answer)}`);
}

/** Answers 202 {id, queued, jobId, collection}. */
export async function streamCompany(ctx: CompanyReadCtx<StreamCompanyInput>) {
  const state = readable(ctx);
  const { id } = ctx.request.body;
  if (!id)
    throw companyError('COMPANY_INVALID_QUERY', 'id is required', { errors: [{ field: 'id', reason: 'is required' }] });
  assertMayReach(companyScope(ctx.identity), id);
  requireCompany(state.companies, id);
  const queued = await ctx.call('Company', 'restreamCompany', COMPANY_INSTANCE, { id });
  ctx.response.status = 202;
  return { id, queued: true, jobId: jobIdOf(queued.body), collection: COMPANIES_COLLECTION };
}

/** streamCompany's write: records the request, so that the commit re-projects the companies. */
export function restreamCompany(ctx: CompanyCtx<{ id: string }>) {
  const state = writable(ctx);
  const { id } = ctx.request.body;
  requireCompany(state.companies, id);
  state.lastStreamed = { id, at: now() };
  return { streamed: true, id };
}
