/**
 * eraseSubjectData: DataSubject's approved erasure of one data subject from
 * the audit log (classes/_platform/personal-data.ts), and eraseEntry, the
 * write on one entry's instance it is made of (erasure-rules.ts says what
 * changes).
 *
 * The entries are those exportSubjectData gives (findSubjectEntries: the
 * listing, then each entry from its instance, within the caller's company).
 * Each entry that still holds something of the subject is rewritten by its
 * own instance (one exclusive write per entry; an entry the subject made also
 * has the subject's name erased from its values, in its LARGE_LOG file too),
 * and then, for a large entry
 * about the subject, its LARGE_LOG file is deleted: only once the entry no
 * longer points at it, so getLog never meets an entry whose file is gone.
 *
 * Safe to retry at any point: an entry rewritten is not rewritten again (its
 * mark, its actor's name reading ERASED), and the file of an erased entry is
 * deleted again on every call (a file left by a call that stopped between
 * the two steps goes on the next; one already gone counts nothing). A second
 * call finds nothing left and answers zeros.
 */
import type { Ctx, DeepReadonly, StaticCtx } from '../../../runtime';
import { inPages, totalErasure, type Subject, type SubjectErasure } from '../../_platform/personal-data';
import type { EraseEntryInput, EraseSubjectDataInput } from '../../../schemas/LogManager/inputs';
import { logManagerError } from '../errors';
import { erasedEntry, erasedLargeFile, needsErasure, needsLargeContent } from '../erasure-rules';
import { largeLogBlobName, type LogRecord } from '../log-entry';
import { SUBJECT_PAGE_SIZE } from '../subject-data-rules';
import type { LogManagerState } from '../types';
import { largeContentOf, type EntryReader } from './read';
import { findSubjectEntries } from './subject-data';

/** What eraseSubjectData asks the entries' instances; LogManager's typed client (`client<typeof LogManager>`) fits it. */
export interface EntryEraser {
  eraseEntry(logId: string, body: EraseEntryInput): Promise<{ erased: boolean }>;
}

/**
 * eraseEntry (LogManager only): the entry's own write; it decides on its
 * state, not on what the caller read. An entry the subject made whose values
 * are partly in its LARGE_LOG file has the subject's name erased there too,
 * the file written first (a retry finds the name still on the entry and
 * writes the same file again).
 */
export async function eraseEntry(ctx: Ctx<LogManagerState, EraseEntryInput>) {
  const log = ctx.state.private.log;
  if (!log) throw logManagerError('LOG_NOT_FOUND', `No log entry '${ctx.instanceId}'`);
  const { subject, erasureId } = ctx.request.body;
  const large = needsLargeContent(log, subject) ? await largeContentOf(ctx, log) : undefined;
  const erased = erasedEntry(log, subject, erasureId, new Date().toISOString(), large);
  if (!erased) return { erased: false };
  if (erased.large) {
    await ctx.ports.blobs.put(
      largeLogBlobName(log.entityType, log.entityId, log.id),
      Buffer.from(JSON.stringify(erased.large), 'utf8'),
      'application/json',
    );
  }
  ctx.state.private.log = erased.entry;
  return { erased: true };
}

/** One entry: its write when something of the subject is left, then its LARGE_LOG file when it is about the subject. */
async function eraseOne(
  ctx: StaticCtx<unknown>,
  entries: EntryEraser,
  entry: DeepReadonly<LogRecord>,
  subject: Subject,
  erasureId: string,
): Promise<SubjectErasure> {
  let records = 0;
  if (needsErasure(entry, subject)) {
    if ((await entries.eraseEntry(entry.id, { subject, erasureId })).erased) records = 1;
  }
  const file = erasedLargeFile(entry, subject);
  const files = file !== null && (await ctx.ports.blobs.delete(file)) ? 1 : 0;
  return { records, files };
}

/** → {records: entries rewritten, files: LARGE_LOG files deleted}; zeros when nothing was left. */
export async function eraseSubjectData(
  ctx: StaticCtx<EraseSubjectDataInput>,
  entries: EntryReader & EntryEraser,
): Promise<SubjectErasure> {
  const { subject, erasureId } = ctx.request.body;
  const found = await findSubjectEntries(ctx, entries, subject);
  // a page's worth of entries at a time, as they were read
  return totalErasure(await inPages(found, SUBJECT_PAGE_SIZE, (e) => eraseOne(ctx, entries, e, subject, erasureId)));
}
