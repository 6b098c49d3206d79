/**
 * Entity documents (spec 2.1, 4.5; Member now, Partner next): an entity keeps
 * a list of documents in its state, their content in FileManager instance
 * `<entityType>_<entityId>`. Upload, list (newest first, paged), download
 * (active only, or archived too), archive and unarchive; every change is an
 * audit entry of entity type `<entityType>_document`.
 *
 * A class gives its entity type, how a caller reaches the entity (its own
 * access checks), where the list lives in its state, which mime types are
 * documents for it, and its error factory: errors are the class's, in its spec
 * range, under the names of DocumentErrorName (its table must have them).
 *
 *   const docs = entityDocuments({ entityType: 'member', reach: (ctx) => reachable(ctx).id,
 *     read: (ctx) => memberState(ctx).documents, write: (ctx, d) => { memberState(ctx).documents = d; },
 *     typeProblem: documentTypeProblem, error: memberError });
 *   uploadDocument(ctx) { return docs.upload(ctx); }
 *
 * The file helpers (storeEntityFile, entityDownloadLink, fileRefusal) serve the
 * entity's other files too (e.g. Member's ID photos).
 */
import { randomUUID } from 'node:crypto';
import { ActorError, type BaseCtx, type Ctx } from '../../runtime';
import { actorFromIdentity, type Actor } from './actor';
import { logChange } from './audit-log';
import { pageInfo } from './paging';
import { recordCompany } from './scope';

