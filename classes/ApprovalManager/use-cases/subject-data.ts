/**
 * exportSubjectData: the approval records about one data subject, for
 * DataSubject's export (classes/_platform/personal-data.ts), with the blobs
 * they keep out of line (a large patch, old values that did not fit), and
 * readRecord, the READ it reads each record with (a STATIC has no instance
 * state of its own).
 *
 * The `approvals` listing is the index: it finds the records (paged through
 * to the end), and each is then read as stored from its own instance. The
 * listing is a projection, so a record created a moment before the call may
 * not be in it yet.
 *
 * findSubjectRecords is the finding both exportSubjectData and
 * eraseSubjectData (use-cases/erasure.ts) use: the same records are exported
 * and erased.
 *
 * Company scope: the runtime filters the listing of a caller limited to a
 * company (DataSubject carries its caller's company) on the records'
 * companyId, and checks each record's instance against it again, so such a
 * call gets that company's records only; records of programme data (no
 * company) are internal. A record listed for the company that has since
 * followed its entity to another company (moveApprovalCompany) is left out.
 */
import {
  isUnknownInstance,
  ActorError,
  RuntimeCodes,
  type DeepReadonly,
  type ReadCtx,
  type StaticCtx,
} from '../../../runtime';
import { inPages, type Subject, type SubjectData, type SubjectFile } from '../../_platform/personal-data';
import type { ExportSubjectDataInput } from '../../../schemas/ApprovalManager/inputs';
import { approvalError } from '../errors';
import {
  afterRecord,
  approvalBlobFile,
  approvalRecord,
  LIST_SUBJECT_APPROVALS,
  newestFirst,
  recordBlobNames,
  recordNamesSubject,
  subjectApprovalFilters,
  SUBJECT_PAGE_SIZE,
  type ListedRecordKey,
} from '../subject-data-rules';
import type { ApprovalManagerState, StoredApproval } from '../types';

/** readRecord, as the class file hands it over (its typed client). */
export interface RecordReader {
  readRecord(approvalId: string): Promise<DeepReadonly<StoredApproval>>;
}

/** readRecord (this class only): the record as stored, blob names and old values included. */
export function readRecord(ctx: ReadCtx<ApprovalManagerState, Record<string, never>>) {
  return ctx.state.public.approval;
}

/** Every listed record id matching `filter`, page after page until a short page ends them. */
async function listedIds(ctx: StaticCtx<unknown>, filter: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let last: ListedRecordKey | undefined;
  for (;;) {
    const { items } = await ctx.documents.find<ListedRecordKey>('approvals', afterRecord(filter, last), {
      sort: LIST_SUBJECT_APPROVALS.sort,
      limit: SUBJECT_PAGE_SIZE,
      total: false,
    });
    for (const doc of items) ids.push(String(doc._id));
    if (items.length < SUBJECT_PAGE_SIZE) return ids;
    const end = items[items.length - 1];
    last = { _id: String(end._id), createdAt: end.createdAt };
  }
}

/**
 * The record as stored, or null when the caller may no longer read it: its
 * instance is gone, or it followed its entity to a company the caller is not
 * limited to since it was listed.
 */
async function recordOrNull(self: RecordReader, id: string): Promise<DeepReadonly<StoredApproval> | null> {
  try {
    return await self.readRecord(id);
  } catch (err) {
    if (beyondReach(err)) return null;
    throw err;
  }
}

/** A call on a record refused because the record is gone, or now belongs to a company the caller is not limited to. */
export function beyondReach(err: unknown): boolean {
  return isUnknownInstance(err) || (err instanceof ActorError && err.code === RuntimeCodes.OUT_OF_SCOPE.code);
}

/** A blob the record names; a missing or unreadable one fails the export (500 8003), as it fails a read of the patch. */
async function blobFile(ctx: StaticCtx<unknown>, recordId: string, name: string): Promise<SubjectFile> {
  let blob: Awaited<ReturnType<StaticCtx['ports']['blobs']['get']>>;
  try {
    blob = await ctx.ports.blobs.get(name);
  } catch (err) {
    throw approvalError('APPROVAL_PATCH_UNAVAILABLE', `The blob ${name} of approval ${recordId} could not be read`, {
      file: name,
      error: (err as Error).message,
    });
  }
  if (!blob)
    throw approvalError('APPROVAL_PATCH_UNAVAILABLE', `The blob ${name} of approval ${recordId} is missing`, {
      file: name,
    });
  return approvalBlobFile(recordId, name, blob.data);
}

/**
 * The records that name the subject, as their instances store them, newest
 * first: found through the listing (every filter of subjectApprovalFilters,
 * each id once), read a page's worth of instances at a time, and kept when
 * the stored record names the subject (the listing is a projection). What
 * the export gives and what the erasure (use-cases/erasure.ts) erases.
 */
export async function findSubjectRecords(
  ctx: StaticCtx<unknown>,
  self: RecordReader,
  subject: Subject,
): Promise<DeepReadonly<StoredApproval>[]> {
  const ids = new Set<string>();
  for (const filter of subjectApprovalFilters(subject)) for (const id of await listedIds(ctx, filter)) ids.add(id);
  const read = await inPages([...ids], SUBJECT_PAGE_SIZE, (id) => recordOrNull(self, id));
  const found = read.filter(
    (record): record is DeepReadonly<StoredApproval> => record !== null && recordNamesSubject(record, subject),
  );
  return found.sort(newestFirst);
}

/** → {records: the subject's approval records, newest first; files: their blobs}; empty lists for a subject with none. */
export async function exportSubjectData(
  ctx: StaticCtx<ExportSubjectDataInput>,
  self: RecordReader,
): Promise<SubjectData> {
  const found = await findSubjectRecords(ctx, self, ctx.request.body.subject);
  const blobs = found.flatMap((r) => recordBlobNames(r).map((name) => ({ id: r.id, name })));
  const files = await inPages(blobs, SUBJECT_PAGE_SIZE, (b) => blobFile(ctx, b.id, b.name));
  return { records: found.map(approvalRecord), files };
}
