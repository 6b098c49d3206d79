/** LogManager's pure rules of a data subject's export (classes/LogManager/subject-data-rules.ts). */
import { EmbeddedDocumentStore } from '../../runtime/stream/embedded-document-store';
import { collectionIndexes } from '../../runtime/stream/listing';
import type { Subject } from '../../classes/_platform/personal-data';
import { linkedSubjectId, LIST_LOG_ENTRIES, logListingDocument } from '../../classes/LogManager/listing-rules';
import type { LogRecord } from '../../classes/LogManager/log-entry';
import {
  afterEntry,
  entryIsAboutSubject,
  entryMadeBySubject,
  entryNamesSubject,
  largeLogFile,
  LIST_SUBJECT_LOG_ENTRIES,
  logEntryRecord,
  newestFirst,
  subjectLogFilters,
} from '../../classes/LogManager/subject-data-rules';

const member: Subject = { type: 'member', id: 'm-1' };
const user: Subject = { type: 'program_management_user', id: 'u-1' };
const partnerUser: Subject = { type: 'partner_user', id: 'p-1' };

function entry(over: Partial<LogRecord> = {}): LogRecord {
  return {
    id: 'log-1',
    classId: 'Member',
    entityId: 'm-1',
    entityType: 'member',
    timeStamp: '2024-05-01T10:00:00.000Z',
    isLargeLog: false,
    fieldUpdates: [{ key: 'name', operation: 'replace', oldValue: '"***"', newValue: '"***"' }],
    actor: { id: 'u-9', type: 'program_management_user' },
    companyId: 'c-1',
    ...over,
  };
}

describe('which entries name the subject', () => {
  test('a member: entries of its record (entity type member), entries it made (actor type member) and entries of its documents', () => {
    expect(subjectLogFilters(member)).toEqual([
      { entityId: 'm-1', entityType: { $in: ['member'] } },
      { 'actor.id': 'm-1', 'actor.type': { $in: ['member'] } },
      { subjectId: 'm-1', entityType: { $in: ['member_document'] } },
    ]);
    expect(entryNamesSubject(entry(), member)).toBe(true);
    expect(entryNamesSubject(entry({ entityId: 'x', actor: { id: 'm-1', type: 'member' } }), member)).toBe(true);
    // another entity that happens to have the member's id, and a user that happens to share it
    expect(entryNamesSubject(entry({ entityType: 'company' }), member)).toBe(false);
    expect(
      entryNamesSubject(entry({ entityId: 'x', actor: { id: 'm-1', type: 'program_management_user' } }), member),
    ).toBe(false);
  });

  test("a member's documents: entries of entity type member_document naming the member in additionalData.memberId", () => {
    const doc = (over: Partial<LogRecord>) =>
      entry({ entityType: 'member_document', entityId: 'doc-1', additionalData: { memberId: 'm-1' }, ...over });
    expect(entryNamesSubject(doc({}), member)).toBe(true);
    expect(entryIsAboutSubject(doc({}), member)).toBe(true);
    // another member's document, a link under another entity type, a back-office user with the member's id
    expect(entryNamesSubject(doc({ additionalData: { memberId: 'm-2' } }), member)).toBe(false);
    expect(entryNamesSubject(doc({ entityType: 'partner_document' }), member)).toBe(false);
    expect(entryNamesSubject(doc({}), { type: 'program_management_user', id: 'm-1' })).toBe(false);
    expect(entryNamesSubject(doc({ additionalData: {} }), member)).toBe(false);
    // what the listing carries to find it by (listing-rules.ts)
    expect(logListingDocument(doc({})).subjectId).toBe('m-1');
    expect(linkedSubjectId(doc({ additionalData: { memberId: 7 } }))).toBeUndefined();
    expect('subjectId' in logListingDocument(entry())).toBe(false);
  });

  test('about the subject and made by it are told apart (the erasure treats them apart)', () => {
    const own = entry({ actor: { id: 'm-1', type: 'member' } });
    expect([entryIsAboutSubject(own, member), entryMadeBySubject(own, member)]).toEqual([true, true]);
    const other = entry({ entityId: 'm-2', actor: { id: 'm-1', type: 'member' } });
    expect([entryIsAboutSubject(other, member), entryMadeBySubject(other, member)]).toEqual([false, true]);
    expect([entryIsAboutSubject(entry(), member), entryMadeBySubject(entry(), member)]).toEqual([true, false]);
  });

  test('a back-office user: its record and password changes, and what it did as a user or as a developer', () => {
    expect(subjectLogFilters(user)).toEqual([
      { entityId: 'u-1', entityType: { $in: ['programManagementUser', 'programManagementUserCredentials'] } },
      { 'actor.id': 'u-1', 'actor.type': { $in: ['program_management_user', 'developer'] } },
    ]);
    expect(entryNamesSubject(entry({ entityId: 'u-1', entityType: 'programManagementUser' }), user)).toBe(true);
    expect(entryNamesSubject(entry({ entityId: 'u-1', entityType: 'programManagementUserCredentials' }), user)).toBe(
      true,
    );
    expect(entryNamesSubject(entry({ actor: { id: 'u-1', type: 'developer' } }), user)).toBe(true);
    expect(entryNamesSubject(entry({ actor: { id: 'u-1', type: 'member' } }), user)).toBe(false);
    expect(entryNamesSubject(entry({ entityId: 'u-1' }), user)).toBe(false);
  });

  test('a partner user: its record only (partner users do not sign in, so no entry has one as its actor)', () => {
    expect(subjectLogFilters(partnerUser)).toEqual([{ entityId: 'p-1', entityType: { $in: ['partnerUser'] } }]);
    expect(entryNamesSubject(entry({ entityId: 'p-1', entityType: 'partnerUser' }), partnerUser)).toBe(true);
    expect(entryNamesSubject(entry({ actor: { id: 'p-1', type: 'system' } }), partnerUser)).toBe(false);
  });
});

