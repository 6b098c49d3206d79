/**
 * What a data subject's erasure does to an audit entry
 * (classes/_platform/personal-data.ts, `eraseSubjectData`), pure: the fact of
 * a change stays, the personal values go. Unit-tested in
 * test/LogManager/erasure-rules.test.ts.
 *
 * - An entry about the subject (its own record, or a member's document:
 *   subject-data-rules.ts entryIsAboutSubject): every field update's old and
 *   new value that is present becomes the JSON text of ERASED (previews of
 *   large values too, `isLarge` stays), every string leaf of additionalData
 *   becomes ERASED (keys and structure stay; the key that links the entry to
 *   the subject, `memberId` of a member's document, keeps the id, as the
 *   entity id does), and the entry is marked `erasedBy`/`erasedAt`. Its
 *   LARGE_LOG file is deleted: the entry then holds every value there is.
 * - An entry the subject made (its actor): the actor's name becomes ERASED;
 *   id, type and roles stay, and so do the values, which are about someone
 *   else, except where they copy that name (a record's `createdBy`, a
 *   document's `uploadedBy`): a string equal to the name becomes ERASED there
 *   too, in the LARGE_LOG file as well (whose previews are then cut again).
 *
 * Effectively once: an entry whose values were erased (the mark) and whose
 * actor's name reads ERASED has nothing left, and erasing it again changes
 * nothing.
 */
import type { DeepReadonly } from '../../runtime';
import { ERASED, eraseStringLeaves, type Subject } from '../_platform/personal-data';
import { setEntry } from '../_platform/records';
import { jsonText, type FieldUpdate } from '../_platform/field-diff';
import { SUBJECT_LINK_KEYS } from './listing-rules';
import { INLINE_LIMIT_BYTES, largeLogBlobName, truncateUtf8, type LargeLogContent, type LogRecord } from './log-entry';
import { entryIsAboutSubject, entryMadeBySubject } from './subject-data-rules';

/** an erased field value: the JSON text of ERASED, as every value of a field update is JSON text */
export const ERASED_JSON = JSON.stringify(ERASED);

type StoredEntry = LogRecord | DeepReadonly<LogRecord>;

/** additionalData erased: every string leaf, except the top-level key that links the entry to its subject (an id) */
export function eraseAdditionalData(
  data: DeepReadonly<Record<string, unknown>>,
  keep: string | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    const v = (data as Record<string, unknown>)[key];
    setEntry(out, key, key === keep && typeof v === 'string' ? v : eraseStringLeaves(v));
  }
  return out;
}

/** A field update with its present values erased (key, operation and isLarge stay). */
export function eraseFieldUpdate(fu: DeepReadonly<FieldUpdate>): FieldUpdate {
  const out: FieldUpdate = { key: fu.key, operation: fu.operation };
  if (fu.oldValue !== undefined) out.oldValue = ERASED_JSON;
  if (fu.newValue !== undefined) out.newValue = ERASED_JSON;
  if (fu.isLarge !== undefined) out.isLarge = fu.isLarge;
  return out;
}

/**
 * A field value (JSON text) with every string equal to `name` ERASED, or
 * null when the text is no whole JSON value (a large value's preview: it is
 * cut again from the full value instead).
 */
export function eraseNameInJson(json: string, name: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!holdsString(value, name)) return json;
  return jsonText(eraseStringLeaves(value, (s) => s === name)) ?? json;
}

/** does the JSON value hold the string anywhere (explicit stack)? */
function holdsString(value: unknown, name: string): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === name) return true;
    if (v !== null && typeof v === 'object') for (const x of Object.values(v)) stack.push(x);
  }
  return false;
}

/** Are the entry's values still to be erased for this subject (about it, not yet marked)? */
function valuesToErase(entry: StoredEntry, subject: Subject): boolean {
  return entry.erasedBy === undefined && entryIsAboutSubject(entry, subject);
}

/** Is the actor's name still to be erased for this subject (the subject made the change, its name is there)? */
function nameToErase(entry: StoredEntry, subject: Subject): boolean {
  return entryMadeBySubject(entry, subject) && entry.actor.name !== undefined && entry.actor.name !== ERASED;
}

/** Does the erasure of this subject still change the entry? */
export function needsErasure(entry: StoredEntry, subject: Subject): boolean {
  return valuesToErase(entry, subject) || nameToErase(entry, subject);
}

/**
 * Does erasing the subject's name from this entry need its LARGE_LOG content?
 * An entry the subject made that keeps some values out of line, which may
 * copy the name (an entry about the subject loses every value instead).
 */
export function needsLargeContent(entry: StoredEntry, subject: Subject): boolean {
  return entry.isLargeLog && nameToErase(entry, subject) && !valuesToErase(entry, subject);
}

/** What the erasure of a subject writes: the entry, and first, when its large values changed, its LARGE_LOG content. */
export interface EntryErasure {
  entry: LogRecord;
  large?: LargeLogContent;
}

