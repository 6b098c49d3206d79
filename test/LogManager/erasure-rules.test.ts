/** LogManager's pure rules of a data subject's erasure (classes/LogManager/erasure-rules.ts). */
import { ERASED, type Subject } from '../../classes/_platform/personal-data';
import {
  ERASED_JSON,
  eraseAdditionalData,
  erasedEntry,
  erasedLargeFile,
  eraseFieldUpdate,
  eraseNameInJson,
  needsErasure,
  needsLargeContent,
  needsLargeFile,
} from '../../classes/LogManager/erasure-rules';
import { logListingDocument } from '../../classes/LogManager/listing-rules';
import { buildLog, largeLogBlobName, type LogRecord } from '../../classes/LogManager/log-entry';

const member: Subject = { type: 'member', id: 'm-1' };
const user: Subject = { type: 'program_management_user', id: 'u-1' };
const NOW = '2024-06-01T00:00:00.000Z';

function entry(over: Partial<LogRecord> = {}): LogRecord {
  return {
    id: 'log-1',
    classId: 'Member',
    entityId: 'm-1',
    entityType: 'member',
    timeStamp: '2024-05-01T10:00:00.000Z',
    isLargeLog: false,
    fieldUpdates: [
      { key: 'name', operation: 'replace', oldValue: '"Zephyrine"', newValue: '"Zephyra"' },
      { key: 'surname', operation: 'add', newValue: '"Quillfeather"' },
      { key: 'note', operation: 'remove', oldValue: '{"text":"private"}' },
      { key: 'phone', operation: 'replace', oldValue: '"***"', newValue: '"***"' },
    ],
    actor: { id: 'u-9', type: 'program_management_user', name: 'Ola Reviewer', roles: ['super'] },
    additionalData: { event: 'member_update', nested: { reason: 'moved to Quillfeather Street', n: 3, ok: true } },
    companyId: 'c-1',
    ...over,
  };
}

describe('erasing values', () => {
  test('a field update keeps its key, operation and isLarge; each present value becomes the JSON text of ERASED', () => {
    expect(ERASED_JSON).toBe('"[erased]"');
    expect(eraseFieldUpdate({ key: 'name', operation: 'replace', oldValue: '"a"', newValue: '"b"' })).toEqual({
      key: 'name',
      operation: 'replace',
      oldValue: ERASED_JSON,
      newValue: ERASED_JSON,
    });
    // the missing side stays missing: an add has no old value, a remove no new one
    expect(eraseFieldUpdate({ key: 'x', operation: 'add', newValue: 'null', isLarge: true })).toEqual({
      key: 'x',
      operation: 'add',
      newValue: ERASED_JSON,
      isLarge: true,
    });
    expect(eraseFieldUpdate({ key: 'x', operation: 'remove', oldValue: '1' })).toEqual({
      key: 'x',
      operation: 'remove',
      oldValue: ERASED_JSON,
    });
  });

  test("additionalData keeps the key linking the entry to its subject (an id, as the entry's entity id)", () => {
    expect(eraseAdditionalData({ memberId: 'm-1', label: 'passport' }, 'memberId')).toEqual({
      memberId: 'm-1',
      label: ERASED,
    });
    expect(eraseAdditionalData({ memberId: 'm-1' }, undefined)).toEqual({ memberId: ERASED });
  });
});

