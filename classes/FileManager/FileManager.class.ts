/**
 * FileManager (spec 2.8 FileMetadata, 3.3 File, 4.5, 5 file access, 8 limits).
 *
 * One instance per entity, id `{entityType}_{entityId}`. The instance keeps
 * the metadata of the entity's files in `private.files`; content lives in the
 * blob store (ctx.ports.blobs) under a generated name
 * `{entityType}_{entityId}_{fileId}.{ext}` (a UUID and the extension of the
 * declared type: no user text ever reaches the store).
 *
 * This file declares the methods and delegates: the bodies are in
 * use-cases/{instance,upload,delete,downloads,subject-data}.ts (what they share in
 * use-cases/common.ts), the rules in file-types.ts and file-rules.ts.
 */
import { ActorClass, Init, Internal, Read, Static, Write, type Ctx, type ReadCtx, type StaticCtx } from '../../runtime';
import { SUBJECT_DATA_ACCESS } from '../_platform/personal-data';
import { ownedByCompany } from '../_platform/scope';
import type {
  CreateDownloadTokenInput,
  DeleteFileInput,
  DownloadFileInput,
  EraseSubjectDataInput,
  ExportSubjectDataInput,
  GetFileInput,
  GetPublicFileInput,
  InitInput,
  PurgeFileContentInput,
  UploadFileInput,
} from '../../schemas/FileManager/inputs';
import { fileDocuments, initInstanceId } from './rules';
import type { FileManagerState, NoBody } from './types';
import * as instance from './use-cases/instance';
import * as upload from './use-cases/upload';
import * as deletion from './use-cases/delete';
import * as downloads from './use-cases/downloads';
import * as subjectData from './use-cases/subject-data';

@ActorClass<FileManagerState>({
  id: 'FileManager',
  description: 'Files of an entity: metadata in state, content in the file store, signed download links',
  sensitiveFields: ['content', 'token'],
  // company scope: an entity's files belong to the entity's company (named by the class that stores them)
  tenancy: ownedByCompany((state) => state.private.companyId),
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
    toDocuments: (state, instanceId) => fileDocuments(state.private, instanceId),
  },
})
export class FileManager {
  /** Opens the entity's instance (path id, or the entity in the body) and names its company (classes only). */
  @Init({
    access: ['program_management_user', 'class'],
    instanceId: (req) => initInstanceId(req.path.instanceId, req.body),
  })
  init(ctx: Ctx<FileManagerState, InitInput>) {
    return instance.init(ctx);
  }

  /** Stores a checked file (spec 8) and answers its metadata with a 5-minute download link (and its public URL). */
  @Write({ access: ['program_management_user', 'enduser', 'class'], upsert: true, timeoutSeconds: 30 })
  async uploadFile(ctx: Ctx<FileManagerState, UploadFileInput>) {
    return upload.uploadFile(ctx);
  }

  /** Metadata and content (Base64) of an active file. */
  @Read({ access: ['program_management_user', 'class'], timeoutSeconds: 30 })
  async getFile(ctx: ReadCtx<FileManagerState, GetFileInput>) {
    return downloads.getFile(ctx);
  }

  /** active → deleted; the content is removed by purgeFileContent after the commit. */
  @Write({ access: ['program_management_user', 'class'] })
  deleteFile(ctx: Ctx<FileManagerState, DeleteFileInput>) {
    return deletion.deleteFile(ctx);
  }

  /** Removes the content of a deleted file; scheduled by deleteFile. */
  @Internal({ access: ['class:FileManager'] })
  async purgeFileContent(ctx: Ctx<FileManagerState, PurgeFileContentInput>) {
    return deletion.purgeFileContent(ctx);
  }

  /** Raw content for a signed token (5 minutes, bound to instance and filename); no role check. */
  @Read({ access: ['public'], timeoutSeconds: 30 })
  async downloadFile(ctx: ReadCtx<FileManagerState, DownloadFileInput>) {
    return downloads.downloadFile(ctx);
  }

  /** Raw content of a public file; no authentication; cached for 30 minutes. */
  @Read({ access: ['public'], timeoutSeconds: 30 })
  async getPublicFile(ctx: ReadCtx<FileManagerState, GetPublicFileInput>) {
    return downloads.getPublicFile(ctx);
  }

  /** {token, url, expiresAt}: a 5-minute download link (Member and Partner documents use it). */
  @Read({ access: ['program_management_user', 'enduser', 'class'] })
  createDownloadToken(ctx: ReadCtx<FileManagerState, CreateDownloadTokenInput>) {
    return downloads.createDownloadToken(ctx);
  }

  @Internal({ access: ['class'], schema: false })
  getState(ctx: Ctx<FileManagerState, NoBody>) {
    return instance.getState(ctx);
  }

  @Internal({ access: ['class'], schema: false })
  getInstanceId(ctx: Ctx<FileManagerState, NoBody>) {
    return instance.getInstanceId(ctx);
  }

  /**
   * {subject} → the subject's files for a personal-data export (README "Personal data export"): every file's
   * metadata and the content still held; empty lists when there are none or the subject type keeps no files here.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS], timeoutSeconds: 30 })
  exportSubjectData(ctx: StaticCtx<ExportSubjectDataInput>) {
    return subjectData.exportSubjectData(ctx);
  }

  /** exportSubjectData's read of one instance (a STATIC reads no instance); it takes no body. */
  @Read({ access: ['class:FileManager'], schema: false, timeoutSeconds: 30, answer: 'exportSubjectData.answer' })
  subjectFilesOf(ctx: ReadCtx<FileManagerState, NoBody>) {
    return subjectData.subjectFilesOf(ctx);
  }

  /**
   * {subject, erasureId} → the subject's files erased (README "Erasure"): their content deleted from the store and
   * their metadata removed; {records, files}, zeros when nothing was left or the subject type keeps no files here.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS], timeoutSeconds: 30 })
  eraseSubjectData(ctx: StaticCtx<EraseSubjectDataInput>) {
    return subjectData.eraseSubjectData(ctx);
  }

  /** eraseSubjectData's write of one instance (a STATIC holds none); it takes no body. */
  @Internal({ access: ['class:FileManager'], schema: false, timeoutSeconds: 30 })
  async eraseSubjectFiles(ctx: Ctx<FileManagerState, NoBody>) {
    return subjectData.eraseSubjectFiles(ctx);
  }
}
