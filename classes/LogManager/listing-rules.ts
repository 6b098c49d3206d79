/**
 * getLogEntries input → a document-store query on the `logs` collection.
 * Pure: takes the merged query-string and body parameters, answers the
 * filter/sort/page or throws a 400 LogManager error.
 */
import type { FieldError, ListingSpec } from '../../runtime';
import { escapeRegex, parsePaging, problemsText } from '../_platform/paging';
import { logManagerError } from './errors';
import type { LogRecord } from './log-entry';

/** between the parts of `searchText`; JSON-encoded values never hold it raw */
export const SEARCH_SEPARATOR = '\u0001';

/**
 * The listed view of a log entry (collection `logs`): what getLogEntries
 * filters and sorts on, and the keys and values of its field updates as one
 * string to search in. The full entry stays in the LogManager instance: a
 * page is read from there, so the listing copy (one per process with the
 * embedded document store) holds one string instead of every field update.
 */
export function logListingDocument(log: LogRecord): Record<string, unknown> {
  const parts: string[] = [];
  for (const u of log.fieldUpdates) {
    parts.push(u.key);
    if (u.oldValue !== undefined) parts.push(u.oldValue);
    if (u.newValue !== undefined) parts.push(u.newValue);
  }
  return {
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
}

export const DEFAULT_PAGE_SIZE = 20;
/** the highest page (getLogEntries's schema says the same for a POST body); limit is the shared 1 to MAX_PAGE_SIZE (_platform/paging.ts) */
export const MAX_PAGE = 10_000_000;
export const MAX_SEARCH_LENGTH = 200;

export interface LogListQuery {
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  page: number;
  limit: number;
  skip: number;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
const STRING_FILTERS = ['classId', 'entityId', 'entityType'] as const;

/**
 * getLogEntries, newest first: a class's entries or one entity's are read off an index in that order
 * (the entity's id is selective enough to find the class's among them); from/to bound the same walk
 */
export const LIST_LOG_ENTRIES: ListingSpec = {
  name: 'getLogEntries',
  sort: { timeStamp: -1, id: 1 },
  filterSets: [[], ['classId'], ['entityId']],
};
const KNOWN = new Set<string>([...STRING_FILTERS, 'from', 'to', 'search', 'page', 'limit']);

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

/**
 * Parameters may come from the query string (strings) or the body; body
 * values win. Unknown parameters are refused so that a typo ("entityID") does
 * not silently list everything.
 */
export function parseLogListQuery(
  query: Readonly<Record<string, unknown>>,
  body: Readonly<Record<string, unknown>>,
): LogListQuery {
  const input: Record<string, unknown> = { ...query, ...body };
  const errors: FieldError[] = [];
  const filter: Record<string, unknown> = {};

  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key)) errors.push({ field: key, reason: 'is not allowed' });
  }
  for (const key of STRING_FILTERS) {
    const v = input[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length === 0 || v.length > 200)
      errors.push({ field: key, reason: 'must be a string of 1 to 200 characters' });
    else filter[key] = v;
  }

  const range: Record<string, string> = {};
  for (const [key, op] of [
    ['from', '$gte'],
    ['to', '$lte'],
  ] as const) {
    const v = input[key];
    if (v === undefined) continue;
    const iso = typeof v === 'string' ? parseDateTime(v) : undefined;
    if (!iso) errors.push({ field: key, reason: 'must be an ISO 8601 date-time (e.g. 2024-05-01T00:00:00Z)' });
    else range[op] = iso;
  }

  let search: string | undefined;
  if (input.search !== undefined) {
    const v = input.search;
    if (typeof v !== 'string' || v.length > MAX_SEARCH_LENGTH)
      errors.push({ field: 'search', reason: `must be a string of at most ${MAX_SEARCH_LENGTH} characters` });
    else if (v.trim().length) search = v.trim();
  }

  const { page, limit } = parsePaging(input, errors, DEFAULT_PAGE_SIZE);
  if (page > MAX_PAGE) errors.push({ field: 'page', reason: `must be an integer from 1 to ${MAX_PAGE}` });

  if (errors.length) {
    throw logManagerError('INVALID_QUERY', `Invalid query: ${problemsText(errors)}`, { errors });
  }
  if (range.$gte && range.$lte && range.$gte > range.$lte) {
    throw logManagerError('INVALID_DATE_RANGE', '`from` must not be after `to`', {
      errors: [{ field: 'from', reason: 'must not be after to' }],
    });
  }
  if (range.$gte || range.$lte) filter.timeStamp = range;
  if (search) {
    const regex = { $regex: escapeRegex(search), $options: 'i' };
    // keys and values (searchText), actor name and id
    filter.$or = ['searchText', 'actor.name', 'actor.id'].map((path) => ({ [path]: regex }));
  }
  return { filter, sort: { ...LIST_LOG_ENTRIES.sort }, page, limit, skip: (page - 1) * limit };
}