describe('an entry about the subject', () => {
  test('its values go, the fact of the change stays, the entry is marked; the actor (someone else) stays', () => {
    const before = Object.freeze(entry());
    const after = erasedEntry(before, member, 'er-1', NOW)!.entry;
    expect(after).toEqual({
      ...entry(),
      fieldUpdates: [
        { key: 'name', operation: 'replace', oldValue: ERASED_JSON, newValue: ERASED_JSON },
        { key: 'surname', operation: 'add', newValue: ERASED_JSON },
        { key: 'note', operation: 'remove', oldValue: ERASED_JSON },
        { key: 'phone', operation: 'replace', oldValue: ERASED_JSON, newValue: ERASED_JSON },
      ],
      additionalData: { event: ERASED, nested: { reason: ERASED, n: 3, ok: true } },
      erasedBy: 'er-1',
      erasedAt: NOW,
    });
    // the stored (frozen) entry is not touched
    expect(before.fieldUpdates[0].oldValue).toBe('"Zephyrine"');
    // and its listing's search text holds none of the values
    const listed = logListingDocument(after);
    expect(listed.searchText).not.toMatch(/Zephyr|Quillfeather|private/);
  });

  test('a second erasure finds nothing left, whatever erasure it is', () => {
    const once = erasedEntry(entry(), member, 'er-1', NOW)!.entry;
    expect(needsErasure(once, member)).toBe(false);
    expect(erasedEntry(once, member, 'er-1', NOW)).toBeNull();
    expect(erasedEntry(once, member, 'er-2', NOW)).toBeNull();
  });

  test('an entry without additionalData gets none', () => {
    const { additionalData: _none, ...without } = entry();
    const after = erasedEntry(without, member, 'er-1', NOW)!.entry;
    expect('additionalData' in after).toBe(false);
  });

  test("a member's document: its values go, the link to the member stays (the entry is still found by it)", () => {
    const doc = entry({
      entityType: 'member_document',
      entityId: 'doc-1',
      fieldUpdates: [{ key: 'originalFilename', operation: 'add', newValue: '"zephyrine-passport.pdf"' }],
      additionalData: { memberId: 'm-1' },
    });
    const after = erasedEntry(doc, member, 'er-1', NOW)!.entry;
    expect(after.fieldUpdates).toEqual([{ key: 'originalFilename', operation: 'add', newValue: ERASED_JSON }]);
    expect(after.additionalData).toEqual({ memberId: 'm-1' });
    expect(logListingDocument(after).subjectId).toBe('m-1');
  });

  test('a large entry: previews go as the values do, isLarge stays; its file is the one to delete; no file needed after', () => {
    const built = buildLog({
      logId: 'log-big',
      timeStamp: NOW,
      classId: 'Member',
      entityId: 'm-1',
      entityType: 'member',
      before: { note: 'a' },
      after: { note: 'Quillfeather '.repeat(200) },
      actor: { id: 'u-9', type: 'program_management_user' },
    });
    expect(built.record.isLargeLog).toBe(true);
    expect(needsLargeFile(built.record)).toBe(true);
    expect(erasedLargeFile(built.record, member)).toBe(largeLogBlobName('member', 'm-1', 'log-big'));
    const after = erasedEntry(built.record, member, 'er-1', NOW)!.entry;
    expect(after.isLargeLog).toBe(true);
    expect(after.fieldUpdates).toEqual([
      { key: 'note', operation: 'replace', oldValue: ERASED_JSON, newValue: ERASED_JSON, isLarge: true },
    ]);
    expect(needsLargeFile(after)).toBe(false);
    // still the file to delete on a later call (one that stopped before deleting it)
    expect(erasedLargeFile(after, member)).toBe(largeLogBlobName('member', 'm-1', 'log-big'));
    // a large entry the subject only made: its file holds someone else's values and stays
    expect(erasedLargeFile({ ...built.record, entityId: 'm-2', actor: { id: 'm-1', type: 'member' } }, member)).toBe(
      null,
    );
    expect(erasedLargeFile(entry(), member)).toBeNull();
  });
});

