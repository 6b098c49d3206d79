/**
 * FileManager rules (pure: no I/O): instance ids, generated file names, the
 * file metadata record and its status machine, file references, download
 * tokens and the headers a download is sent with.
 */
import type { GetFileInput } from '../../schemas/FileManager/inputs';
import type { Identity } from '../../runtime';
import { actorFromIdentity, type Actor } from '../_platform/actor';
import type { FileManagerErrorName } from './errors';
import type { FileType, TypeSpec } from '../_platform/file-types';

/** Spec 2.8 FileMetadata. Dates are ISO 8601 strings. */
export interface FileAction {
  action: 'upload' | 'delete';
  actor: Actor;
  timestamp: string;
  /** set when a class acted on behalf of `actor` (the class's own actor) */
  via?: Actor;
}

export interface FileMetadata {
  id: string;
  /** `{entityType}_{entityId}_{fileId}.{ext}`: generated, never user text */
  filename: string;
  originalFilename: string;
  fileType: FileType;
  mimeType: string;
  size: number;
  actionHistory: FileAction[];
  createdAt: string;
  updatedAt: string;
  status: 'active' | 'deleted';
  isPublic: boolean;
}

/** ctx.state.private of a FileManager instance. */
export interface FilesState {
  entityType?: string;
  entityId?: string;
  /** the company the entity (and so its files) belongs to: the company scope of the instance */
  companyId?: string;
  files?: FileMetadata[];
}

/** A rule's answer: its value, or the FileManager error (errors.ts) that refuses it. */
export type RuleResult<T> =
  { ok: true; value: T } | { ok: false; error: FileManagerErrorName; message: string; details?: unknown };

// ---------------------------------------------------------------------------
// Instance ids and file names

/**
 * `{entityType}_{entityId}`: the entity type is letters and digits (so the
 * first '_' separates), the entity id letters, digits, '_' and '-'. Both fit
 * the blob store's safe names, so generated file names always do.
 */
export const INSTANCE_ID_PATTERN = /^([A-Za-z][A-Za-z0-9]{0,63})_([A-Za-z0-9][A-Za-z0-9_-]{0,127})$/;

export function parseInstanceId(instanceId: string | undefined): { entityType: string; entityId: string } | null {
  const m = INSTANCE_ID_PATTERN.exec(instanceId ?? '');
  return m ? { entityType: m[1], entityId: m[2] } : null;
}

export function instanceIdOf(entityType: string, entityId: string): string {
  return `${entityType}_${entityId}`;
}

/** The instance init creates: the path's id, else `{entityType}_{entityId}` from the body, else none (the runtime's own). */
export function initInstanceId(pathInstanceId: string | undefined, body: unknown): string | undefined {
  if (pathInstanceId) return pathInstanceId;
  const b = body && typeof body === 'object' ? (body as { entityType?: unknown; entityId?: unknown }) : {};
  return typeof b.entityType === 'string' && typeof b.entityId === 'string'
    ? instanceIdOf(b.entityType, b.entityId)
    : undefined;
}

/** The extension of a stored file name (the declared type's, see storedFilename). */
export function storedExtension(filename: string): string {
  return filename.slice(filename.lastIndexOf('.') + 1);
}

/** `{entityType}_{entityId}_{fileId}.{ext}` (the instance id already is `{entityType}_{entityId}`) */
export function storedFilename(instanceId: string, fileId: string, ext: string): string {
  return `${instanceId}_${fileId}.${ext}`;
}

// ---------------------------------------------------------------------------
// The metadata record

export function newFileMetadata(input: {
  fileId: string;
  instanceId: string;
  type: TypeSpec;
  size: number;
  originalFilename?: string;
  isPublic?: boolean;
  actor: Actor;
  via?: Actor;
  now: string;
}): FileMetadata {
  const filename = storedFilename(input.instanceId, input.fileId, input.type.ext);
  return {
    id: input.fileId,
    filename,
    originalFilename: input.originalFilename ?? filename,
    fileType: input.type.fileType,
    mimeType: input.type.mimeType,
    size: input.size,
    actionHistory: [
      { action: 'upload', actor: input.actor, timestamp: input.now, ...(input.via ? { via: input.via } : {}) },
    ],
    createdAt: input.now,
    updatedAt: input.now,
    status: 'active',
    isPublic: input.isPublic ?? false,
  };
}

/** active → deleted (spec 3.3); the history keeps the upload and gains the delete. */
export function markDeleted(file: FileMetadata, actor: Actor, now: string, via?: Actor): RuleResult<FileMetadata> {
  if (file.status === 'deleted') {
    return { ok: false, error: 'FILE_DELETED', message: `File '${file.filename}' is already deleted` };
  }
  return {
    ok: true,
    value: {
      ...file,
      status: 'deleted',
      updatedAt: now,
      actionHistory: [...file.actionHistory, { action: 'delete', actor, timestamp: now, ...(via ? { via } : {}) }],
    },
  };
}

