/** listPartners, from the streamed `partners` collection: filters status, type, subtypes (any), search; paged. */
import { listedDocument, listingInput, pageInfo, problemsText } from '../../_platform/paging';
import { partnerError } from '../errors';
import { parsePartnerListQuery, PARTNERS_COLLECTION, SEARCH_FIELD } from '../rules';
import type { PartnerStaticCtx } from './common';

/** POST body or GET query (listingInput); 400 17010 naming the field for bad filter or page values. */
export async function listPartners(ctx: PartnerStaticCtx<Record<string, unknown>>) {
  const parsed = parsePartnerListQuery(listingInput(ctx));
  if (!parsed.ok)
    throw partnerError('INVALID_QUERY', `Invalid listing: ${problemsText(parsed.errors)}`, { errors: parsed.errors });
  const q = parsed.query;
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
