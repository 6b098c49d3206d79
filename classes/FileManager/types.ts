/** FileManager's state and the bodies of its methods (schemas/FileManager/*.json). */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';
import type { FilesState } from './rules';

/** One instance per entity: private state holds the entity, its company and its files' metadata (file-rules.ts). */
export type FileManagerState = StateOf<FilesState>;

/** init: path id, or the entity in the body; the company of its files (classes only) */
export type InitBody = { entityType?: string; entityId?: string; companyId?: string };

export type UploadBody = {
  /** Base64 (strict RFC 4648) */
  content: string;
  mimeType: string;
  originalFilename?: string;
  isPublic?: boolean;
  /** the actor behind a class's upload (classes only) */
  actor?: Actor;
  /** the company the entity belongs to (company scope); kept once set */
  companyId?: string;
};

/** exactly one of fileId and filename (body, or query for a GET): file-rules.ts fileReference */
export type FileRefBody = { fileId?: string; filename?: string };

export type DeleteBody = FileRefBody & { actor?: Actor };

export type PurgeBody = { fileId: string };

/** downloadFile: the token, and the filename it was minted for (body or query) */
export type DownloadBody = { token?: string; filename?: string };

/** getPublicFile: the filename (body or query) */
export type PublicFileBody = { filename?: string };

/** INTERNAL reads of the instance take no input */
export type NoBody = Record<string, never>;