/** The name erased from one field update (and from its full values, when large and known): previews cut again. */
function eraseNameInUpdate(
  fu: DeepReadonly<FieldUpdate>,
  name: string,
  full: FieldUpdate | undefined,
): { inline: FieldUpdate; full?: FieldUpdate } {
  const inline = structuredClone(fu) as FieldUpdate;
  const side = (json: string | undefined) => (json === undefined ? undefined : (eraseNameInJson(json, name) ?? json));
  if (!fu.isLarge) {
    if (inline.oldValue !== undefined) inline.oldValue = side(inline.oldValue);
    if (inline.newValue !== undefined) inline.newValue = side(inline.newValue);
    return { inline };
  }
  // a preview is no whole JSON value: without the full value (its file is gone) it stays as it is
  if (!full) return { inline };
  const whole: FieldUpdate = { ...full };
  if (whole.oldValue !== undefined) whole.oldValue = side(whole.oldValue);
  if (whole.newValue !== undefined) whole.newValue = side(whole.newValue);
  if (whole.oldValue !== undefined) inline.oldValue = truncateUtf8(whole.oldValue, INLINE_LIMIT_BYTES);
  if (whole.newValue !== undefined) inline.newValue = truncateUtf8(whole.newValue, INLINE_LIMIT_BYTES);
  return { inline, full: whole };
}

/**
 * The entry once the subject is erased from it, or null when nothing is left
 * to erase (a second call). `erasureId` and `now` mark an entry whose values
 * go. `large`: the entry's LARGE_LOG content, when needsLargeContent says it
 * is needed and the file could be read; the answer then carries the content to
 * write back (before the entry, so that the entry never shows a preview its
 * file no longer starts with).
 */
export function erasedEntry(
  entry: StoredEntry,
  subject: Subject,
  erasureId: string,
  now: string,
  large?: DeepReadonly<LargeLogContent>,
): EntryErasure | null {
  const values = valuesToErase(entry, subject);
  const name = nameToErase(entry, subject) ? entry.actor.name! : undefined;
  if (!values && name === undefined) return null;
  const out = structuredClone(entry) as LogRecord;
  let content: LargeLogContent | undefined;
  if (values) {
    out.fieldUpdates = entry.fieldUpdates.map(eraseFieldUpdate);
    if (entry.additionalData !== undefined) {
      const link = Object.hasOwn(SUBJECT_LINK_KEYS, entry.entityType) ? SUBJECT_LINK_KEYS[entry.entityType] : undefined;
      out.additionalData = eraseAdditionalData(entry.additionalData, link);
    }
    out.erasedBy = erasureId;
    out.erasedAt = now;
  } else if (name !== undefined) {
    const fullByKey = new Map((large?.fieldUpdates ?? []).map((fu) => [fu.key, fu as FieldUpdate]));
    const rewritten: FieldUpdate[] = [];
    out.fieldUpdates = entry.fieldUpdates.map((fu) => {
      const r = eraseNameInUpdate(fu, name, fu.isLarge ? fullByKey.get(fu.key) : undefined);
      if (r.full) rewritten.push(r.full);
      return r.inline;
    });
    if (entry.additionalData !== undefined)
      out.additionalData = eraseStringLeaves(entry.additionalData, (s) => s === name) as Record<string, unknown>;
    if (large && rewritten.length) {
      const byKey = new Map(rewritten.map((fu) => [fu.key, fu]));
      content = structuredClone(large) as LargeLogContent;
      content.fieldUpdates = content.fieldUpdates.map((fu) => byKey.get(fu.key) ?? fu);
    }
  }
  if (name !== undefined) out.actor.name = ERASED;
  return content ? { entry: out, large: content } : { entry: out };
}

/**
 * The LARGE_LOG file the erasure of this subject deletes: that of a large
 * entry about the subject (its values are erased inline, so the file holds
 * nothing the entry still needs). Null for any other entry, whose file (if
 * any) holds someone else's values.
 */
export function erasedLargeFile(entry: StoredEntry, subject: Subject): string | null {
  return entry.isLargeLog && entryIsAboutSubject(entry, subject)
    ? largeLogBlobName(entry.entityType, entry.entityId, entry.id)
    : null;
}

/**
 * Does reading the entry in full need its LARGE_LOG file? Not once its large
 * values are erased: each then reads ERASED inline (a preview never does: it
 * is a kilobyte of a longer text), and the file is deleted. getLog and the
 * export answer such an entry as stored.
 */
export function needsLargeFile(entry: StoredEntry): boolean {
  if (!entry.isLargeLog) return false;
  const erased = (v: string | undefined) => v === undefined || v === ERASED_JSON;
  return entry.fieldUpdates.some((fu) => fu.isLarge && !(erased(fu.oldValue) && erased(fu.newValue)));
}
