/** deleteFile (active → deleted, metadata kept) and purgeFileContent, the task that removes the content after the commit. */
import type { Ctx } from '../../../runtime';
import { fileStoreError } from '../errors';
import { actingActor, existingFile, fileReference, findFile, markDeleted } from '../rules';
import type { DeleteFileInput, PurgeFileContentInput } from '../../../schemas/FileManager/inputs';
import type { FileManagerState } from '../types';
import { unwrap, writableEntity } from './common';

export function deleteFile(ctx: Ctx<FileManagerState, DeleteFileInput>) {
  const { files } = writableEntity(ctx);
  const { actor, via } = unwrap(actingActor(ctx.identity, ctx.request.body.actor));
  const ref = unwrap(fileReference(ctx.request.body));
  const current = unwrap(existingFile(files, ref));
  const deleted = unwrap(markDeleted(current, actor, new Date().toISOString(), via));
  files[files.indexOf(current)] = deleted;
  // content is removed after the commit (a task committed with this state), so a failed commit loses nothing
  ctx.schedule({
    method: 'purgeFileContent',
    delaySeconds: 0,
    body: { fileId: deleted.id } satisfies PurgeFileContentInput,
  });
  return { file: deleted };
}

export async function purgeFileContent(ctx: Ctx<FileManagerState, PurgeFileContentInput>) {
  const file = findFile(ctx.state.private.files, { fileId: ctx.request.body.fileId });
  if (!file || file.status !== 'deleted') return { purged: false };
  try {
    return { purged: await ctx.ports.blobs.delete(file.filename) };
  } catch (err) {
    throw fileStoreError('delete', err); // 500: the task is retried
  }
}
