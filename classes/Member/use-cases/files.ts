/**
 * The member's files in FileManager (instance `member_<id>`): store, 5-minute
 * download links, and FileManager's refusals as Member errors (the platform's
 * entity files, classes/_platform/entity-documents.ts).
 *
 * A file is stored by a call to FileManager during the handler, not as a
 * committed effect: FileManager judges the content (type, size, what the
 * bytes are) and names the stored file, and the answer carries that name and
 * a download link that FileManager only mints for a file it holds. A change
 * that fails afterwards leaves the stored file unreferenced (no document or
 * photo of the member names it).
 */
import type { ActorError, BaseCtx } from '../../../runtime';
import { entityDownloadLink, fileRefusal, storeEntityFile, type StoredFile } from '../../_platform/entity-documents';
import { memberError } from '../errors';
import type { MemberCtx } from '../member-state';

/** Stores a file of the member in FileManager; FileManager's errors are thrown as they are. */
export async function storeMemberFileMeta(
  ctx: MemberCtx<unknown>,
  memberId: string,
  file: { content: string; mimeType: string; originalFilename: string },
): Promise<StoredFile> {
  return storeEntityFile(ctx, 'member', memberId, file);
}

export async function storeMemberFile(
  ctx: MemberCtx<unknown>,
  memberId: string,
  file: { content: string; mimeType: string; originalFilename: string },
): Promise<string> {
  return (await storeMemberFileMeta(ctx, memberId, file)).filename;
}

/** A 5-minute download link of one of the member's files (from any handler: it only asks FileManager). */
export async function downloadLink(
  ctx: BaseCtx,
  memberId: string,
  filename: string,
): Promise<{ token: string; url: string; expiresAt: string }> {
  return entityDownloadLink(ctx, 'member', memberId, filename);
}

/** A FileManager refusal (4xx) as 400 5027 on the content field (or the type field); its own failure as 500 5030. */
export function fileError(err: unknown, fields: { content: string; type: string }): ActorError {
  return fileRefusal(memberError, err, fields);
}
