/**
 * exportSubjectData (STATIC, DataSubject only): the subject's files, for a
 * personal-data export (classes/_platform/personal-data.ts).
 *
 * A STATIC holds no instance, so each instance that would hold the subject's
 * files is read by subjectFilesOf (READ, class:FileManager only): its files'
 * metadata and the content the store still holds. An instance that does not
 * exist holds nothing. The call carries the caller's company, so the
 * runtime's company scope refuses a company user's export of another
 * company's files on that read (403 1023).
 */
import { client, isUnknownInstance, type ReadCtx, type StaticCtx } from '../../../runtime';
import { noSubjectData, type SubjectData, type SubjectFile } from '../../_platform/personal-data';
import type { ExportSubjectDataInput } from '../../../schemas/FileManager/inputs';
import { fileStoreError } from '../errors';
import { fileMetadataRecords, subjectFile, subjectFileInstances } from '../subject-data-rules';
import type { FileManagerState, NoBody } from '../types';

/** FileManager's own read, typed from its handler (the class cannot be imported here: a cycle) */
type SelfCalls = { subjectFilesOf: typeof subjectFilesOf };

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
