/**
 * The member's files in FileManager (instance `member_<id>`): store, 5-minute
 * download links, and FileManager's refusals as Member errors (the platform's
 * entity files, classes/_platform/entity-documents.ts).
 */
import type { ActorError, Ctx } from '../../../runtime';
import { entityDownloadLink, fileRefusal, storeEntityFile, type StoredFile } from '../../_platform/entity-documents';
import { memberError } from '../errors';

/** Stores a file of the member in FileManager; FileManager's errors are thrown as they are. */
export async function storeMemberFileMeta(ctx: Ctx, memberId: string, file: { content: string; mimeType: string; originalFilename: string }): Promise<StoredFile> {
  return storeEntityFile(ctx, 'member', memberId, file);
}

export async function storeMemberFile(ctx: Ctx, memberId: string, file: { content: string; mimeType: string; originalFilename: string }): Promise<string> {
  return (await storeMemberFileMeta(ctx, memberId, file)).filename;
}

/** A 5-minute download link of one of the member's files. */
export async function downloadLink(ctx: Ctx, memberId: string, filename: string): Promise<{ token: string; url: string; expiresAt: string }> {
  return entityDownloadLink(ctx, 'member', memberId, filename);
}

/** A FileManager refusal (4xx) as 400 5027 on the content field (or the type field); its own failure as 500 5030. */
export function fileError(err: unknown, fields: { content: string; type: string }): ActorError {
  return fileRefusal(memberError, err, fields);
}