describe('an entry the subject made', () => {
  test("the actor's name goes (id, type, roles stay); the values, about someone else, stay; no mark", () => {
    const made = entry({
      entityId: 'm-2',
      actor: { id: 'u-1', type: 'program_management_user', name: 'Una User', roles: ['super'] },
    });
    expect(needsErasure(made, user)).toBe(true);
    const after = erasedEntry(made, user, 'er-1', NOW)!.entry;
    expect(after).toEqual({
      ...made,
      actor: { id: 'u-1', type: 'program_management_user', name: ERASED, roles: ['super'] },
    });
    expect(erasedEntry(after, user, 'er-1', NOW)).toBeNull();
    expect(logListingDocument(after).actor).toEqual({ id: 'u-1', type: 'program_management_user', name: ERASED });
  });

  test('where its values copy its name (a createdBy), that string goes too; other strings, keys and previews stay', () => {
    const createdBy = { id: 'u-1', type: 'program_management_user', name: 'Una User', roles: ['super'] };
    const made = entry({
      entityId: 'm-2',
      fieldUpdates: [
        { key: 'createdBy', operation: 'add', newValue: JSON.stringify(createdBy) },
        { key: 'name', operation: 'add', newValue: '"Una User"' },
        { key: 'surname', operation: 'add', newValue: '"Una User Junior"' },
      ],
      actor: { ...createdBy, type: 'program_management_user' },
      additionalData: { by: 'Una User', nested: ['Una User', 'kept'] },
    });
    const after = erasedEntry(made, user, 'er-1', NOW)!;
    expect(after.large).toBeUndefined();
    expect(after.entry.fieldUpdates).toEqual([
      { key: 'createdBy', operation: 'add', newValue: JSON.stringify({ ...createdBy, name: ERASED }) },
      { key: 'name', operation: 'add', newValue: ERASED_JSON },
      { key: 'surname', operation: 'add', newValue: '"Una User Junior"' },
    ]);
    expect(after.entry.additionalData).toEqual({ by: ERASED, nested: [ERASED, 'kept'] });
    expect(after.entry.erasedBy).toBeUndefined();
    expect(eraseNameInJson('{"a":"x"}', 'Una User')).toBe('{"a":"x"}');
    expect(eraseNameInJson('"Una Us', 'Una User')).toBeNull();
  });

  test('a large entry it made: the name goes from the full values in the LARGE_LOG content, the previews are cut again', () => {
    const built = buildLog({
      logId: 'log-big',
      timeStamp: NOW,
      classId: 'Member',
      entityId: 'm-2',
      entityType: 'member',
      before: null,
      after: {
        note: 'n'.repeat(1500),
        createdBy: { id: 'u-1', name: 'Una User' },
        list: ['Una User', 'x'.repeat(2000)],
      },
      actor: { id: 'u-1', type: 'program_management_user', name: 'Una User' },
    });
    const made = built.record;
    expect(needsLargeContent(made, user)).toBe(true);
    expect(needsLargeContent(made, member)).toBe(false);
    // its file holds someone else's values: it stays (rewritten), it is not deleted
    expect(erasedLargeFile(made, user)).toBeNull();
    const after = erasedEntry(made, user, 'er-1', NOW, built.large!.content)!;
    const list = after.large!.fieldUpdates.find((u) => u.key === 'list')!;
    expect(JSON.parse(list.newValue!)).toEqual([ERASED, 'x'.repeat(2000)]);
    const preview = after.entry.fieldUpdates.find((u) => u.key === 'list')!;
    expect(preview.isLarge).toBe(true);
    expect(list.newValue!.startsWith(preview.newValue!)).toBe(true);
    expect(preview.newValue).not.toContain('Una User');
    // the note had no name: as it was, and the small createdBy lost it inline
    expect(after.large!.fieldUpdates.find((u) => u.key === 'note')).toEqual(
      built.large!.content.fieldUpdates.find((u) => u.key === 'note'),
    );
    expect(after.entry.fieldUpdates.find((u) => u.key === 'createdBy')!.newValue).toBe(
      JSON.stringify({ id: 'u-1', name: ERASED }),
    );
    // without its file (gone), the previews stay as they were
    const blind = erasedEntry(made, user, 'er-1', NOW)!;
    expect(blind.large).toBeUndefined();
    expect(blind.entry.fieldUpdates.find((u) => u.key === 'list')).toEqual(
      made.fieldUpdates.find((u) => u.key === 'list'),
    );
    expect(blind.entry.actor.name).toBe(ERASED);
  });

  test('a member acting has no name: nothing to erase; a developer is the same user', () => {
    expect(
      erasedEntry(entry({ entityId: 'm-2', actor: { id: 'm-1', type: 'member' } }), member, 'er-1', NOW),
    ).toBeNull();
    const dev = entry({ entityId: 'x', actor: { id: 'u-1', type: 'developer', name: 'Una' } });
    expect(erasedEntry(dev, user, 'er-1', NOW)!.entry.actor.name).toBe(ERASED);
  });

  test('about the subject and made by it: both in one', () => {
    const self = entry({
      entityId: 'u-1',
      entityType: 'programManagementUser',
      actor: { id: 'u-1', type: 'program_management_user', name: 'Una User' },
    });
    const after = erasedEntry(self, user, 'er-1', NOW)!.entry;
    expect(after.actor.name).toBe(ERASED);
    expect(after.erasedBy).toBe('er-1');
    expect(after.fieldUpdates.every((u) => u.newValue === ERASED_JSON || u.newValue === undefined)).toBe(true);
  });

  test('an entry naming neither: nothing', () => {
    expect(needsErasure(entry({ entityId: 'm-9' }), member)).toBe(false);
    expect(erasedEntry(entry({ entityId: 'm-9' }), member, 'er-1', NOW)).toBeNull();
  });
});
