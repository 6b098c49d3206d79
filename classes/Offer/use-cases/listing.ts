/**
 * listOffers (STATIC), from the streamed `offers` collection: filters status
 * (one or a list), partnerId, categoryId, offerType and search (title, short
 * description or a keyword: a case-insensitive literal); page from 1, limit
 * 1-100 (default 20); POST body or GET query; by title, then id.
 */
import { listedDocument, listingInput, pageInfo, problemsText } from '../../_platform/paging';
import { offerError } from '../errors';
import {
  buildOfferListFilter,
  OFFER_HIDDEN_COLUMNS,
  OFFER_ORDER,
  OFFERS_COLLECTION,
  parseOfferListQuery,
} from '../rules';
import type { ListOffersInput } from '../types';
import type { OfferStaticCtx } from './common';

export async function listOffers(ctx: OfferStaticCtx<ListOffersInput>) {
  const parsed = parseOfferListQuery(listingInput(ctx));
  if (!parsed.ok) {
    throw offerError('OFFER_INVALID_QUERY', `Invalid listing: ${problemsText(parsed.errors)}`, {
      errors: parsed.errors,
    });
  }
  const q = parsed.query;
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
