/** uploadFile: the content checked against spec 8 (file-types.ts), stored, then its metadata recorded. */
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../../runtime';
import { fileManagerError, fileStoreError } from '../errors';
import { actingActor, newFileMetadata, publicUrl } from '../rules';
import { checkUpload } from '../../_platform/file-types';
import type { UploadFileInput } from '../../../schemas/FileManager/inputs';
import type { FileManagerState } from '../types';
import { claimCompany, guardEnduser, mintDownload, unwrap, writableEntity } from './common';

export async function uploadFile(ctx: Ctx<FileManagerState, UploadFileInput>) {
  const entity = writableEntity(ctx);
  guardEnduser(ctx, entity.entityId);
  const body = ctx.request.body;
  claimCompany(ctx, body.companyId);
  const { actor, via } = unwrap(actingActor(ctx.identity, body.actor));
  const checked = checkUpload({ content: body.content, mimeType: body.mimeType });
  if (!checked.ok) throw fileManagerError(checked.error, checked.message, checked.details);

  const file = newFileMetadata({
    fileId: randomUUID(),
    instanceId: ctx.instanceId!,
    type: checked.type,
    size: checked.data.length,
    originalFilename: body.originalFilename,
    isPublic: body.isPublic,
    actor,
    via,
    now: new Date().toISOString(),
  });
  try {
    await ctx.ports.blobs.put(file.filename, checked.data, file.mimeType);
  } catch (err) {
    throw fileStoreError('store', err);
  }
  // the content is stored before the metadata commits: state never names missing content
  entity.files.push(file);
  return {
    file,
    download: mintDownload(ctx, file),
    ...(file.isPublic ? { publicUrl: publicUrl(ctx.projectId, ctx.instanceId!, file.filename) } : {}),
  };
}
