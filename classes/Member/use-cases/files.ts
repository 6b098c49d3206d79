/**
 * The member's files in FileManager (instance `member_<id>`): store, 5-minute
 * download links, and FileManager's refusals as Member errors.
 */
import { ActorError, type Ctx } from '../../../runtime';
import { actorFromIdentity, type Actor } from '../../_platform/actor';
import { recordCompany } from '../../_platform/scope';
import { fieldError, memberError } from '../errors';

export interface StoredFile {
  id: string;
  filename: string;
  originalFilename?: string;
  mimeType: string;
  size: number;
}

export function fileInstanceOf(memberId: string): string {
  return `member_${memberId}`;
}

/** Stores a file of the member in FileManager; FileManager's errors are thrown as they are. */
export async function storeMemberFileMeta(
  ctx: Ctx,
  memberId: string,
  file: { content: string; mimeType: string; originalFilename: string },
): Promise<StoredFile> {
  const actor: Actor = actorFromIdentity(ctx.identity);
  // the files belong to the member's company (company scope of FileManager)
  const company = recordCompany(ctx);
  const res = await ctx.call('FileManager', 'uploadFile', fileInstanceOf(memberId), { ...file, actor, ...(company ? { companyId: company } : {}) });
  return (res.body as { file: StoredFile }).file;
}

export async function storeMemberFile(ctx: Ctx, memberId: string, file: { content: string; mimeType: string; originalFilename: string }): Promise<string> {
  return (await storeMemberFileMeta(ctx, memberId, file)).filename;
}

/** A 5-minute download link of one of the member's files. */
export async function downloadLink(ctx: Ctx, memberId: string, filename: string): Promise<{ token: string; url: string; expiresAt: string }> {
  const res = await ctx.call('FileManager', 'createDownloadToken', fileInstanceOf(memberId), { filename });
  return res.body as { token: string; url: string; expiresAt: string };
}

/** FileManager's unsupported-type refusal (13001): the declared type, not the content, is wrong */
const FILE_TYPE_REFUSED = 13001;

/** A FileManager refusal (4xx) as 400 5027 on the content field (or the type field); its own failure as 500 5030. */
export function fileError(err: unknown, fields: { content: string; type: string }): ActorError {
  if (err instanceof ActorError && err.status < 500) {
    const field = err.code === FILE_TYPE_REFUSED ? fields.type : fields.content;
    return fieldError('INVALID_FILE', field, `The file was refused: ${err.message}`, { code: err.code, message: err.message });
  }
  const e = err as { code?: unknown; message?: unknown };
  return memberError('FILE_STORE_FAILED', 'The file could not be stored', { code: e?.code, message: String(e?.message ?? err) });
}
