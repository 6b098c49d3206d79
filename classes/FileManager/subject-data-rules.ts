/**
 * What FileManager exports about one data subject for DataSubject
 * (exportSubjectData, classes/_platform/personal-data.ts), pure: which
 * instances hold the subject's files, and how their metadata and content
 * become records and files.
 *
 * FileManager keeps no secrets of its own: a file's metadata is exported as
 * stored (deleted files included, their history says who deleted them), and
 * the content of every file whose content the store still holds. Download
 * tokens are never stored, so none can leak.
 */
import type { DeepReadonly } from '../../runtime';
import type { Subject, SubjectFile, SubjectRecord, SubjectType } from '../_platform/personal-data';
import { INSTANCE_ID_PATTERN, instanceIdOf, type FileMetadata } from './rules';

export const FILE_MANAGER_CLASS_ID = 'FileManager';

/**
 * The entity types whose files are a subject's own, by subject type. A
 * member's files are `member_<memberId>` (Member stores its ID photos, the ID
 * card's photo and its documents there). Back-office and partner users store
 * no files of their own: partners, venues and content are organisations'
 * and the programme's files, which name a user only as the one who acted.
 */
export const SUBJECT_FILE_ENTITIES: Readonly<Record<SubjectType, readonly string[]>> = {
  member: ['member'],
  program_management_user: [],
  partner_user: [],
};

/** The FileManager instances that would hold the subject's files (an id no instance id can carry: none). */
export function subjectFileInstances(subject: Subject): string[] {
  return SUBJECT_FILE_ENTITIES[subject.type]
    .map((entityType) => instanceIdOf(entityType, subject.id))
    .filter((id) => INSTANCE_ID_PATTERN.test(id));
}

/** Every file's metadata of an instance, as stored (store `files`, kind `fileMetadata`). */
export function fileMetadataRecords(
  instanceId: string,
  files: readonly DeepReadonly<FileMetadata>[] | undefined,
): SubjectRecord[] {
  return (files ?? []).map((f) => ({
    store: 'files',
    classId: FILE_MANAGER_CLASS_ID,
    instanceId,
    kind: 'fileMetadata',
    data: f,
  }));
}

/** One file's content (kind `file`): its stored name and the type its metadata declares. */
export function subjectFile(
  instanceId: string,
  file: Pick<FileMetadata, 'filename' | 'mimeType'>,
  content: Buffer,
): SubjectFile {
  return {
    classId: FILE_MANAGER_CLASS_ID,
    instanceId,
    name: file.filename,
    contentType: file.mimeType,
    kind: 'file',
    contentBase64: content.toString('base64'),
  };
}