describe('the walk through the logs listing', () => {
  test("in getLogEntries's order, off an index for each filter (entity id, actor id, linked subject id)", () => {
    expect(LIST_SUBJECT_LOG_ENTRIES.sort).toEqual(LIST_LOG_ENTRIES.sort);
    const keys = collectionIndexes('logs', {
      tenantField: 'companyId',
      listings: [LIST_LOG_ENTRIES, LIST_SUBJECT_LOG_ENTRIES],
    }).map((i) => i.keys);
    expect(keys).toContainEqual({ entityId: 1, timeStamp: -1, id: 1 });
    expect(keys).toContainEqual({ 'actor.id': 1, timeStamp: -1, id: 1 });
    expect(keys).toContainEqual({ subjectId: 1, timeStamp: -1, id: 1 });
  });

  test('page after page from the last entry seen: every entry once, ties on the time stamp too, entries listed meanwhile neither repeated nor lost', async () => {
    const store = new EmbeddedDocumentStore();
    let v = 0;
    const put = (id: string, timeStamp: string, entityId = 'm-1') =>
      store.upsertIfNewer('logs', {
        _id: id,
        _v: ++v,
        _instance: id,
        _class: 'LogManager',
        id,
        timeStamp,
        entityId,
        entityType: 'member',
      });
    // 25 entries, five per time stamp, and others of another entity
    for (let i = 0; i < 25; i++)
      await put(`e${String(i).padStart(2, '0')}`, `2024-05-01T10:00:0${Math.floor(i / 5)}.000Z`);
    for (let i = 0; i < 5; i++) await put(`other${i}`, '2024-05-01T10:00:02.000Z', 'm-2');
    const filter = subjectLogFilters(member)[0];
    const seen: string[] = [];
    let last: { id: string; timeStamp: string } | undefined;
    for (let page = 0; ; page++) {
      const { items } = await store.find<{ _id: string; id: string; timeStamp: string }>(
        'logs',
        afterEntry(filter, last),
        { sort: LIST_SUBJECT_LOG_ENTRIES.sort, limit: 4, total: false },
      );
      seen.push(...items.map((d) => d._id));
      // an entry listed while the walk goes on, before the page it would be on, does not shift the pages
      if (page === 1) await put('late', '2024-05-01T10:00:04.500Z');
      if (items.length < 4) break;
      last = { id: items[items.length - 1].id, timeStamp: items[items.length - 1].timeStamp };
    }
    const expected = Array.from({ length: 25 }, (_, i) => `e${String(i).padStart(2, '0')}`).sort((a, b) =>
      newestFirst(
        { id: a, timeStamp: `2024-05-01T10:00:0${Math.floor(Number(a.slice(1)) / 5)}.000Z` },
        { id: b, timeStamp: `2024-05-01T10:00:0${Math.floor(Number(b.slice(1)) / 5)}.000Z` },
      ),
    );
    expect(seen).toEqual(expected);
    expect(seen.slice(0, 5)).toEqual(['e20', 'e21', 'e22', 'e23', 'e24']);
  });

  test('the first page is the filter itself', () => {
    const filter = { entityId: 'm-1' };
    expect(afterEntry(filter, undefined)).toBe(filter);
  });

  test('newest first, then by id', () => {
    const a = { id: 'b', timeStamp: '2024-05-01T10:00:00.000Z' };
    const b = { id: 'a', timeStamp: '2024-05-01T10:00:00.000Z' };
    const c = { id: 'z', timeStamp: '2024-05-02T10:00:00.000Z' };
    expect([a, b, c].sort(newestFirst)).toEqual([c, b, a]);
  });
});

describe('what the export holds', () => {
  test('an entry is an audit record, as stored (a copy: the frozen state is not handed on)', () => {
    const stored = Object.freeze(entry({ isLargeLog: true }));
    const record = logEntryRecord(stored);
    expect(record).toEqual({
      store: 'audit',
      classId: 'LogManager',
      instanceId: 'log-1',
      kind: 'logEntry',
      data: stored,
    });
    expect(record.data).not.toBe(stored);
    expect(Object.isFrozen(record.data)).toBe(false);
  });

  test('a LARGE_LOG file is JSON, in Base64', () => {
    const content = Buffer.from(JSON.stringify({ logId: 'log-1', fieldUpdates: [] }), 'utf8');
    expect(largeLogFile('log-1', 'LARGE_LOG_member_m-1_log-1.json', content)).toEqual({
      classId: 'LogManager',
      instanceId: 'log-1',
      name: 'LARGE_LOG_member_m-1_log-1.json',
      contentType: 'application/json',
      kind: 'largeLog',
      contentBase64: content.toString('base64'),
    });
  });
});
