/**
 * getContentsForBackoffice (READ; program management users): every content
 * whatever its status or window, filtered by contentGroupKeys, contentKeys,
 * statuses and a search in the title, sorted by order then updatedAt, both
 * descending (spec 4.5); paged as the service's listings are.
 */
import { listingInput, pageInfo } from '../../_platform/paging';
import { backofficeMatches, backofficeOrder, parseBackofficeQuery } from '../rules';
import type { BackofficeFilterInput, ContentRecord } from '../types';
import { fieldError, readableContents, type ContentReadCtx } from './common';

export function getContentsForBackoffice(ctx: ContentReadCtx<BackofficeFilterInput>) {
  const contents = readableContents(ctx) as Readonly<Record<string, ContentRecord>>;
  const parsed = parseBackofficeQuery(listingInput(ctx));
  if (!parsed.ok) throw fieldError('CONTENT_INVALID_QUERY', parsed.errors, 'Invalid filter');
  const q = parsed.query;
  const matching = Object.values(contents)
    .filter((c) => backofficeMatches(c, q))
    .sort(backofficeOrder);
  const items = matching.slice((q.page - 1) * q.limit, q.page * q.limit);
  return { items, ...pageInfo(matching.length, q.page, q.limit) };
}
