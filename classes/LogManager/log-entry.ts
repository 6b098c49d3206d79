/**
 * Building a Log record (spec 2.8) from a before/after pair, and the
 * large-value rule of spec 8 ("log field value stored inline: up to 1 KB per
 * field; larger values go to a file named LARGE_LOG_{entityType}_{entityId}_{logId}.json").
 * Pure functions; the handler stores what they return.
 */
import type { DeepReadonly } from '../../runtime';
import type { Actor } from '../_platform/actor';
import { diffFields, jsonText, limitDepth, toJsonValue, type FieldUpdate } from '../_platform/field-diff';
import { maskField, maskNested, sensitiveKeyMatcher } from './masking';

/** A value whose JSON text is longer than this many UTF-8 bytes is not kept inline. */
export const INLINE_LIMIT_BYTES = 1024;

/**
 * additionalData is stored as structure down to this depth; deeper objects
 * and arrays are stored as their JSON text (a string), so an entry stays
 * encodable and projectable whatever a class passes (field values are JSON
 * text already, at any depth).
 */
export const ADDITIONAL_DATA_MAX_DEPTH = 32;

/** additionalData larger than this (JSON, UTF-8 bytes) is refused */
export const MAX_ADDITIONAL_DATA_BYTES = 16 * 1024;

/** The form of a log id (the instance id of an entry): anything else names no entry. */
export const LOG_ID_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

export interface LogRecord {
  id: string;
  classId: string;
  entityId: string;
  entityType: string;
  /** ISO 8601 date-time (UTC) */
  timeStamp: string;
  isLargeLog: boolean;
  fieldUpdates: FieldUpdate[];
  actor: Actor;
  additionalData?: Record<string, unknown>;
  /** the company the logged entity belongs to (company scope: its company users see the entry) */
  companyId?: string;
  /**
   * The DataSubject erasure that anonymised this entry's values (an entry
   * about the erased subject: erasure-rules.ts), and when: why its values
   * read `[erased]`, and why its LARGE_LOG file is gone. Absent: never erased.
   */
  erasedBy?: string;
  erasedAt?: string;
}

/** Content of a LARGE_LOG file: the full values of the entry's large field updates. */
export interface LargeLogContent {
  logId: string;
  classId: string;
  entityType: string;
  entityId: string;
  fieldUpdates: FieldUpdate[];
}

export interface LogInput {
  logId: string;
  timeStamp: string;
  classId: string;
  entityId: string;
  entityType: string;
  before: unknown;
  after: unknown;
  actor: Actor;
  additionalData?: Record<string, unknown>;
  companyId?: string;
  sensitiveFields?: readonly string[];
  /** top-level fields holding no personal data: declared personal names are not masked inside them (masking.ts) */
  plainFields?: readonly string[];
  ignore?: readonly string[];
}

export interface BuiltLog {
  /** what is stored and listed: large values cut to their preview */
  record: LogRecord;
  /** the LARGE_LOG file to write, when some value was large */
  large?: { name: string; content: LargeLogContent };
  /** the field updates with every value in full */
  full: FieldUpdate[];
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, never splitting a character.
 * A character's bytes are counted from its code unit(s) as Buffer.byteLength counts them: 1 below
 * U+0080, 2 below U+0800, 4 for a surrogate pair, 3 otherwise (a lone surrogate too: U+FFFD).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // every UTF-16 code unit is at most 3 UTF-8 bytes (a pair of them 4)
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    let n: number;
    let units = 1;
    if (c < 0x80) n = 1;
    else if (c < 0x800) n = 2;
    else if (c >= 0xd800 && c <= 0xdbff && end + 1 < text.length && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00) {
      n = 4;
      units = 2;
    } else n = 3;
    if (bytes + n > maxBytes) break;
    bytes += n;
    end += units;
  }
  return end === text.length ? text : text.slice(0, end);
}

/** Is additionalData over MAX_ADDITIONAL_DATA_BYTES of JSON? (absent: no) */
export function additionalDataTooLarge(additionalData: Record<string, unknown> | undefined): boolean {
  return additionalData !== undefined && utf8Bytes(jsonText(additionalData) ?? '') > MAX_ADDITIONAL_DATA_BYTES;
}

export function isLargeValue(json: string | undefined): boolean {
  return json !== undefined && utf8Bytes(json) > INLINE_LIMIT_BYTES;
}

