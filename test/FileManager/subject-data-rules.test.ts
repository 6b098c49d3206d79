/**
 * FileManager's personal-data export, the pure part (subject-data-rules.ts):
 * which instances hold a subject's files, and the records and files made of
 * them.
 */
import {
  fileMetadataRecords,
  SUBJECT_FILE_ENTITIES,
  subjectFile,
  subjectFileInstances,
} from '../../classes/FileManager/subject-data-rules';
import { SUBJECT_TYPES } from '../../classes/_platform/personal-data';
import type { FileMetadata } from '../../classes/FileManager/rules';

const file: FileMetadata = {
  id: 'f-1',
  filename: 'member_m-1_f-1.png',
  originalFilename: 'me.png',
  fileType: 'image',
  mimeType: 'image/png',
  size: 3,
  actionHistory: [{ action: 'upload', actor: { id: 'pm1', type: 'program_management_user' }, timestamp: 't0' }],
  createdAt: 't0',
  updatedAt: 't0',
  status: 'active',
  isPublic: false,
};

describe('where a subject has files', () => {
  test("a member's are its member_<id> instance; back-office and partner users keep none here", () => {
    expect(subjectFileInstances({ type: 'member', id: 'm-1' })).toEqual(['member_m-1']);
    expect(subjectFileInstances({ type: 'program_management_user', id: 'u-1' })).toEqual([]);
    expect(subjectFileInstances({ type: 'partner_user', id: 'p-1' })).toEqual([]);
    // every subject type says where, even where it is nowhere
    expect(Object.keys(SUBJECT_FILE_ENTITIES).sort()).toEqual([...SUBJECT_TYPES].sort());
  });

  test('an id no instance id can carry names no instance (a lookup, a slash, too long)', () => {
    expect(subjectFileInstances({ type: 'member', id: 'a!b' })).toEqual([]);
    expect(subjectFileInstances({ type: 'member', id: '../x' })).toEqual([]);
    expect(subjectFileInstances({ type: 'member', id: 'x'.repeat(129) })).toEqual([]);
    expect(subjectFileInstances({ type: 'member', id: 'dep_1-a' })).toEqual(['member_dep_1-a']);
  });
});

describe('records and files', () => {
  test('each metadata as stored, deleted ones too', () => {
    const deleted: FileMetadata = { ...file, id: 'f-2', status: 'deleted' };
    expect(fileMetadataRecords('member_m-1', [file, deleted])).toEqual([
      { store: 'files', classId: 'FileManager', instanceId: 'member_m-1', kind: 'fileMetadata', data: file },
      { store: 'files', classId: 'FileManager', instanceId: 'member_m-1', kind: 'fileMetadata', data: deleted },
    ]);
    expect(fileMetadataRecords('member_m-1', undefined)).toEqual([]);
  });

  test('a file: its stored name, the type its metadata declares, the content in Base64', () => {
    expect(subjectFile('member_m-1', file, Buffer.from([1, 2, 3]))).toEqual({
      classId: 'FileManager',
      instanceId: 'member_m-1',
      name: 'member_m-1_f-1.png',
      contentType: 'image/png',
      kind: 'file',
      contentBase64: 'AQID',
    });
  });
});
