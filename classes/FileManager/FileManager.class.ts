/**
 * FileManager (spec 2.8 FileMetadata, 3.3 File, 4.5, 5 file access, 8 limits).
 *
 * One instance per entity, id `{entityType}_{entityId}`. The instance keeps
 * the metadata of the entity's files in `private.files`; content lives in the
 * blob store (ctx.ports.blobs) under a generated name
 * `{entityType}_{entityId}_{fileId}.{ext}` (a UUID and the extension of the
 * declared type: no user text ever reaches the store).
 *
 * Handlers are thin: the rules are in file-types.ts and file-rules.ts.
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, Init, Internal, Read, Write, type Ctx, type Identity } from '../../runtime';
import type { Actor } from '../_platform/actor';
import { ownedByCompany } from '../_platform/scope';
import { fileManagerError, fileStoreError, type FileManagerErrorName } from './errors';
import {
  activeFile,
  actingActor,
  checkDownloadToken,
  DOWNLOAD_TOKEN_PURPOSE,
  DOWNLOAD_TOKEN_TTL_SECONDS,
  downloadTokenPayload,
  downloadUrl,
  enduserMayAccess,
  existingFile,
  fileDocuments,
  fileHeaders,
  fileReference,
  findFile,
  instanceIdOf,
  markDeleted,
  newFileMetadata,
  parseInstanceId,
  PUBLIC_CACHE_SECONDS,
  publicUrl,
  type FileMetadata,
  type FilesState,
  companyOfFiles,
  type RuleResult,
} from './file-rules';
import { checkUpload } from './file-types';

interface UploadBody {
  content: string;
  mimeType: string;
  originalFilename?: string;
  isPublic?: boolean;
  actor?: Actor;
  /** the company the entity belongs to (company scope); kept once set */
  companyId?: string;
}

function files(ctx: Ctx): FilesState {
  return ctx.state.private as FilesState;
}

/** Records the company the entity's files belong to (see companyOfFiles). */
function claimCompany(ctx: Ctx, requested: string | undefined): void {
  const s = files(ctx);
  const byClass = ctx.identity.type === 'class' || ctx.identity.type === 'system';
  const company = unwrap(companyOfFiles(s.companyId, requested, byClass));
  if (company !== undefined) s.companyId = company;
}

function unwrap<T>(r: RuleResult<T>): T {
  if (!r.ok) throw fileManagerError(r.error as FileManagerErrorName, r.message, r.details);
  return r.value;
}

/** The entity behind the instance id; refuses ids that are not `{entityType}_{entityId}`. */
function entityOf(ctx: Ctx): { entityType: string; entityId: string } {
  const entity = parseInstanceId(ctx.instanceId);
  if (!entity) {
    throw fileManagerError(
      'INVALID_INSTANCE_ID',
      `FileManager instance ids are '{entityType}_{entityId}' (letters and digits, '_', then letters, digits, '_' or '-'); got '${ctx.instanceId}'`,
    );
  }
  return entity;
}

/** Writes: the entity, with the state set up when the instance is new (INIT or upsert). */
function writableEntity(ctx: Ctx): { entityType: string; entityId: string } {
  const entity = entityOf(ctx);
  const s = files(ctx);
  s.entityType ??= entity.entityType;
  s.entityId ??= entity.entityId;
  s.files ??= [];
  return entity;
}

function guardEnduser(identity: Identity, entityId: string): void {
  if (!enduserMayAccess(identity, entityId)) {
    throw fileManagerError('ENTITY_FORBIDDEN', "An end user may only reach its own entity's files");
  }
}

function extOf(file: FileMetadata): string {
  return file.filename.slice(file.filename.lastIndexOf('.') + 1);
}

async function readContent(ctx: Ctx, file: FileMetadata): Promise<Buffer> {
  let blob: Awaited<ReturnType<typeof ctx.ports.blobs.get>>;
  try {
    blob = await ctx.ports.blobs.get(file.filename);
  } catch (err) {
    throw fileStoreError('read', err);
  }
  if (!blob) throw fileStoreError('read', new Error(`content of '${file.filename}' is missing from the file store`));
  return blob.data;
}

