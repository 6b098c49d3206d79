import { ActorError } from '../../runtime';
import { escapeRegex } from '../../classes/_platform/paging';
import {
  logListingDocument,
  MAX_PAGE,
  invalidQuery,
  logListQuery,
  parseDateTime,
  SEARCH_SEPARATOR,
} from '../../classes/LogManager/listing-rules';
import { schemaRefusal } from './support';

function refusal(fn: () => unknown): ActorError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ActorError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('logListQuery', () => {
  test('defaults: page 1, 20 per page, newest first, no filter', () => {
    expect(logListQuery({})).toEqual({
      filter: {},
      sort: { timeStamp: -1, id: 1 },
      page: 1,
      limit: 20,
      skip: 0,
    });
    expect(logListQuery({ page: 3, limit: 100 })).toMatchObject({ page: 3, limit: 100, skip: 200 });
  });

  test('a GET query is coerced by the schema: numbers from strings, blank values not given', () => {
    expect(schemaRefusal('LogManager', 'getLogEntries', { page: '3', limit: '100', search: '' })).toEqual({
      input: { page: 3, limit: 100 },
      fields: [],
    });
    expect(schemaRefusal('LogManager', 'getLogEntries', { page: String(MAX_PAGE) }).fields).toEqual([]);
  });

  test.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ page: '0' }, 'page'],
    [{ page: '-1' }, 'page'],
    [{ page: String(MAX_PAGE + 1) }, 'page'],
    [{ from: 'yesterday' }, 'from'],
    [{ to: '2024-05-01' }, 'to'],
    [{ classId: ['a', 'b'] }, 'classId'],
    [{ search: 'x'.repeat(201) }, 'search'],
    [{ entityID: 'x' }, 'entityID'],
  ])('the schema refuses %j, naming %s', (query, field) => {
    expect(schemaRefusal('LogManager', 'getLogEntries', query).fields).toContain(field);
  });

  test('the schema takes the date-times the listing reads: offsets, a space for +, no seconds', () => {
    for (const from of ['2024-05-01T02:00:00+02:00', '2024-05-01T02:00:00 02:00', '2024-05-01T00:00Z'])
      expect(schemaRefusal('LogManager', 'getLogEntries', { from }).fields).toEqual([]);
  });

  test('a date that does not exist is refused (400, 12001) naming it', () => {
    const err = refusal(() => logListQuery({ to: '2024-13-01T00:00:00Z' }));
    expect([err.status, err.code]).toEqual([400, 12001]);
    expect(err.details).toEqual({
      errors: [{ field: 'to', reason: 'must be an ISO 8601 date-time (e.g. 2024-05-01T00:00:00Z)' }],
    });
    const schema = invalidQuery([{ field: 'limit', reason: 'must be <= 100' }]);
    expect([schema.status, schema.code, schema.message]).toEqual([400, 12001, 'Invalid query: limit must be <= 100']);
  });

  test('from after to is refused (400, 12002); equal bounds are fine', () => {
    const err = refusal(() => logListQuery({ from: '2024-05-02T00:00:00Z', to: '2024-05-01T00:00:00Z' }));
    expect([err.status, err.code]).toEqual([400, 12002]);
    expect(logListQuery({ from: '2024-05-01T00:00:00Z', to: '2024-05-01T00:00:00Z' }).filter).toEqual({
      timeStamp: { $gte: '2024-05-01T00:00:00.000Z', $lte: '2024-05-01T00:00:00.000Z' },
    });
  });

  test('dates with offsets are compared in UTC; an unencoded + offset is understood', () => {
    expect(parseDateTime('2024-05-01T02:00:00+02:00')).toBe('2024-05-01T00:00:00.000Z');
    expect(parseDateTime('2024-05-01T02:00:00 02:00')).toBe('2024-05-01T00:00:00.000Z');
    expect(parseDateTime('2024-05-01T00:00Z')).toBe('2024-05-01T00:00:00.000Z');
    expect(parseDateTime('2024-05-01')).toBeUndefined();
  });

  test('filters and an escaped, case-insensitive search over keys, values and actor', () => {
    const q = logListQuery({ classId: 'Member', entityId: 'm1', search: ' a.b(c ' });
    const regex = { $regex: 'a\\.b\\(c', $options: 'i' };
    expect(q.filter).toEqual({
      classId: 'Member',
      entityId: 'm1',
      $or: [{ searchText: regex }, { 'actor.name': regex }, { 'actor.id': regex }],
    });
    expect(new RegExp(escapeRegex('.*+?^${}()|[]\\')).test('.*+?^${}()|[]\\')).toBe(true);
  });

  test('the listed view of an entry: keys and values in one search string, no field updates', () => {
    const doc = logListingDocument({
      id: 'l1',
      classId: 'Member',
      entityId: 'm1',
      entityType: 'member',
      timeStamp: '2026-01-01T00:00:00.000Z',
      isLargeLog: false,
      fieldUpdates: [
        { key: 'phone', operation: 'replace', oldValue: '"+971 1"', newValue: '"+971 2"' },
        { key: 'grade', operation: 'add', newValue: '"G7"' },
      ],
      actor: { id: 'hr', type: 'system', name: 'HR system', roles: ['x'] },
    });
    expect(doc).toEqual({
      id: 'l1',
      classId: 'Member',
      entityId: 'm1',
      entityType: 'member',
      timeStamp: '2026-01-01T00:00:00.000Z',
      actor: { id: 'hr', type: 'system', name: 'HR system' },
      fieldCount: 2,
      companyId: null,
      searchText: ['phone', '"+971 1"', '"+971 2"', 'grade', '"G7"'].join(SEARCH_SEPARATOR),
    });
    // a search never spans two values
    const q = logListQuery({ search: '2"grade' });
    expect(new RegExp((q.filter.$or as any)[0].searchText.$regex, 'i').test(doc.searchText as string)).toBe(false);
  });
});
