/**
 * listOffers (STATIC), from the streamed `offers` collection: filters status
 * (one or a list), partnerId, categoryId, offerType and search (title, short
 * description or a keyword: a case-insensitive literal); page from 1, limit
 * 1-100 (default 20); POST body or GET query, checked by its schema; by
 * title, then id.
 */
import type { ListOffersInput } from '../../../schemas/Offer/inputs';
import { listedDocument, pageInfo } from '../../_platform/paging';
import { buildOfferListFilter, OFFER_HIDDEN_COLUMNS, OFFER_ORDER, OFFERS_COLLECTION, offerListQuery } from '../rules';
import type { OfferStaticCtx } from './common';

export async function listOffers(ctx: OfferStaticCtx<ListOffersInput>) {
  const q = offerListQuery(ctx.request.body);
  const found = await ctx.documents.find<Record<string, unknown>>(OFFERS_COLLECTION, buildOfferListFilter(q), {
    sort: { ...OFFER_ORDER },
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  return {
    offers: found.items.map((d) => listedDocument(d, OFFER_HIDDEN_COLUMNS)),
    ...pageInfo(found.total, q.page, q.limit),
  };
}