/** A 5-minute download token and URL for a file of this instance. */
function mintDownload(ctx: Ctx, file: FileMetadata): { token: string; url: string; expiresAt: string } {
  const instanceId = ctx.instanceId!;
  const signer = ctx.ports.signer;
  const token = signer.sign(DOWNLOAD_TOKEN_PURPOSE, downloadTokenPayload(instanceId, file.filename), DOWNLOAD_TOKEN_TTL_SECONDS);
  const exp = signer.verify(DOWNLOAD_TOKEN_PURPOSE, token)?.exp;
  const expiresAt = new Date((typeof exp === 'number' ? exp : Math.floor(Date.now() / 1000) + DOWNLOAD_TOKEN_TTL_SECONDS) * 1000);
  return { token, url: downloadUrl(ctx.projectId, instanceId, file.filename, token), expiresAt: expiresAt.toISOString() };
}

/** Optional string input from the body or (for GET) the query. */
function input(ctx: Ctx, name: string): string | undefined {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  const query = (ctx.request.query ?? {}) as Record<string, unknown>;
  const v = body[name] ?? query[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

const NO_STORE = { 'cache-control': 'no-store' };

@ActorClass({
  id: 'FileManager',
  description: 'Files of an entity: metadata in state, content in the file store, signed download links',
  sensitiveFields: ['content', 'token'],
  // company scope: an entity's files belong to the entity's company (named by the class that stores them)
  tenancy: ownedByCompany((state) => (state.private as FilesState).companyId),
  stream: {
    collections: {
      files: {
        tenantField: 'companyId',
        indexes: [
          { keys: { instanceId: 1, createdAt: -1 } },
          { keys: { filename: 1 } },
          { keys: { entityType: 1, entityId: 1 } },
          { keys: { status: 1, createdAt: -1 } },
        ],
      },
    },
    toDocuments: (state, instanceId) => fileDocuments(state.private as FilesState, instanceId),
  },
})
export class FileManager {
  @Init({
    access: ['program_management_user', 'class'],
    instanceId: (req) => {
      if (req.path.instanceId) return req.path.instanceId;
      const body = (req.body ?? {}) as { entityType?: unknown; entityId?: unknown };
      return typeof body.entityType === 'string' && typeof body.entityId === 'string'
        ? instanceIdOf(body.entityType, body.entityId)
        : undefined;
    },
  })
  init(ctx: Ctx) {
    const entity = writableEntity(ctx);
    const body = (ctx.request.body ?? {}) as { entityType?: string; entityId?: string; companyId?: string };
    claimCompany(ctx, body.companyId);
    if ((body.entityType ?? entity.entityType) !== entity.entityType || (body.entityId ?? entity.entityId) !== entity.entityId) {
      throw fileManagerError('ENTITY_MISMATCH', `The body names another entity than instance '${ctx.instanceId}'`);
    }
    return { instanceId: ctx.instanceId, ...entity };
  }

  @Write({ access: ['program_management_user', 'enduser', 'class'], upsert: true, timeoutSeconds: 30 })
  async uploadFile(ctx: Ctx) {
    const entity = writableEntity(ctx);
    guardEnduser(ctx.identity, entity.entityId);
    const body = ctx.request.body as UploadBody;
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
    files(ctx).files!.push(file);
    return {
      file,
      download: mintDownload(ctx, file),
      ...(file.isPublic ? { publicUrl: publicUrl(ctx.projectId, ctx.instanceId!, file.filename) } : {}),
    };
  }

  @Read({ access: ['program_management_user', 'class'], timeoutSeconds: 30 })
  async getFile(ctx: Ctx) {
    const ref = unwrap(fileReference(ctx.request.body, ctx.request.query));
    const file = unwrap(activeFile(files(ctx).files, ref));
    const content = await readContent(ctx, file);
    ctx.response.headers = { ...NO_STORE };
    return { file, content: content.toString('base64') };
  }

  @Write({ access: ['program_management_user', 'class'] })
  deleteFile(ctx: Ctx) {
    writableEntity(ctx);
    const body = (ctx.request.body ?? {}) as { actor?: Actor };
    const { actor, via } = unwrap(actingActor(ctx.identity, body.actor));
    const ref = unwrap(fileReference(ctx.request.body, ctx.request.query));
    const list = files(ctx).files!;
    const current = unwrap(existingFile(list, ref));
    const deleted = unwrap(markDeleted(current, actor, new Date().toISOString(), via));
    list[list.indexOf(current)] = deleted;
    // content is removed after the commit (a task committed with this state), so a failed commit loses nothing
    ctx.schedule({ method: 'purgeFileContent', delaySeconds: 0, body: { fileId: deleted.id } });
    return { file: deleted };
  }

  /** Removes the content of a deleted file; scheduled by deleteFile. */
  @Internal({ access: ['class:FileManager'] })
  async purgeFileContent(ctx: Ctx) {
    const { fileId } = ctx.request.body as { fileId: string };
    const file = findFile(files(ctx).files, { fileId });
    if (!file || file.status !== 'deleted') return { purged: false };
    try {
      return { purged: await ctx.ports.blobs.delete(file.filename) };
    } catch (err) {
      throw fileStoreError('delete', err); // 500: the task is retried
    }
  }

  /** Raw content for a signed token (5 minutes, bound to instance and filename); no role check. */
  @Read({ access: ['public'], timeoutSeconds: 30 })
  async downloadFile(ctx: Ctx) {
    const token = input(ctx, 'token');
    const verified = token ? ctx.ports.signer.verify(DOWNLOAD_TOKEN_PURPOSE, token) : null;
    const grant = unwrap(checkDownloadToken(verified, ctx.instanceId!, input(ctx, 'filename'), Date.now() / 1000));
    const file = unwrap(activeFile(files(ctx).files, { filename: grant.filename }));
    const content = await readContent(ctx, file);
    ctx.response = { status: 200, body: content, headers: fileHeaders(file, extOf(file), `private, max-age=${grant.remainingSeconds}`) };
  }

  /** Raw content of a public file; no authentication; cached for 30 minutes. */
  @Read({ access: ['public'], timeoutSeconds: 30 })
  async getPublicFile(ctx: Ctx) {
    const filename = input(ctx, 'filename');
    if (!filename) throw fileManagerError('INVALID_FILE_REFERENCE', 'Give filename');
    const file = unwrap(activeFile(files(ctx).files, { filename }));
    if (!file.isPublic) throw fileManagerError('NOT_PUBLIC', `File '${file.filename}' is not public`);
    const content = await readContent(ctx, file);
    ctx.response = { status: 200, body: content, headers: fileHeaders(file, extOf(file), `public, max-age=${PUBLIC_CACHE_SECONDS}`) };
  }

  /** {token, url, expiresAt}: a 5-minute download link (Member and Partner documents use it). */
  @Read({ access: ['program_management_user', 'enduser', 'class'] })
  createDownloadToken(ctx: Ctx) {
    guardEnduser(ctx.identity, entityOf(ctx).entityId);
    const ref = unwrap(fileReference(ctx.request.body, ctx.request.query));
    const file = unwrap(activeFile(files(ctx).files, ref));
    ctx.response.headers = { ...NO_STORE };
    return mintDownload(ctx, file);
  }

  @Internal({ access: ['class'], schema: false })
  getState(ctx: Ctx) {
    const s = files(ctx);
    return { entityType: s.entityType, entityId: s.entityId, files: s.files ?? [] };
  }

  @Internal({ access: ['class'], schema: false })
  getInstanceId(ctx: Ctx) {
    return { instanceId: ctx.instanceId, ...entityOf(ctx) };
  }
}
