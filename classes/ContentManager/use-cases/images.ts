/**
 * Base64 images of a content's fields stored as public files (spec 2.8):
 * each goes to FileManager instance `content_<contentId>` with `isPublic:
 * true`, so the member application loads it without signing in
 * (FileManager.getPublicFile, 30-minute cache), and the content keeps its
 * public URL path under `fields.images.<key>`. The Base64 text never reaches
 * the content's state, its approval patch or its audit entry.
 *
 * The files are stored by calls during the handler, after every other check
 * of the request (as Partner stores its logo): a change refused by the
 * workflow afterwards, or rejected later, leaves stored files no content names.
 */
import { ActorError, client } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { entityFileInstance } from '../../_platform/entity-documents';
import type { FileManager } from '../../FileManager/FileManager.class';
import { contentError } from '../errors';
import type { ContentFields, ImageValue } from '../schema-rules';
import { CONTENT_ENTITY, type ContentCtx } from './common';

const EXTENSION: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** `fields` with every Base64 image replaced by the public URL of the file it is stored as. */
export async function storeImages(
  ctx: ContentCtx<unknown>,
  contentId: string,
  fields: ContentFields,
  images: readonly { key: string; field: string; value: ImageValue }[],
): Promise<ContentFields> {
  const uploads = images.filter((i) => i.value.kind === 'upload');
  if (!uploads.length) return fields;
  const stored: Record<string, string> = { ...(fields.images ?? {}) };
  const files = client<typeof FileManager>(ctx, 'FileManager');
  for (const image of uploads) {
    const value = image.value as Extract<ImageValue, { kind: 'upload' }>;
    try {
      const answer = await files.uploadFile(entityFileInstance(CONTENT_ENTITY, contentId), {
        content: value.content,
        mimeType: value.mimeType,
        originalFilename: `${image.key}.${EXTENSION[value.mimeType] ?? 'img'}`,
        isPublic: true,
        actor: actorFromIdentity(ctx.identity),
      });
      if (!answer.publicUrl) throw new Error('FileManager stored the image without a public URL');
      stored[image.key] = answer.publicUrl;
    } catch (err) {
      // FileManager's refusals (size, content) name the field; its failures are the file store's
      if (err instanceof ActorError && err.status < 500) {
        throw contentError('CONTENT_INVALID_IMAGE', `${image.field}: the image was refused: ${err.message}`, {
          errors: [{ field: image.field, reason: `was refused by the file store: ${err.message}` }],
          code: err.code,
        });
      }
      ctx.log.warn({ err, contentId, field: image.field }, 'content image not stored');
      throw contentError('CONTENT_IMAGE_STORE_FAILED', `${image.field}: the image could not be stored`);
    }
  }
  return { ...fields, images: stored };
}
