/** What the FileManager use cases share: the entity behind the instance, the rules' refusals, content reads, download links. */
import type { BaseCtx, Ctx } from '../../../runtime';
import { fileManagerError, fileStoreError } from '../errors';
import {
  companyOfFiles,
  DOWNLOAD_TOKEN_PURPOSE,
  DOWNLOAD_TOKEN_TTL_SECONDS,
  downloadTokenPayload,
  downloadUrl,
  enduserMayAccess,
  parseInstanceId,
  type FileMetadata,
  type RuleResult,
} from '../rules';
import type { FileManagerState } from '../types';

/** answers that carry a file or a link are not cached */
export const NO_STORE = { 'cache-control': 'no-store' };

/** A rule's value, or its refusal as the FileManager error it names. */
export function unwrap<T>(r: RuleResult<T>): T {
  if (!r.ok) throw fileManagerError(r.error, r.message, r.details);
  return r.value;
}

/** The entity behind the instance id; refuses ids that are not `{entityType}_{entityId}`. */
export function entityOf(ctx: Pick<BaseCtx, 'instanceId'>): { entityType: string; entityId: string } {
  const entity = parseInstanceId(ctx.instanceId);
  if (!entity) {
    throw fileManagerError(
      'INVALID_INSTANCE_ID',
      `FileManager instance ids are '{entityType}_{entityId}' (letters and digits, '_', then letters, digits, '_' or '-'); got '${ctx.instanceId}'`,
    );
  }
  return entity;
}

/** Writes: the entity and its file list, with the state set up when the instance is new (INIT or upsert). */
export function writableEntity(ctx: Ctx<FileManagerState>): {
  entityType: string;
  entityId: string;
  files: FileMetadata[];
} {
  const entity = entityOf(ctx);
  const s = ctx.state.private;
  s.entityType ??= entity.entityType;
  s.entityId ??= entity.entityId;
  const files = (s.files ??= []);
  return { ...entity, files };
}

/** Records the company the entity's files belong to (see companyOfFiles). */
export function claimCompany(ctx: Ctx<FileManagerState>, requested: string | undefined): void {
  const s = ctx.state.private;
  const byClass = ctx.identity.type === 'class' || ctx.identity.type === 'system';
  const company = unwrap(companyOfFiles(s.companyId, requested, byClass));
  if (company !== undefined) s.companyId = company;
}

export function guardEnduser(ctx: Pick<BaseCtx, 'identity'>, entityId: string): void {
  if (!enduserMayAccess(ctx.identity, entityId)) {
    throw fileManagerError('ENTITY_FORBIDDEN', "An end user may only reach its own entity's files");
  }
}

/** The stored content of a file; a missing or unreadable one is the file store's 500. */
export async function readContent(ctx: Pick<BaseCtx, 'ports'>, file: Pick<FileMetadata, 'filename'>): Promise<Buffer> {
  let blob: Awaited<ReturnType<BaseCtx['ports']['blobs']['get']>>;
  try {
    blob = await ctx.ports.blobs.get(file.filename);
  } catch (err) {
    throw fileStoreError('read', err);
  }
  if (!blob) throw fileStoreError('read', new Error(`content of '${file.filename}' is missing from the file store`));
  return blob.data;
}

/** A 5-minute download token and URL for a file of this instance. */
export function mintDownload(
  ctx: Pick<BaseCtx, 'instanceId' | 'projectId' | 'ports'>,
  file: Pick<FileMetadata, 'filename'>,
): { token: string; url: string; expiresAt: string } {
  const instanceId = ctx.instanceId!;
  const signer = ctx.ports.signer;
  const token = signer.sign(
    DOWNLOAD_TOKEN_PURPOSE,
    downloadTokenPayload(instanceId, file.filename),
    DOWNLOAD_TOKEN_TTL_SECONDS,
  );
  const exp = signer.verify(DOWNLOAD_TOKEN_PURPOSE, token)?.exp;
  const expiresAt = new Date(
    (typeof exp === 'number' ? exp : Math.floor(Date.now() / 1000) + DOWNLOAD_TOKEN_TTL_SECONDS) * 1000,
  );
  return {
    token,
    url: downloadUrl(ctx.projectId, instanceId, file.filename, token),
    expiresAt: expiresAt.toISOString(),
  };
}