/** isLargeValue without counting bytes for a text too short to be over the limit (the usual field) */
function mayBeLarge(json: string | undefined): boolean {
  return json !== undefined && json.length * 3 > INLINE_LIMIT_BYTES && utf8Bytes(json) > INLINE_LIMIT_BYTES;
}

function safePart(text: string, max: number): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, max);
}

/**
 * `LARGE_LOG_{entityType}_{entityId}_{logId}.json`, with every character
 * outside [A-Za-z0-9_-] replaced by '_' and the type and id cut to 64 and 128
 * characters so that the name stays within the blob store's 255 characters
 * (the log id keeps it unique).
 */
export function largeLogBlobName(entityType: string, entityId: string, logId: string): string {
  return `LARGE_LOG_${safePart(entityType, 64)}_${safePart(entityId, 128)}_${safePart(logId, 40)}.json`;
}

/**
 * The field updates of an entry (masked), or an empty list when nothing
 * changed, plus the inline record and the LARGE_LOG content.
 *
 * Inline, a large value keeps a preview: the longest prefix of its JSON text
 * within INLINE_LIMIT_BYTES (so `full.startsWith(preview)`), and its field
 * update carries `isLarge: true`; the record carries `isLargeLog: true`.
 */
export function buildLog(input: LogInput): BuiltLog {
  const isSensitive = sensitiveKeyMatcher(input.sensitiveFields ?? []);
  const plain = new Set(input.plainFields ?? []);
  const full = diffFields(input.before, input.after, {
    ignore: input.ignore,
    mask: (key, value) => maskField(key, value, isSensitive, plain),
  });
  const inline: FieldUpdate[] = [];
  const large: FieldUpdate[] = [];
  for (const fu of full) {
    if (mayBeLarge(fu.oldValue) || mayBeLarge(fu.newValue)) {
      large.push(fu);
      const cut: FieldUpdate = { key: fu.key, operation: fu.operation };
      if (fu.oldValue !== undefined) cut.oldValue = truncateUtf8(fu.oldValue, INLINE_LIMIT_BYTES);
      if (fu.newValue !== undefined) cut.newValue = truncateUtf8(fu.newValue, INLINE_LIMIT_BYTES);
      cut.isLarge = true;
      inline.push(cut);
    } else {
      inline.push(fu);
    }
  }
  const record: LogRecord = {
    id: input.logId,
    classId: input.classId,
    entityId: input.entityId,
    entityType: input.entityType,
    timeStamp: input.timeStamp,
    isLargeLog: large.length > 0,
    fieldUpdates: inline,
    actor: input.actor,
  };
  if (input.companyId !== undefined) record.companyId = input.companyId;
  if (input.additionalData !== undefined) {
    record.additionalData = limitDepth(
      maskNested(toJsonValue(input.additionalData), isSensitive),
      ADDITIONAL_DATA_MAX_DEPTH,
    ) as Record<string, unknown>;
  }
  const built: BuiltLog = { record, full };
  if (large.length) {
    built.large = {
      name: largeLogBlobName(input.entityType, input.entityId, input.logId),
      content: {
        logId: input.logId,
        classId: input.classId,
        entityType: input.entityType,
        entityId: input.entityId,
        fieldUpdates: large,
      },
    };
  }
  return built;
}

/**
 * The record with the full values of its large field updates put back from
 * the LARGE_LOG content. Returns the keys that the content did not have.
 */
export function withFullValues(
  record: DeepReadonly<LogRecord>,
  content: LargeLogContent,
): { record: DeepReadonly<LogRecord>; missing: string[] } {
  const byKey = new Map(content.fieldUpdates.map((fu) => [fu.key, fu]));
  const missing: string[] = [];
  const fieldUpdates = record.fieldUpdates.map((fu): DeepReadonly<FieldUpdate> => {
    if (!fu.isLarge) return fu;
    const fullFu = byKey.get(fu.key);
    if (!fullFu) {
      missing.push(fu.key);
      return fu;
    }
    const out: FieldUpdate = { key: fu.key, operation: fu.operation };
    if (fullFu.oldValue !== undefined) out.oldValue = fullFu.oldValue;
    if (fullFu.newValue !== undefined) out.newValue = fullFu.newValue;
    out.isLarge = true;
    return out;
  });
  return { record: { ...record, fieldUpdates }, missing };
}