export const DOCUMENT_STATUSES = ['active', 'archived'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** Document metadata (spec 2.1); content in FileManager `<entityType>_<entityId>`. */
export interface EntityDocument {
  id: string;
  fileId: string;
  filename: string;
  originalFilename: string;
  label: string | null;
  mimeType: string;
  size: number;
  status: DocumentStatus;
  uploadedBy: Actor;
  uploadedAt: string;
  updatedAt: string;
}

/** The names a class's error table must have for its documents (each in the class's own range). */
export type DocumentErrorName =
  | 'DOCUMENT_NOT_FOUND'
  | 'DOCUMENT_ARCHIVED'
  | 'DOCUMENT_STATUS_CONFLICT'
  | 'INVALID_FILE'
  | 'INVALID_INPUT'
  | 'INVALID_QUERY'
  | 'FILE_STORE_FAILED';

export type DocumentErrorFactory = (name: DocumentErrorName, message: string, details?: unknown) => ActorError;

export type DocumentRefusal = {
  ok: false;
  error: DocumentErrorName;
  message: string;
  details?: Record<string, unknown>;
};

// ---------------------------------------------------------------- pure rules

export function findDocument(
  docs: readonly EntityDocument[] | undefined,
  id: string,
): { ok: true; doc: EntityDocument } | DocumentRefusal {
  const doc = (docs ?? []).find((d) => d.id === id);
  return doc ? { ok: true, doc } : { ok: false, error: 'DOCUMENT_NOT_FOUND', message: `No document '${id}'` };
}

/** archive / unarchive: active ↔ archived (spec 3.3). */
export function moveDocument(
  doc: EntityDocument,
  to: DocumentStatus,
  now: string,
): { ok: true; doc: EntityDocument } | DocumentRefusal {
  if (doc.status === to) {
    return { ok: false, error: 'DOCUMENT_STATUS_CONFLICT', message: `Document '${doc.id}' is already ${to}` };
  }
  return { ok: true, doc: { ...doc, status: to, updatedAt: now } };
}

/** listDocuments: newest first, each with status, label and isArchived. */
export function documentListing(docs: readonly EntityDocument[] | undefined, status?: DocumentStatus) {
  return [...(docs ?? [])]
    .filter((d) => (status ? d.status === status : true))
    .sort((a, b) => (a.uploadedAt < b.uploadedAt ? 1 : a.uploadedAt > b.uploadedAt ? -1 : a.id < b.id ? 1 : -1))
    .map((d) => ({ ...d, isArchived: d.status === 'archived' }));
}

export interface DocumentListQuery {
  status?: DocumentStatus;
  page: number;
  limit: number;
  skip: number;
}

/** listDocuments' input, as a class's listDocuments schema checks it (status, page, limit 1-100). */
export interface DocumentListInput {
  status?: DocumentStatus;
  page?: number;
  limit?: number;
}

/** listDocuments' query from its checked input: page 1 and 10 a page unless given. */
export function documentListQuery(input: DocumentListInput): DocumentListQuery {
  const { status, page = 1, limit = 10 } = input;
  return { ...(status ? { status } : {}), page, limit, skip: (page - 1) * limit };
}

// ---------------------------------------------------------------- files in FileManager

export interface StoredFile {
  id: string;
  filename: string;
  originalFilename?: string;
  mimeType: string;
  size: number;
}

export function entityFileInstance(entityType: string, entityId: string): string {
  return `${entityType}_${entityId}`;
}

/** Stores a file of the entity in FileManager; FileManager's errors are thrown as they are. */
export async function storeEntityFile(
  ctx: Ctx,
  entityType: string,
  entityId: string,
  file: { content: string; mimeType: string; originalFilename: string },
): Promise<StoredFile> {
  const actor: Actor = actorFromIdentity(ctx.identity);
  // the files belong to the entity's company (company scope of FileManager)
  const company = recordCompany(ctx);
  const res = await ctx.call('FileManager', 'uploadFile', entityFileInstance(entityType, entityId), {
    ...file,
    actor,
    ...(company ? { companyId: company } : {}),
  });
  return (res.body as { file: StoredFile }).file;
}

/** A 5-minute download link of one of the entity's files. */
export async function entityDownloadLink(
  ctx: Pick<BaseCtx, 'call'>,
  entityType: string,
  entityId: string,
  filename: string,
): Promise<{ token: string; url: string; expiresAt: string }> {
  const res = await ctx.call('FileManager', 'createDownloadToken', entityFileInstance(entityType, entityId), {
    filename,
  });
  return res.body as { token: string; url: string; expiresAt: string };
}

/** FileManager's unsupported-type refusal (13001): the declared type, not the content, is wrong */
const FILE_TYPE_REFUSED = 13001;

/** An error about one input field: `details.errors: [{field, reason}]` (the shape of the runtime's schema answers), plus other details. */
export function documentFieldError(
  error: DocumentErrorFactory,
  name: DocumentErrorName,
  field: string,
  message: string,
  details?: Record<string, unknown>,
): ActorError {
  return error(name, message, { ...(details ?? {}), errors: [{ field, reason: message }] });
}

/** A FileManager refusal (4xx) as INVALID_FILE on the content field (or the type field); its own failure as FILE_STORE_FAILED. */
export function fileRefusal(
  error: DocumentErrorFactory,
  err: unknown,
  fields: { content: string; type: string },
): ActorError {
  if (err instanceof ActorError && err.status < 500) {
    const field = err.code === FILE_TYPE_REFUSED ? fields.type : fields.content;
    return documentFieldError(error, 'INVALID_FILE', field, `The file was refused: ${err.message}`, {
      code: err.code,
      message: err.message,
    });
  }
  const e = err as { code?: unknown; message?: unknown };
  return error('FILE_STORE_FAILED', 'The file could not be stored', {
    code: e?.code,
    message: String(e?.message ?? err),
  });
}

// ---------------------------------------------------------------- the handlers

export interface EntityDocumentsConfig {
  /** files in FileManager `<entityType>_<id>`, audit entries of `<entityType>_document` naming `<entityType>Id` */
  entityType: string;
  /** the entity's id, after the class's own checks that the caller may reach it (throws otherwise) */
  reach(ctx: BaseCtx): string;
  /** the entity's documents in its state (a READ's are its frozen snapshot) */
  read(ctx: BaseCtx): readonly EntityDocument[] | undefined;
  write(ctx: Ctx, docs: EntityDocument[]): void;
  /** why a mime type is not a document type of this entity (null: it is one) */
  typeProblem(mimeType: string): string | null;
  /** the class's error factory (its table has every DocumentErrorName) */
  error: DocumentErrorFactory;
}

const now = () => new Date().toISOString();

export function entityDocuments(config: EntityDocumentsConfig) {
  const { entityType, error } = config;

  async function logDocuments(ctx: Ctx, before: EntityDocument | null, after: EntityDocument) {
    await logChange(ctx, {
      entityType: `${entityType}_document`,
      entityId: after.id,
      before,
      after,
      additionalData: { [`${entityType}Id`]: ctx.instanceId },
    });
  }

  /** The document named by `documentId` (a GET's query is its body): INVALID_INPUT without one, DOCUMENT_NOT_FOUND when there is none. */
  function documentOf(ctx: BaseCtx): EntityDocument {
    const { documentId } = (ctx.request.body ?? {}) as { documentId?: unknown };
    if (typeof documentId !== 'string' || !documentId) {
      throw documentFieldError(
        error,
        'INVALID_INPUT',
        'documentId',
        'documentId is required (a string, in the body or the query)',
      );
    }
    const r = findDocument(config.read(ctx), documentId);
    if (!r.ok) throw error(r.error, r.message);
    return r.doc;
  }

  return {
    async upload(ctx: Ctx) {
      const id = config.reach(ctx);
      const body = ctx.request.body as {
        content: string;
        mimeType: string;
        originalFilename: string;
        label?: string | null;
      };
      const typeProblem = config.typeProblem(body.mimeType);
      if (typeProblem) throw documentFieldError(error, 'INVALID_FILE', 'mimeType', typeProblem);
      let file;
      try {
        file = await storeEntityFile(ctx, entityType, id, {
          content: body.content,
          mimeType: body.mimeType,
          originalFilename: body.originalFilename,
        });
      } catch (err) {
        throw fileRefusal(error, err, { content: 'content', type: 'mimeType' });
      }
      const t = now();
      const doc: EntityDocument = {
        id: randomUUID(),
        fileId: file.id,
        filename: file.filename,
        originalFilename: body.originalFilename,
        label: body.label ?? null,
        mimeType: file.mimeType,
        size: file.size,
        status: 'active',
        uploadedBy: actorFromIdentity(ctx.identity),
        uploadedAt: t,
        updatedAt: t,
      };
      config.write(ctx, [...(config.read(ctx) ?? []), doc]);
      await logDocuments(ctx, null, doc);
      return {
        documentId: doc.id,
        document: doc,
        download: await entityDownloadLink(ctx, entityType, id, doc.filename),
      };
    },

    /** the page a class's listDocuments asks for; its schema checked the input (a GET query coerced to it) */
    list(ctx: BaseCtx) {
      config.reach(ctx);
      const page = documentListQuery((ctx.request.body ?? {}) as DocumentListInput);
      const all = documentListing(config.read(ctx), page.status);
      return {
        documents: all.slice(page.skip, page.skip + page.limit),
        ...pageInfo(all.length, page.page, page.limit),
      };
    },

    /** active documents only, unless archivedToo (a method, and permission, of its own) */
    async download(ctx: BaseCtx, archivedToo: boolean) {
      const id = config.reach(ctx);
      const doc = documentOf(ctx);
      if (!archivedToo && doc.status === 'archived') {
        throw error(
          'DOCUMENT_ARCHIVED',
          `Document '${doc.id}' is archived; downloadArchivedDocument downloads archived documents`,
        );
      }
      return {
        documentId: doc.id,
        status: doc.status,
        ...(await entityDownloadLink(ctx, entityType, id, doc.filename)),
      };
    },

    /** archive (to 'archived') or unarchive (to 'active') */
    async setStatus(ctx: Ctx, to: DocumentStatus) {
      config.reach(ctx);
      const doc = documentOf(ctx);
      const r = moveDocument(doc, to, now());
      if (!r.ok) throw error(r.error, r.message);
      config.write(
        ctx,
        (config.read(ctx) ?? []).map((d) => (d.id === doc.id ? r.doc : d)),
      );
      await logDocuments(ctx, doc, r.doc);
      return { documentId: doc.id, status: to };
    },
  };
}
