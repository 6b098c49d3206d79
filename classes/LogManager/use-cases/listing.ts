/** getLogEntries: the listing of the `logs` collection (listing-rules.ts), the page's entries read from their instances. */
import type { DeepReadonly, StaticCtx } from '../../../runtime';
import type { GetLogEntriesInput } from '../../../schemas/LogManager/inputs';
import { logListQuery } from '../listing-rules';
import type { LogRecord } from '../log-entry';
import { entryOrNull, type EntryReader } from './read';

/** Newest first from the `logs` collection; the page's entries in full from their instances. */
export async function getLogEntries(ctx: StaticCtx<GetLogEntriesInput>, entries: EntryReader) {
  const q = logListQuery(ctx.request.body);
  const { items, total } = await ctx.documents.find('logs', q.filter, { sort: q.sort, skip: q.skip, limit: q.limit });
  // the listing holds a search string, not the field updates
  const found = await Promise.all(items.map((d) => entryOrNull(entries, String(d._id))));
  return {
    entries: found.filter((e): e is DeepReadonly<LogRecord> => e !== null),
    totalCount: total,
    page: q.page,
    limit: q.limit,
    totalPages: Math.ceil(total / q.limit),
  };
}
