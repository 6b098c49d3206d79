/** DataSubject's pure rules: the owner class, the scope, the archive's entries and manifest, the export record. */
import { createHash } from 'node:crypto';
import {
  archiveEntries,
  archiveFilename,
  erasureOrder,
  exportRecord,
  mergeSubjectData,
  pathSegment,
  scopeRefusal,
  SUBJECT_DATA_CLASSES,
  sumErased,
  traceValues,
} from '../../classes/DataSubject/rules';
import { subjectOwnerClass, type SubjectData } from '../../classes/_platform/personal-data';

const head = {
  exportId: 'e-1',
  generatedAt: '2026-11-30T00:00:00.000Z',
  subject: { type: 'member' as const, id: 'm-1' },
  includeDependants: true,
  requestedBy: { id: 'pm1', type: 'program_management_user' as const },
};

const memberData: SubjectData = {
  records: [
    { store: 'state', classId: 'Member', instanceId: 'm-1', kind: 'member', data: { name: 'Ada' } },
    { store: 'audit', classId: 'LogManager', instanceId: 'l-1', kind: 'logEntry', data: { id: 'l-1' } },
  ],
  files: [
    {
      classId: 'FileManager',
      instanceId: 'member_m-1',
      name: 'member_m-1_f.png',
      contentType: 'image/png',
      kind: 'file',
      contentBase64: Buffer.from('png bytes').toString('base64'),
    },
  ],
  related: [{ type: 'member', id: 'd-1' }],
  companyId: 'c-1',
};

describe('scopeRefusal', () => {
  test('an internal caller (no tenant) may export anyone', () => {
    expect(scopeRefusal(undefined, 'c-1')).toBeNull();
    expect(scopeRefusal(undefined, null)).toBeNull();
  });
  test('a company user: its own company only, never a subject of none', () => {
    expect(scopeRefusal('c-1', 'c-1')).toBeNull();
    expect(scopeRefusal('c-1', 'c-2')).toMatch(/another company/);
    expect(scopeRefusal('c-1', null)).toMatch(/no company/);
    expect(scopeRefusal('c-1', undefined)).toMatch(/no company/);
  });
});

describe('mergeSubjectData', () => {
  test("records and files of every class, the owner's related and company", () => {
    const merged = mergeSubjectData(memberData, [
      { records: [memberData.records[0]!], files: [], related: [{ type: 'member', id: 'x' }], companyId: 'c-9' },
      { records: [], files: [] },
    ]);
    expect(merged.records).toHaveLength(3);
    expect(merged.files).toHaveLength(1);
    expect(merged.related).toEqual([{ type: 'member', id: 'd-1' }]);
    expect(merged.companyId).toBe('c-1');
  });
});

