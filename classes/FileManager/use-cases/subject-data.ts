/**
 * exportSubjectData and eraseSubjectData (STATIC, DataSubject only): the
 * subject's files, for a personal-data export and for an approved erasure
 * (classes/_platform/personal-data.ts).
 *
 * A STATIC holds no instance, so each instance that would hold the subject's
 * files is read by subjectFilesOf (READ, class:FileManager only): its files'
 * metadata and the content the store still holds. An instance that does not
 * exist holds nothing. The call carries the caller's company, so the
 * runtime's company scope refuses a company user's export of another
 * company's files on that read (403 1023).
 *
 * The erasure is the same walk with a write per instance (eraseSubjectFiles,
 * INTERNAL, class:FileManager only): every file's content deleted from the
 * store, then every file's metadata removed in the instance's commit, which
 * takes the files' documents out of the `files` collection.
 */
import { client, isUnknownInstance, type Ctx, type ReadCtx, type StaticCtx } from '../../../runtime';
import { noSubjectData, type SubjectData, type SubjectErasure, type SubjectFile } from '../../_platform/personal-data';
import type { EraseSubjectDataInput, ExportSubjectDataInput } from '../../../schemas/FileManager/inputs';
import { fileStoreError } from '../errors';
import { fileMetadataRecords, subjectFile, subjectFileInstances } from '../subject-data-rules';
import type { FileManagerState, NoBody } from '../types';

/** FileManager's own read, typed from its handler (the class cannot be imported here: a cycle) */
type SelfCalls = { subjectFilesOf: typeof subjectFilesOf; eraseSubjectFiles: typeof eraseSubjectFiles };

export async function exportSubjectData(ctx: StaticCtx<ExportSubjectDataInput>): Promise<SubjectData> {
  const out = noSubjectData();
  const files = client<abstract new () => SelfCalls>(ctx, 'FileManager');
  for (const instanceId of subjectFileInstances(ctx.request.body.subject)) {
    try {
      const data = await files.subjectFilesOf(instanceId);
      out.records.push(...data.records);
      out.files.push(...data.files);
    } catch (err) {
      if (!isUnknownInstance(err)) throw err;
    }
  }
  return out;
}

/** This instance's files: every file's metadata, and the content of each the store still holds. */
export async function subjectFilesOf(ctx: ReadCtx<FileManagerState, NoBody>): Promise<SubjectData> {
  const instanceId = ctx.instanceId!;
  const metadata = ctx.state.private.files ?? [];
  const contents: SubjectFile[] = [];
  for (const file of metadata) {
    let blob;
    try {
      blob = await ctx.ports.blobs.get(file.filename);
    } catch (err) {
      throw fileStoreError('read', err);
    }
    // a deleted file's content is purged after its deletion commits: until then it is still held, and exported
    if (blob) contents.push(subjectFile(instanceId, file, blob.data));
  }
  return { records: fileMetadataRecords(instanceId, metadata), files: contents };
}

export async function eraseSubjectData(ctx: StaticCtx<EraseSubjectDataInput>): Promise<SubjectErasure> {
  const out: SubjectErasure = { records: 0, files: 0 };
  const files = client<abstract new () => SelfCalls>(ctx, 'FileManager');
  for (const instanceId of subjectFileInstances(ctx.request.body.subject)) {
    try {
      const erased = await files.eraseSubjectFiles(instanceId);
      out.records += erased.records;
      out.files += erased.files;
    } catch (err) {
      // no instance: the subject never had a file here
      if (!isUnknownInstance(err)) throw err;
    }
  }
  return out;
}

/**
 * This instance's files erased: each file's content deleted from the store
 * (one already gone, purged after its deletion or by an earlier attempt, is
 * no error), then every file's metadata removed with this commit. `records`
 * counts the metadata removed, `files` the contents this call deleted; a
 * second call finds nothing and answers zeros. The contents go first: a
 * commit that fails then leaves metadata naming no content, which the next
 * attempt removes.
 */
export async function eraseSubjectFiles(ctx: Ctx<FileManagerState, NoBody>): Promise<SubjectErasure> {
  const state = ctx.state.private;
  const metadata = state.files ?? [];
  if (!metadata.length) return { records: 0, files: 0 };
  let deleted = 0;
  for (const file of metadata) {
    try {
      if (await ctx.ports.blobs.delete(file.filename)) deleted += 1;
    } catch (err) {
      throw fileStoreError('delete', err);
    }
  }
  state.files = [];
  return { records: metadata.length, files: deleted };
}
