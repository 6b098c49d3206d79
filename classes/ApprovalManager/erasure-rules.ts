/**
 * What a data subject's erasure does to an approval record
 * (classes/_platform/personal-data.ts, `eraseSubjectData`), pure: the fact of
 * a change stays (its event, class and entity, statuses, dates, approvers,
 * callbacks, the patch's operations and paths), the personal values go.
 * Unit-tested in test/ApprovalManager/erasure-rules.test.ts.
 *
 * - A record about the subject (a change of its instance:
 *   subject-data-rules.ts recordIsAboutSubject): each patch operation's
 *   value, each old value and every string leaf of additionalData become
 *   ERASED (erasedValue), and so does the reviewer's note, written about the
 *   change; the record is marked `erasedBy`/`erasedAt`. Its blobs (a large
 *   patch, old values kept out of line) are rewritten the same way
 *   (use-cases/erasure.ts), so every read of the record (getApproval, a
 *   review, the export) reads them as before.
 * - A record the subject made or reviewed: the actor's or reviewer's name
 *   becomes ERASED; ids, types and roles stay. The values, about someone
 *   else, stay, except where they copy that name (the changed record's
 *   `createdBy`): a string equal to it becomes ERASED there too, in the
 *   blobs as well.
 *
 * Effectively once: a marked record whose names read ERASED has nothing left,
 * and erasing a value twice gives the same value.
 */
import type { Operation } from 'rfc6902';
import type { DeepReadonly } from '../../runtime';
import { ERASED, eraseStringLeaves, type Subject } from '../_platform/personal-data';
import { setEntry } from '../_platform/records';
import type { OldValue } from './changes';
import { recordIsAboutSubject, recordMadeBySubject, recordReviewedBySubject } from './subject-data-rules';
import type { StoredApproval } from './types';

type Stored = StoredApproval | DeepReadonly<StoredApproval>;

/**
 * A value a patch writes or a path held, erased: an object or array keeps its
 * structure with its string leaves ERASED; any other value but null (which
 * says nothing was set) becomes ERASED.
 */
export function erasedValue(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'object') return eraseStringLeaves(value);
  return ERASED;
}

/** What becomes of one value a record keeps (erasedValue, or a name's strings only: namesErased). */
export type ValueEraser = (value: unknown) => unknown;

/** A value with every string equal to one of `names` ERASED, anything else as it was. */
export function namesErased(names: readonly string[]): ValueEraser {
  return (value) => eraseStringLeaves(value, (s) => names.includes(s));
}

/**
 * The patch with each operation's value erased (op, path and from stay). It
 * may come from a blob: an element that is no operation goes through `erase`
 * whole.
 */
export function erasePatch(patch: readonly unknown[], erase: ValueEraser = erasedValue): Operation[] {
  return patch.map((op) => {
    if (op === null || typeof op !== 'object' || Array.isArray(op)) return erase(op) as Operation;
    const out = { ...op } as Record<string, unknown>;
    if (Object.hasOwn(out, 'value')) setEntry(out, 'value', erase(out.value));
    return out as unknown as Operation;
  });
}

/** Old values with each value erased; `null` (nothing was there) stays; anything malformed goes through `erase` whole. */
export function eraseOldValues(oldValues: readonly unknown[], erase: ValueEraser = erasedValue): OldValue[] {
  return oldValues.map((old): OldValue => {
    if (old === null) return null;
    if (typeof old === 'object' && !Array.isArray(old) && Object.hasOwn(old, 'value'))
      return { value: erase((old as { value: unknown }).value) };
    return erase(old) as OldValue;
  });
}

/** Are the record's values still to be erased for this subject (about it, not yet marked)? */
export function valuesToErase(record: Stored, subject: Subject): boolean {
  return record.erasedBy === undefined && recordIsAboutSubject(record, subject);
}

const named = (who: { name?: string } | undefined) => who?.name !== undefined && who.name !== ERASED;

/** Does the erasure of this subject still change the record? */
export function needsErasure(record: Stored, subject: Subject): boolean {
  return (
    valuesToErase(record, subject) ||
    (recordMadeBySubject(record, subject) && named(record.actor)) ||
    (recordReviewedBySubject(record, subject) && named(record.approvedBy))
  );
}

/**
 * What the erasure of a subject writes: the record (its inline part), and
 * `blobs`, how each value in its blobs is to be rewritten first (absent: they
 * hold nothing to erase). `values`: the record's values were erased (it is
 * about the subject).
 */
export interface RecordErasure {
  record: StoredApproval;
  values: boolean;
  blobs?: ValueEraser;
}

/** The names of the subject's the record still shows (as its maker, as its reviewer). */
function namesToErase(record: Stored, subject: Subject): string[] {
  const names: string[] = [];
  if (recordMadeBySubject(record, subject) && named(record.actor)) names.push(record.actor.name!);
  if (recordReviewedBySubject(record, subject) && named(record.approvedBy)) names.push(record.approvedBy!.name!);
  return names;
}

/**
 * The record once the subject is erased from it, or null when nothing is left
 * to erase (a second call). `erasureId` and `now` mark a record whose values
 * go.
 */
export function erasedRecord(record: Stored, subject: Subject, erasureId: string, now: string): RecordErasure | null {
  if (!needsErasure(record, subject)) return null;
  const out = structuredClone(record) as StoredApproval;
  const values = valuesToErase(record, subject);
  const names = namesToErase(record, subject);
  // every value of a record about the subject, or only the subject's names in a record it made or reviewed
  const erase = values ? erasedValue : names.length ? namesErased(names) : undefined;
  if (erase) {
    out.jsonPatch = erasePatch(record.jsonPatch, erase);
    if (record.oldValues) out.oldValues = eraseOldValues(record.oldValues, erase);
    // an object: erasedValue keeps its structure, with its strings erased
    out.additionalData = erase(record.additionalData) as Record<string, unknown>;
  }
  if (values) {
    if (record.reviewNote !== undefined) out.reviewNote = ERASED;
    out.erasedBy = erasureId;
    out.erasedAt = now;
  }
  if (recordMadeBySubject(record, subject) && named(record.actor)) out.actor.name = ERASED;
  if (recordReviewedBySubject(record, subject) && named(record.approvedBy)) out.approvedBy!.name = ERASED;
  const blobs = erase && (record.isLargeApproval || record.oldValuesFile) ? erase : undefined;
  return blobs ? { record: out, values, blobs } : { record: out, values };
}
