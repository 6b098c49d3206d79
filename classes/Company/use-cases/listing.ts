/** listCompanies: the `companies` collection of the document store (filters, search, paging in rules.ts). */
import { pageInfo } from '../../_platform/paging';
import type { ListCompaniesInput } from '../../../schemas/Company/inputs';
import { COMPANIES_COLLECTION, companyListQuery, companyScope, listedCompany } from '../rules';
import { guardSingleton, type CompanyReadCtx } from './common';

export async function listCompanies(ctx: CompanyReadCtx<ListCompaniesInput>) {
  guardSingleton(ctx);
  const q = companyListQuery(ctx.request.body, companyScope(ctx.identity));
  const { items, total } = await ctx.documents.find<Record<string, unknown>>(COMPANIES_COLLECTION, q.filter, {
    sort: q.sort,
    skip: q.skip,
    limit: q.limit,
  });
  return { items: items.map(listedCompany), ...pageInfo(total, q.page, q.limit) };
}
