import { ActorError, errorFactory } from '../../runtime';

/** FileManager error codes (spec 7.1: 13000-13099). Each has one HTTP status. */
export const FileManagerErrors = {
  /** the instance id is not `{entityType}_{entityId}` */
  INVALID_INSTANCE_ID: { code: 13000, status: 400 },
  /** the declared mime type is not one of spec 8's types */
  UNSUPPORTED_TYPE: { code: 13001, status: 400 },
  /** content is not strict Base64 */
  INVALID_BASE64: { code: 13002, status: 400 },
  /** decoded content exceeds the type's limit (spec 8) */
  FILE_TOO_LARGE: { code: 13003, status: 400 },
  /** content is not of the declared type (magic bytes, JSON, UTF-8 text) */
  CONTENT_MISMATCH: { code: 13004, status: 400 },
  /** decoded content is empty */
  EMPTY_FILE: { code: 13005, status: 400 },
  /** neither or both of fileId and filename were given */
  INVALID_FILE_REFERENCE: { code: 13006, status: 400 },
  /** no file with that id or filename in this instance */
  FILE_NOT_FOUND: { code: 13007, status: 404 },
  /** the file exists but was deleted */
  FILE_DELETED: { code: 13008, status: 404 },
  /** download token missing, expired, tampered, or for another instance or filename */
  INVALID_TOKEN: { code: 13009, status: 403 },
  /** getPublicFile on a file that is not public (spec 7.1) */
  NOT_PUBLIC: { code: 13010, status: 403 },
  /** a proxied `actor` was given by a caller that is not a class */
  ACTOR_NOT_ALLOWED: { code: 13011, status: 403 },
  /** an enduser touching another entity's files */
  ENTITY_FORBIDDEN: { code: 13012, status: 403 },
  /** init body names another entity than the instance id */
  ENTITY_MISMATCH: { code: 13013, status: 400 },
  /** the file store failed (inner message and code in details) */
  FILE_STORE_ERROR: { code: 13014, status: 500 },
} as const;

export type FileManagerErrorName = keyof typeof FileManagerErrors;

export const fileManagerError = errorFactory('FileManager', FileManagerErrors);

/** Wraps a blob store failure (spec 4.1 rule 2 style: the inner message and code in details). */
export function fileStoreError(operation: string, err: unknown): ActorError {
  const e = err as { message?: unknown; code?: unknown; name?: unknown };
  return fileManagerError('FILE_STORE_ERROR', `The file store failed to ${operation} the file`, {
    message: String(e?.message ?? err),
    ...(e?.code !== undefined ? { code: e.code } : {}),
    ...(e?.name !== undefined ? { name: e.name } : {}),
  });
}