describe('pathSegment', () => {
  test.each([
    ['m-1', 'm-1'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['..', '_..'],
    ['.', '_.'],
    ['', '_'],
    ['a/b\\c d', 'a_b_c_d'],
  ])('%j → %j', (input, out) => expect(pathSegment(input)).toBe(out));
  test('at most 120 characters', () => expect(pathSegment('x'.repeat(500))).toHaveLength(120));
});

describe('archiveEntries', () => {
  const parts = [
    { subject: head.subject, data: memberData },
    { subject: { type: 'member' as const, id: 'd-1' }, data: { records: [memberData.records[0]!], files: [] } },
  ];
  const { manifest, entries } = archiveEntries(head, parts);

  test('the manifest first, then one entry per record and file, each listed with its origin', () => {
    expect(entries[0]!.path).toBe('manifest.json');
    expect(JSON.parse(entries[0]!.content.toString())).toEqual(manifest);
    expect(entries.map((e) => e.path)).toEqual([
      'manifest.json',
      'member-m-1/records/state/0001-Member-member.json',
      'member-m-1/records/audit/0002-LogManager-logEntry.json',
      'member-m-1/files/FileManager/member_m-1/member_m-1_f.png',
      'member-d-1/records/state/0001-Member-member.json',
    ]);
    expect(manifest.subjects).toEqual([head.subject, { type: 'member', id: 'd-1' }]);
    expect(manifest.records.map((r) => [r.path, r.store, r.classId, r.instanceId, r.kind, r.subject.id])).toEqual([
      ['member-m-1/records/state/0001-Member-member.json', 'state', 'Member', 'm-1', 'member', 'm-1'],
      ['member-m-1/records/audit/0002-LogManager-logEntry.json', 'audit', 'LogManager', 'l-1', 'logEntry', 'm-1'],
      ['member-d-1/records/state/0001-Member-member.json', 'state', 'Member', 'm-1', 'member', 'd-1'],
    ]);
  });

  test('a record entry is the record with where it was kept; a file entry is its bytes, with size and digest', () => {
    expect(JSON.parse(entries[1]!.content.toString())).toEqual({
      store: 'state',
      classId: 'Member',
      instanceId: 'm-1',
      kind: 'member',
      data: { name: 'Ada' },
    });
    expect(entries[3]!.content.toString()).toBe('png bytes');
    expect(manifest.files).toEqual([
      {
        path: 'member-m-1/files/FileManager/member_m-1/member_m-1_f.png',
        subject: head.subject,
        classId: 'FileManager',
        instanceId: 'member_m-1',
        name: 'member_m-1_f.png',
        kind: 'file',
        contentType: 'image/png',
        size: 9,
        sha256: createHash('sha256').update('png bytes').digest('hex'),
      },
    ]);
  });

  test('two files of one name stay two entries', () => {
    const twice = archiveEntries(head, [
      { subject: head.subject, data: { records: [], files: [memberData.files[0]!, memberData.files[0]!] } },
    ]);
    expect(twice.entries.map((e) => e.path)).toEqual([
      'manifest.json',
      'member-m-1/files/FileManager/member_m-1/member_m-1_f.png',
      'member-m-1/files/FileManager/member_m-1/member_m-1_f-2.png',
    ]);
  });

  test('ids that would climb out of the archive folder stay inside it', () => {
    const { entries: hostile } = archiveEntries(head, [
      {
        subject: { type: 'member', id: '../../x' },
        data: { records: [], files: [{ ...memberData.files[0]!, instanceId: '..', name: '../../../evil' }] },
      },
    ]);
    for (const e of hostile) expect(e.path.split('/')).not.toContain('..');
  });
});

describe('exportRecord', () => {
  test('counts and the digest of the archive, never the data', () => {
    const { manifest } = archiveEntries(head, [{ subject: head.subject, data: memberData }]);
    const archive = Buffer.from('zip bytes');
    const record = exportRecord(head, manifest, 'c-1', archive);
    expect(record).toEqual({
      id: 'e-1',
      subject: head.subject,
      includeDependants: true,
      subjects: [head.subject],
      companyId: 'c-1',
      requestedBy: head.requestedBy,
      requestedAt: head.generatedAt,
      recordCount: 2,
      fileCount: 1,
      archiveSha256: createHash('sha256').update(archive).digest('hex'),
    });
    expect(JSON.stringify(record)).not.toContain('Ada');
  });
  test('the download name carries the export id only', () => {
    expect(archiveFilename('e-1')).toBe('subject-export-e-1.zip');
    expect(archiveFilename('a"b/c')).toBe('subject-export-a_b_c.zip');
  });
});

describe('traceValues', () => {
  test('trimmed, each once, none shorter than three characters, none that is not a string', () => {
    expect(
      traceValues([[' Zenobia ', 'Zenobia', 'Al', 'zq@x.example'], undefined, ['+97150', 7 as unknown as string, '']]),
    ).toEqual(['Zenobia', 'zq@x.example', '+97150']);
  });
});

describe('sumErased', () => {
  test('per class, summed over the subjects, in the order first seen', () => {
    expect(
      sumErased([
        { classId: 'FileManager', records: 2, files: 2 },
        { classId: 'Member', records: 1, files: 0 },
        { classId: 'FileManager', records: 1, files: 1 },
      ]),
    ).toEqual([
      { classId: 'FileManager', records: 3, files: 3 },
      { classId: 'Member', records: 1, files: 0 },
    ]);
  });
});

describe('erasureOrder', () => {
  test.each(['member', 'program_management_user', 'partner_user'] as const)(
    "%s: every class once, the subject's own class last",
    (type) => {
      const order = erasureOrder(type);
      expect([...order].sort()).toEqual([...SUBJECT_DATA_CLASSES].sort());
      expect(order[order.length - 1]).toBe(subjectOwnerClass(type));
    },
  );
});
