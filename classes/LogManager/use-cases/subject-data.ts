/**
 * exportSubjectData: the audit entries about one data subject, for
 * DataSubject's export (classes/_platform/personal-data.ts), with the
 * LARGE_LOG files of those that have one.
 *
 * The `logs` listing is the index: it finds the entries (paged through to the
 * end), and each is then read in full from its own instance, as getLog does.
 * The listing is a projection, so an entry written a moment before the call
 * may not be in it yet.
 *
 * findSubjectEntries is the finding both exportSubjectData and
 * eraseSubjectData (use-cases/erasure.ts) use: the same entries are exported
 * and erased.
 *
 * Company scope: the runtime filters the listing of a caller limited to a
 * company (DataSubject carries its caller's company) on the entries'
 * companyId, and checks each entry's instance against it again, so such a
 * call gets that company's entries only; entries of no company (programme
 * data) are internal.
 */
import type { DeepReadonly, StaticCtx } from '../../../runtime';
import {
  inPages,
  type Subject,
  type SubjectData,
  type SubjectFile,
  type SubjectRecord,
} from '../../_platform/personal-data';
import type { ExportSubjectDataInput } from '../../../schemas/LogManager/inputs';
import { logManagerError } from '../errors';
import { needsLargeFile } from '../erasure-rules';
import { largeLogBlobName, type LogRecord } from '../log-entry';
import {
  afterEntry,
  entryNamesSubject,
  largeLogFile,
  LIST_SUBJECT_LOG_ENTRIES,
  logEntryRecord,
  newestFirst,
  subjectLogFilters,
  SUBJECT_PAGE_SIZE,
  type ListedEntryKey,
} from '../subject-data-rules';
import { entryOrNull, type EntryReader } from './read';

type ListedEntry = ListedEntryKey & { _id: string };

/** Every listed entry id matching `filter`, page after page until a short page ends them. */
async function listedIds(ctx: StaticCtx<unknown>, filter: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let last: ListedEntryKey | undefined;
  for (;;) {
    const { items } = await ctx.documents.find<ListedEntry>('logs', afterEntry(filter, last), {
      sort: LIST_SUBJECT_LOG_ENTRIES.sort,
      limit: SUBJECT_PAGE_SIZE,
      total: false,
    });
    for (const doc of items) ids.push(String(doc._id));
    if (items.length < SUBJECT_PAGE_SIZE) return ids;
    const end = items[items.length - 1];
    last = { timeStamp: end.timeStamp, id: end.id };
  }
}

/** The entry's LARGE_LOG file; a missing or unreadable one fails the export, as it fails getLog (500 12005). */
async function largeFile(ctx: StaticCtx<unknown>, entry: DeepReadonly<LogRecord>): Promise<SubjectFile> {
  const name = largeLogBlobName(entry.entityType, entry.entityId, entry.id);
  let blob: Awaited<ReturnType<StaticCtx['ports']['blobs']['get']>>;
  try {
    blob = await ctx.ports.blobs.get(name);
  } catch (err) {
    throw logManagerError(
      'LARGE_LOG_UNAVAILABLE',
      `The large values of log entry '${entry.id}' (${name}) are unreadable`,
      {
        error: (err as Error).message,
      },
    );
  }
  if (!blob) {
    throw logManagerError(
      'LARGE_LOG_UNAVAILABLE',
      `The large values of log entry '${entry.id}' (${name}) are unavailable`,
    );
  }
  return largeLogFile(entry.id, name, blob.data);
}

/**
 * The entries that name the subject, as their instances hold them, newest
 * first: found through the listing (every filter of subjectLogFilters, each
 * id once), read a page's worth of instances at a time (as getLogEntries reads
 * a page), and kept when the stored entry names the subject (the listing is a
 * projection). What the export gives and what the erasure erases.
 */
export async function findSubjectEntries(
  ctx: StaticCtx<unknown>,
  entries: EntryReader,
  subject: Subject,
): Promise<DeepReadonly<LogRecord>[]> {
  const ids = new Set<string>();
  for (const filter of subjectLogFilters(subject)) for (const id of await listedIds(ctx, filter)) ids.add(id);
  const read = await inPages([...ids], SUBJECT_PAGE_SIZE, (id) => entryOrNull(entries, id));
  const found = read.filter(
    (entry): entry is DeepReadonly<LogRecord> => entry !== null && entryNamesSubject(entry, subject),
  );
  return found.sort(newestFirst);
}

/**
 * → {records: the subject's entries, newest first; files: their LARGE_LOG
 * files}; empty lists for a subject with none. An erased entry has no file
 * left (its values read ERASED inline): it is given as stored.
 */
export async function exportSubjectData(
  ctx: StaticCtx<ExportSubjectDataInput>,
  entries: EntryReader,
): Promise<SubjectData> {
  const found = await findSubjectEntries(ctx, entries, ctx.request.body.subject);
  const records: SubjectRecord[] = found.map(logEntryRecord);
  const files = await inPages(found.filter(needsLargeFile), SUBJECT_PAGE_SIZE, (e) => largeFile(ctx, e));
  return { records, files };
}
