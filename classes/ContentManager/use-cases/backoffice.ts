/**
 * getContentsForBackoffice (READ; program management users): every content
 * whatever its status or window, filtered by contentGroupKeys, contentKeys,
 * statuses and a search in the title, sorted by order then updatedAt, both
 * descending (spec 4.5); paged as the service's listings are.
 */
import { pageInfo } from '../../_platform/paging';
import type { GetContentsForBackofficeInput } from '../../../schemas/ContentManager/inputs';
import { backofficeMatches, backofficeOrder, backofficeQuery } from '../rules';
import type { ContentRecord } from '../types';
import { fieldError, readableContents, type ContentReadCtx } from './common';

export function getContentsForBackoffice(ctx: ContentReadCtx<GetContentsForBackofficeInput>) {
  const contents = readableContents(ctx) as Readonly<Record<string, ContentRecord>>;
  const parsed = backofficeQuery(ctx.request.body);
  if (!parsed.ok) throw fieldError('CONTENT_INVALID_QUERY', parsed.errors, 'Invalid filter');
  const q = parsed.query;
  const matching = Object.values(contents)
    .filter((c) => backofficeMatches(c, q))
    .sort(backofficeOrder);
  const items = matching.slice((q.page - 1) * q.limit, q.page * q.limit);
  return { items, ...pageInfo(matching.length, q.page, q.limit) };
}
