/**
 * What LogManager gives a data subject's export
 * (classes/_platform/personal-data.ts), pure: which audit entries name the
 * subject, how the `logs` listing finds them page after page, and the records
 * and files they become. Unit-tested in test/LogManager/subject-data-rules.test.ts.
 *
 * An entry names the subject when it is about the subject (it logs a change of
 * the subject itself, by its entity type and id, or of something the listing
 * links to the subject: a member's documents, by `subjectId`) or when the
 * subject made the change (its actor). The erasure (erasure-rules.ts) treats
 * the two apart: the values of an entry about the subject go, an entry the
 * subject made loses the actor's name.
 */
import type { DeepReadonly, ListingSpec } from '../../runtime';
import {
  subjectActorTypes,
  type Subject,
  type SubjectFile,
  type SubjectRecord,
  type SubjectType,
} from '../_platform/personal-data';
import { LIST_LOG_ENTRIES, linkedSubjectId } from './listing-rules';
import type { LogRecord } from './log-entry';

export const CLASS_ID = 'LogManager';
/** the kind of an audit entry in the export (one record per entry) */
export const LOG_ENTRY_KIND = 'logEntry';
/** the kind of an entry's LARGE_LOG file in the export */
export const LARGE_LOG_KIND = 'largeLog';
export const LARGE_LOG_CONTENT_TYPE = 'application/json';

/** entries read from the listing at a time (the same bound as a getLogEntries page) */
export const SUBJECT_PAGE_SIZE = 100;

/**
 * exportSubjectData's walk of `logs`: by entity id (getLogEntries's index)
 * and by the actor's id (its own index), in getLogEntries's order, which the
 * next page continues from (afterEntry).
 */
export const LIST_SUBJECT_LOG_ENTRIES: ListingSpec = {
  name: 'exportSubjectData',
  sort: { ...LIST_LOG_ENTRIES.sort },
  filterSets: [['entityId'], ['actor.id'], ['subjectId']],
};

/**
 * The entity types the subject's own class logs its changes under
 * (logChange in Member, ProgramManagementUser, PartnerUser): the record
 * itself, and a back-office user's password changes, which are logged apart
 * so that the user's entry never carries them.
 */
const SUBJECT_ENTITY_TYPES: Record<SubjectType, readonly string[]> = {
  member: ['member'],
  program_management_user: ['programManagementUser', 'programManagementUserCredentials'],
  partner_user: ['partnerUser'],
};

/**
 * The entity types whose entries are about a subject of a type although their
 * entity is something else, found by the listing's `subjectId`
 * (listing-rules.ts SUBJECT_LINK_KEYS): a member's documents.
 */
const SUBJECT_LINKED_TYPES: Record<SubjectType, readonly string[]> = {
  member: ['member_document'],
  program_management_user: [],
  partner_user: [],
};

export function subjectEntityTypes(type: SubjectType): readonly string[] {
  return SUBJECT_ENTITY_TYPES[type];
}

export function subjectLinkedTypes(type: SubjectType): readonly string[] {
  return SUBJECT_LINKED_TYPES[type];
}

/**
 * The filters of the `logs` listing that find the subject's entries, one per
 * index (LIST_SUBJECT_LOG_ENTRIES): entries of its entity, entries it made,
 * entries linked to it (a member's documents). An entry found by several is
 * one entry (the caller keeps each id once).
 */
export function subjectLogFilters(subject: Subject): Record<string, unknown>[] {
  const filters: Record<string, unknown>[] = [
    { entityId: subject.id, entityType: { $in: [...subjectEntityTypes(subject.type)] } },
  ];
  const actorTypes = subjectActorTypes(subject.type);
  if (actorTypes.length) filters.push({ 'actor.id': subject.id, 'actor.type': { $in: [...actorTypes] } });
  const linked = subjectLinkedTypes(subject.type);
  if (linked.length) filters.push({ subjectId: subject.id, entityType: { $in: [...linked] } });
  return filters;
}

/** The listed fields the walk continues from (logListingDocument). */
export interface ListedEntryKey {
  id: string;
  timeStamp: string;
}

/**
 * The filter of the page after `last`, in the listing's order (timeStamp
 * newest first, then id): what comes strictly after it. Continuing from the
 * last entry seen, rather than skipping a count, neither repeats nor misses
 * an entry when others are listed meanwhile.
 */
export function afterEntry(filter: Record<string, unknown>, last: ListedEntryKey | undefined): Record<string, unknown> {
  if (!last) return filter;
  return {
    $and: [
      filter,
      { $or: [{ timeStamp: { $lt: last.timeStamp } }, { timeStamp: last.timeStamp, id: { $gt: last.id } }] },
    ],
  };
}

/** The listing's order (timeStamp newest first, then id), for the entries both walks found. */
export function newestFirst(a: ListedEntryKey, b: ListedEntryKey): number {
  if (a.timeStamp !== b.timeStamp) return a.timeStamp < b.timeStamp ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

type StoredEntry = LogRecord | DeepReadonly<LogRecord>;

/** Is the entry about the subject: a change of the subject itself, or of something linked to it (a member's document)? */
export function entryIsAboutSubject(entry: StoredEntry, subject: Subject): boolean {
  if (entry.entityId === subject.id && subjectEntityTypes(subject.type).includes(entry.entityType)) return true;
  return subjectLinkedTypes(subject.type).includes(entry.entityType) && linkedSubjectId(entry) === subject.id;
}

/** Did the subject make the change the entry logs (its actor)? */
export function entryMadeBySubject(entry: StoredEntry, subject: Subject): boolean {
  return entry.actor.id === subject.id && subjectActorTypes(subject.type).includes(entry.actor.type);
}

/**
 * Does the stored entry name the subject? The listing is a projection; the
 * entry as its instance holds it decides (the same rule as subjectLogFilters).
 */
export function entryNamesSubject(entry: StoredEntry, subject: Subject): boolean {
  return entryIsAboutSubject(entry, subject) || entryMadeBySubject(entry, subject);
}

/**
 * An entry as the export gives it: as stored (large values as their
 * previews, the full values in its LARGE_LOG file). Masked fields stay masked:
 * the entry never held their values.
 */
export function logEntryRecord(entry: DeepReadonly<LogRecord>): SubjectRecord {
  return {
    store: 'audit',
    classId: CLASS_ID,
    instanceId: entry.id,
    kind: LOG_ENTRY_KIND,
    data: structuredClone(entry),
  };
}

/** An entry's LARGE_LOG file (largeLogBlobName) as the export gives it. */
export function largeLogFile(entryId: string, name: string, content: Buffer): SubjectFile {
  return {
    classId: CLASS_ID,
    instanceId: entryId,
    name,
    contentType: LARGE_LOG_CONTENT_TYPE,
    kind: LARGE_LOG_KIND,
    contentBase64: content.toString('base64'),
  };
}
