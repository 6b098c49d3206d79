/** listPartners, from the streamed `partners` collection: filters status, type, subtypes (any), search; paged. */
import { listedDocument, pageInfo } from '../../_platform/paging';
import type { ListPartnersInput } from '../../../schemas/Partner/inputs';
import { partnerListQuery, PARTNERS_COLLECTION, SEARCH_FIELD } from '../rules';
import type { PartnerStaticCtx } from './common';

/** POST body or GET query, checked by its schema (400 17010 naming the field for bad filter or page values). */
export async function listPartners(ctx: PartnerStaticCtx<ListPartnersInput>) {
  const q = partnerListQuery(ctx.request.body);
  const found = await ctx.documents.find<Record<string, unknown>>(PARTNERS_COLLECTION, q.filter, {
    sort: q.sort,
    skip: q.skip,
    limit: q.limit,
  });
  return {
    partners: found.items.map((d) => listedDocument(d, [SEARCH_FIELD])),
    ...pageInfo(found.total, q.page, q.limit),
  };
}
