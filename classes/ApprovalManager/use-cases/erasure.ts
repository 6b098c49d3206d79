/**
 * eraseSubjectData: DataSubject's approved erasure of one data subject from
 * the approval records (classes/_platform/personal-data.ts), and eraseRecord,
 * the write on one record's instance it is made of (erasure-rules.ts says
 * what changes).
 *
 * The records are those exportSubjectData gives (findSubjectRecords: the
 * listing, then each record from its instance, within the caller's company).
 * Each record that still holds something of the subject is rewritten by its
 * own instance (one exclusive write per record, so a review cannot run in
 * between): its blobs rewritten anonymised first (every value of a record
 * about the subject, the subject's name in one it made or reviewed), then its
 * inline part and its mark committed. The blobs keep their
 * names and stay where the record says, so getApproval, a review and the
 * export read them as before; no file is deleted, except a blob that is not
 * the JSON list it should be (it cannot be anonymised, so it goes, and is
 * counted).
 *
 * A record still pending stays pending, anonymised: its review is the
 * approvers' decision, not the erasure's (see the README).
 *
 * Safe to retry at any point: a record's blobs are rewritten before its new
 * state is committed, so a call that stopped in between leaves the record as
 * it was (unmarked, the name still there), which the next call erases again
 * (erasing an erased value changes nothing); a marked record whose names read
 * ERASED is skipped. A second call answers zeros.
 */
import type { BaseCtx, Ctx, DeepReadonly, StaticCtx } from '../../../runtime';
import { inPages, totalErasure, type SubjectErasure } from '../../_platform/personal-data';
import type { EraseRecordInput, EraseSubjectDataInput } from '../../../schemas/ApprovalManager/inputs';
import { approvalError } from '../errors';
import { eraseOldValues, erasedRecord, erasePatch, needsErasure } from '../erasure-rules';
import { largeApprovalFileName } from '../rules';
import { SUBJECT_PAGE_SIZE } from '../subject-data-rules';
import type { ApprovalManagerState, StoredApproval } from '../types';
import { beyondReach, findSubjectRecords, type RecordReader } from './subject-data';

/** eraseRecord, as the class file hands it over (its typed client). */
export interface RecordEraser {
  eraseRecord(approvalId: string, body: EraseRecordInput): Promise<SubjectErasure>;
}

/**
 * One blob rewritten with `erase` applied to its list; a blob that is gone
 * needs nothing, one that is not a JSON list is deleted. → files deleted (0 or 1).
 */
async function rewriteBlob(
  ctx: Pick<BaseCtx, 'ports'>,
  record: DeepReadonly<StoredApproval>,
  name: string,
  erase: (list: unknown[]) => unknown,
): Promise<number> {
  let blob: Awaited<ReturnType<BaseCtx['ports']['blobs']['get']>>;
  try {
    blob = await ctx.ports.blobs.get(name);
  } catch (err) {
    throw approvalError('APPROVAL_PATCH_UNAVAILABLE', `The blob ${name} of approval ${record.id} could not be read`, {
      file: name,
      error: (err as Error).message,
    });
  }
  if (!blob) return 0;
  let list: unknown;
  try {
    list = JSON.parse(blob.data.toString('utf8'));
  } catch {
    list = undefined;
  }
  try {
    if (!Array.isArray(list)) return (await ctx.ports.blobs.delete(name)) ? 1 : 0;
    await ctx.ports.blobs.put(name, Buffer.from(JSON.stringify(erase(list)), 'utf8'), 'application/json');
    return 0;
  } catch (err) {
    throw approvalError('APPROVAL_PATCH_STORE_FAILED', `Could not erase the blob ${name} of approval ${record.id}`, {
      file: name,
      error: (err as Error).message,
    });
  }
}

/** eraseRecord (ApprovalManager only): the record's own write; it decides on its state, not on what the caller read. */
export async function eraseRecord(ctx: Ctx<ApprovalManagerState, EraseRecordInput>): Promise<SubjectErasure> {
  const record = ctx.state.public.approval;
  const { subject, erasureId } = ctx.request.body;
  const erased = erasedRecord(record, subject, erasureId, new Date().toISOString());
  if (!erased) return { records: 0, files: 0 };
  let files = 0;
  const erase = erased.blobs;
  if (erase) {
    // the blobs first: the record's new state (its mark, its names erased) is committed only once they hold nothing of the subject
    if (record.isLargeApproval) {
      const name = record.largePatchFile ?? largeApprovalFileName(record.entityId, record.id);
      files += await rewriteBlob(ctx, record, name, (patch) => erasePatch(patch, erase));
    }
    if (record.oldValuesFile)
      files += await rewriteBlob(ctx, record, record.oldValuesFile, (old) => eraseOldValues(old, erase));
  }
  ctx.state.public.approval = erased.record;
  return { records: 1, files };
}

/** One record's erasure by its instance; a record gone or moved out of the caller's company meanwhile: nothing. */
async function eraseOne(self: RecordEraser, id: string, body: EraseRecordInput): Promise<SubjectErasure> {
  try {
    return await self.eraseRecord(id, body);
  } catch (err) {
    if (beyondReach(err)) return { records: 0, files: 0 };
    throw err;
  }
}

/** → {records: records rewritten, files: blobs deleted}; zeros when nothing was left. */
export async function eraseSubjectData(
  ctx: StaticCtx<EraseSubjectDataInput>,
  self: RecordReader & RecordEraser,
): Promise<SubjectErasure> {
  const { subject, erasureId } = ctx.request.body;
  const found = await findSubjectRecords(ctx, self, subject);
  const todo = found.filter((r) => needsErasure(r, subject));
  // a page's worth of records at a time, as they were read
  return totalErasure(await inPages(todo, SUBJECT_PAGE_SIZE, (r) => eraseOne(self, r.id, { subject, erasureId })));
}