// ---------------------------------------------------------------------------
// File references (fileId or filename)

export type FileRef = { fileId: string } | { filename: string };

/** Exactly one of fileId and filename (the method's schema has made each, when given, a non-empty string). */
export function fileReference({ fileId, filename }: GetFileInput): RuleResult<FileRef> {
  if (fileId && filename)
    return { ok: false, error: 'INVALID_FILE_REFERENCE', message: 'Give fileId or filename, not both' };
  if (fileId) return { ok: true, value: { fileId } };
  if (filename) return { ok: true, value: { filename } };
  return { ok: false, error: 'INVALID_FILE_REFERENCE', message: 'Give fileId or filename' };
}

/**
 * What the lookups read of a file. They take any list of such files (`F`) and answer its element: a
 * writer's draft metadata, or a reader's frozen snapshot of it.
 */
export type FileKey = Pick<FileMetadata, 'id' | 'filename' | 'status' | 'updatedAt'>;

/** The file a reference names (active or deleted); matching is exact, user text is only compared. */
export function findFile<F extends FileKey>(files: readonly F[] | undefined, ref: FileRef): F | undefined {
  return (files ?? []).find((f) => ('fileId' in ref ? f.id === ref.fileId : f.filename === ref.filename));
}

function label(ref: FileRef): string {
  return 'fileId' in ref ? `id '${ref.fileId}'` : `filename '${ref.filename}'`;
}

/** The file a reference names (active or deleted), or FILE_NOT_FOUND. */
export function existingFile<F extends FileKey>(files: readonly F[] | undefined, ref: FileRef): RuleResult<F> {
  const file = findFile(files, ref);
  return file
    ? { ok: true, value: file }
    : { ok: false, error: 'FILE_NOT_FOUND', message: `No file with ${label(ref)}` };
}

/** The active file a reference names, or why not (FILE_NOT_FOUND, FILE_DELETED). */
export function activeFile<F extends FileKey>(files: readonly F[] | undefined, ref: FileRef): RuleResult<F> {
  const found = existingFile(files, ref);
  if (!found.ok) return found;
  const file = found.value;
  if (file.status === 'deleted') {
    return {
      ok: false,
      error: 'FILE_DELETED',
      message: `File with ${label(ref)} was deleted`,
      details: { id: file.id, filename: file.filename, status: file.status, updatedAt: file.updatedAt },
    };
  }
  return { ok: true, value: file };
}

// ---------------------------------------------------------------------------
// Download tokens and URLs

export const DOWNLOAD_TOKEN_PURPOSE = 'file-download';
/** spec 8: member and partner document download URL validity */
export const DOWNLOAD_TOKEN_TTL_SECONDS = 5 * 60;
/** spec 8: public file cache */
export const PUBLIC_CACHE_SECONDS = 30 * 60;

export interface DownloadTokenPayload extends Record<string, unknown> {
  instanceId: string;
  filename: string;
}

export function downloadTokenPayload(instanceId: string, filename: string): DownloadTokenPayload {
  return { instanceId, filename };
}

/**
 * Is a verified token (null when its signature, purpose or expiry failed)
 * good for this instance and filename? The requested filename, when given,
 * must be the one the token was minted for. Returns the filename and the
 * seconds of validity left.
 */
export function checkDownloadToken(
  verified: Record<string, unknown> | null,
  instanceId: string,
  requestedFilename: string | undefined,
  nowSeconds: number,
): RuleResult<{ filename: string; remainingSeconds: number }> {
  const refused = (why: string): RuleResult<never> => ({
    ok: false,
    error: 'INVALID_TOKEN',
    message: `Download refused: ${why}`,
  });
  if (!verified) return refused('the token is invalid or expired');
  if (verified.instanceId !== instanceId || typeof verified.filename !== 'string')
    return refused('the token is for another file');
  if (requestedFilename !== undefined && requestedFilename !== verified.filename)
    return refused('the token is for another file');
  const exp = typeof verified.exp === 'number' ? verified.exp : 0;
  const remainingSeconds = Math.floor(exp - nowSeconds);
  if (remainingSeconds <= 0) return refused('the token is invalid or expired');
  return {
    ok: true,
    value: { filename: verified.filename, remainingSeconds: Math.min(remainingSeconds, DOWNLOAD_TOKEN_TTL_SECONDS) },
  };
}

function callPath(projectId: string, method: string, instanceId: string): string {
  return `/${encodeURIComponent(projectId)}/CALL/FileManager/${method}/${encodeURIComponent(instanceId)}`;
}

/** `/<projectId>/CALL/FileManager/downloadFile/<instanceId>?filename=...&token=...` */
export function downloadUrl(projectId: string, instanceId: string, filename: string, token: string): string {
  return `${callPath(projectId, 'downloadFile', instanceId)}?filename=${encodeURIComponent(filename)}&token=${encodeURIComponent(token)}`;
}

