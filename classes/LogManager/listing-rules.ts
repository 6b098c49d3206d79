/**
 * getLogEntries input → a document-store query on the `logs` collection.
 * Pure: takes the input its schema validated (names, lengths, paging, the
 * shape of from/to), answers the filter/sort/page or throws a 400 LogManager
 * error for what a schema cannot say (a date that does not exist, from after to).
 */
import type { DeepReadonly, FieldError, ListingSpec } from '../../runtime';
import type { GetLogEntriesInput } from '../../schemas/LogManager/inputs';
import { escapeRegex, problemsText, type ListingQuery } from '../_platform/paging';
import { logManagerError } from './errors';
import type { LogRecord } from './log-entry';

/** between the parts of `searchText`; JSON-encoded values never hold it raw */
export const SEARCH_SEPARATOR = '\u0001';

/**
 * Entity types whose entries are about a person other than their entity, and
 * the additionalData key naming that person: a member's documents are logged
 * with the document as entity and the member in `memberId`
 * (_platform/entity-documents.ts). The listing carries that id as
 * `subjectId`, so a data subject's export and erasure find these entries by
 * the member's id (subject-data-rules.ts).
 */
export const SUBJECT_LINK_KEYS: Readonly<Record<string, string>> = Object.freeze({ member_document: 'memberId' });

/** The id of the person an entry is about besides its entity (SUBJECT_LINK_KEYS), or undefined. */
export function linkedSubjectId(
  log: Pick<DeepReadonly<LogRecord>, 'entityType' | 'additionalData'>,
): string | undefined {
  if (!Object.hasOwn(SUBJECT_LINK_KEYS, log.entityType)) return undefined;
  const key = SUBJECT_LINK_KEYS[log.entityType];
  const data = log.additionalData;
  const id = data && Object.hasOwn(data, key) ? data[key] : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The listed view of a log entry (collection `logs`): what getLogEntries
 * filters and sorts on, and the keys and values of its field updates as one
 * string to search in. The full entry stays in the LogManager instance: a
 * page is read from there, so the listing copy (one per process with the
 * embedded document store) holds one string instead of every field update.
 * `subjectId` (only on entries that have one: linkedSubjectId) is the person
 * the entry is about when that is not its entity.
 */
export function logListingDocument(log: LogRecord): Record<string, unknown> {
  const parts: string[] = [];
  for (const u of log.fieldUpdates) {
    parts.push(u.key);
    if (u.oldValue !== undefined) parts.push(u.oldValue);
    if (u.newValue !== undefined) parts.push(u.newValue);
  }
  const doc: Record<string, unknown> = {
    id: log.id,
    classId: log.classId,
    entityId: log.entityId,
    entityType: log.entityType,
    timeStamp: log.timeStamp,
    actor: {
      id: log.actor.id,
      type: log.actor.type,
      ...(log.actor.name !== undefined ? { name: log.actor.name } : {}),
    },
    fieldCount: log.fieldUpdates.length,
    companyId: log.companyId ?? null,
    searchText: parts.join(SEARCH_SEPARATOR),
  };
  const subjectId = linkedSubjectId(log);
  if (subjectId !== undefined) doc.subjectId = subjectId;
  return doc;
}

export const DEFAULT_PAGE_SIZE = 20;
/** the highest page (getLogEntries's schema says the same for a POST body); limit is the shared 1 to MAX_PAGE_SIZE (_platform/paging.ts) */
export const MAX_PAGE = 10_000_000;

export type LogListQuery = ListingQuery;

/** the date-times from and to take (schemas/LogManager/getLogEntries.json says the same shape, a space for '+' too) */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * getLogEntries, newest first: a class's entries or one entity's are read off an index in that order
 * (the entity's id is selective enough to find the class's among them); from/to bound the same walk
 */
export const LIST_LOG_ENTRIES: ListingSpec = {
  name: 'getLogEntries',
  sort: { timeStamp: -1, id: 1 },
  filterSets: [[], ['classId'], ['entityId']],
};

/**
 * An ISO 8601 date-time as a UTC ISO string, or undefined when it is not one.
 * A '+' offset that arrived as a space (an unencoded '+' in a query string) is
 * read as '+'.
 */
export function parseDateTime(text: string): string | undefined {
  const fixed = text.replace(/^(.*T[\d:.]+) (\d{2}:\d{2})$/, '$1+$2');
  if (!ISO_DATE_TIME.test(fixed)) return undefined;
  const ms = Date.parse(fixed);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The refusal of a bad getLogEntries or getLog input, by its schema or a rule: 400 12001, each field and reason. */
export function invalidQuery(errors: FieldError[]) {
  return logManagerError('INVALID_QUERY', `Invalid query: ${problemsText(errors)}`, { errors });
}

/**
 * The listing's query from its validated input: the filters, from/to as UTC
 * instants (a date that does not exist is refused; from after to is 12002),
 * the search trimmed (blank: none), page 1 and 20 a page unless given.
 */
export function logListQuery(input: GetLogEntriesInput): LogListQuery {
  const errors: FieldError[] = [];
  const filter: Record<string, unknown> = {};
  if (input.classId !== undefined) filter.classId = input.classId;
  if (input.entityId !== undefined) filter.entityId = input.entityId;
  if (input.entityType !== undefined) filter.entityType = input.entityType;

  const range: Record<string, string> = {};
  for (const [key, op] of [
    ['from', '$gte'],
    ['to', '$lte'],
  ] as const) {
    const v = input[key];
    if (v === undefined) continue;
    const iso = parseDateTime(v);
    if (!iso) errors.push({ field: key, reason: 'must be an ISO 8601 date-time (e.g. 2024-05-01T00:00:00Z)' });
    else range[op] = iso;
  }
  if (errors.length) throw invalidQuery(errors);
  if (range.$gte && range.$lte && range.$gte > range.$lte) {
    throw logManagerError('INVALID_DATE_RANGE', '`from` must not be after `to`', {
      errors: [{ field: 'from', reason: 'must not be after to' }],
    });
  }
  if (range.$gte || range.$lte) filter.timeStamp = range;
  const search = input.search?.trim();
  if (search) {
    const regex = { $regex: escapeRegex(search), $options: 'i' };
    // keys and values (searchText), actor name and id
    filter.$or = ['searchText', 'actor.name', 'actor.id'].map((path) => ({ [path]: regex }));
  }
  const page = input.page ?? 1;
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  return { filter, sort: { ...LIST_LOG_ENTRIES.sort }, page, limit, skip: (page - 1) * limit };
}