/** `/<projectId>/CALL/FileManager/getPublicFile/<instanceId>?filename=...` */
export function publicUrl(projectId: string, instanceId: string, filename: string): string {
  return `${callPath(projectId, 'getPublicFile', instanceId)}?filename=${encodeURIComponent(filename)}`;
}

// ---------------------------------------------------------------------------
// Response headers

/**
 * A download name from the user's original file name that is safe in a
 * header and on any file system: the last path segment only, no control
 * characters, quotes, slashes or leading dots, at most 100 characters, and
 * always the extension of the stored type. Falls back to the stored name.
 */
export function safeDownloadName(originalFilename: string | undefined, ext: string, fallback: string): string {
  const lastSegment = (originalFilename ?? '').split(/[\\/]/).pop() ?? '';
  const base = lastSegment
    .normalize('NFC')
    .replace(/[\p{Cc}"';%*<>?|:]/gu, '')
    .replace(/\.[^.]*$/, '')
    .replace(/^[.\s]+/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100)
    .trim();
  return base ? `${base}.${ext}` : fallback;
}

/** ASCII-only twin of a download name for the plain `filename=` parameter. */
function asciiName(name: string, fallback: string): string {
  const ascii = name.replace(/[^A-Za-z0-9 ._()-]/g, '_');
  const base = ascii.slice(0, Math.max(0, ascii.lastIndexOf('.')));
  return /[A-Za-z0-9]/.test(base) ? ascii : fallback;
}

/** Content-Disposition: images inline, everything else as an attachment; RFC 6266/5987 names. */
export function contentDisposition(
  file: Pick<FileMetadata, 'filename' | 'originalFilename' | 'fileType'>,
  ext: string,
): string {
  const name = safeDownloadName(file.originalFilename, ext, file.filename);
  const disposition = file.fileType === 'image' ? 'inline' : 'attachment';
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${asciiName(name, file.filename)}"; filename*=UTF-8''${encoded}`;
}

export function fileHeaders(
  file: Pick<FileMetadata, 'filename' | 'originalFilename' | 'fileType' | 'mimeType' | 'size'>,
  ext: string,
  cacheControl: string,
): Record<string, string> {
  return {
    'content-type': file.mimeType,
    'content-disposition': contentDisposition(file, ext),
    'cache-control': cacheControl,
    'x-content-type-options': 'nosniff',
  };
}

// ---------------------------------------------------------------------------
// Streaming

export function fileDocuments(state: FilesState, instanceId: string) {
  const entity = parseInstanceId(instanceId);
  return (state.files ?? []).map((f) => ({
    collection: 'files',
    id: f.id,
    doc: {
      ...f,
      instanceId,
      entityType: state.entityType ?? entity?.entityType ?? null,
      entityId: state.entityId ?? entity?.entityId ?? null,
      companyId: state.companyId ?? null,
    },
  }));
}

// ---------------------------------------------------------------------------
// Company scope

/**
 * The company an entity's files belong to: the company the class storing them
 * names (it knows its entity's company, and moves the files with the entity:
 * a member the HR system moves to another company keeps storing its files);
 * kept as it is when nobody names one. A user cannot name one: a user's claim is
 * no proof that the entity is its company's, so the files of an entity first
 * stored by a user belong to no company (internal users only) until its class
 * names one, and a company user cannot open an entity's files at all (the
 * platform refuses a write that leaves an instance outside its company).
 */
export function companyOfFiles(
  current: string | undefined,
  requested: string | undefined,
  requesterIsClass: boolean,
): RuleResult<string | undefined> {
  if (requested !== undefined && !requesterIsClass) {
    return {
      ok: false,
      error: 'ENTITY_MISMATCH',
      message: 'Only the class that owns the entity names the company of its files',
    };
  }
  return { ok: true, value: requested ?? current };
}

// ---------------------------------------------------------------------------
// Who acts

/**
 * The actor recorded in the history: the caller's own, or, when a class (or
 * the system) passes `actor` on behalf of a user, that actor with the class
 * as `via`. Other callers may not name an actor.
 */
export function actingActor(identity: Identity, proxied: Actor | undefined): RuleResult<{ actor: Actor; via?: Actor }> {
  const own = actorFromIdentity(identity);
  if (!proxied) return { ok: true, value: { actor: own } };
  if (identity.type !== 'class' && identity.type !== 'system') {
    return {
      ok: false,
      error: 'ACTOR_NOT_ALLOWED',
      message: `A ${identity.type} may not act on behalf of another actor`,
    };
  }
  return { ok: true, value: { actor: proxied, via: own } };
}

/** An enduser may touch only the files of its own entity (entity id = its user id). */
export function enduserMayAccess(identity: Identity, entityId: string): boolean {
  return identity.type !== 'enduser' || (identity.userId !== undefined && identity.userId === entityId);
}
