/** Member documents (spec 2.1, 4.5): upload, list, download (active, archived), archive, unarchive. */
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { listingInput } from '../../_platform/paging';
import { logChange } from '../../LogManager/log-client';
import { fieldError, memberError } from '../errors';
import { documentListing, documentTypeProblem, findDocument, moveDocument } from '../family';
import { invalidQuery, pageAnswer, parseDocumentListQuery } from '../listing';
import { memberState } from '../member-state';
import type { DocumentStatus, MemberDocument } from '../types';
import { now, reachable } from './common';
import { downloadLink, fileError, storeMemberFileMeta } from './files';

export async function uploadDocument(ctx: Ctx) {
  const p = reachable(ctx);
  const body = ctx.request.body as { content: string; mimeType: string; originalFilename: string; label?: string | null };
  const typeProblem = documentTypeProblem(body.mimeType);
  if (typeProblem) throw fieldError('INVALID_FILE', 'mimeType', typeProblem);
  let file;
  try {
    file = await storeMemberFileMeta(ctx, p.id, { content: body.content, mimeType: body.mimeType, originalFilename: body.originalFilename });
  } catch (err) {
    throw fileError(err, { content: 'content', type: 'mimeType' });
  }
  const t = now();
  const doc: MemberDocument = {
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
  const state = memberState(ctx);
  state.documents = [...(state.documents ?? []), doc];
  await logDocuments(ctx, null, doc);
  return { documentId: doc.id, document: doc, download: await downloadLink(ctx, p.id, doc.filename) };
}

async function logDocuments(ctx: Ctx, before: MemberDocument | null, after: MemberDocument) {
  await logChange(ctx, {
    entityType: 'member_document',
    entityId: after.id,
    before: before as unknown as Record<string, unknown> | null,
    after: after as unknown as Record<string, unknown>,
    additionalData: { memberId: ctx.instanceId },
  });
}

export function listDocuments(ctx: Ctx) {
  reachable(ctx);
  const parsed = parseDocumentListQuery(listingInput(ctx));
  if (!parsed.ok) throw invalidQuery(parsed.errors);
  const page = parsed.query;
  const all = documentListing(memberState(ctx).documents, page.status);
  return pageAnswer('documents', all.slice(page.skip, page.skip + page.limit), all.length, page);
}

/** The document named by `documentId` (body, or query for GET): 400 (5028) without one, 404 (5018) when there is none. */
function documentOf(ctx: Ctx): MemberDocument {
  const { documentId } = listingInput(ctx);
  if (typeof documentId !== 'string' || !documentId) {
    throw fieldError('INVALID_INPUT', 'documentId', 'documentId is required (a string, in the body or the query)');
  }
  const r = findDocument(memberState(ctx).documents, documentId);
  if (!r.ok) throw memberError(r.error, r.message);
  return r.doc;
}

export async function downloadDocument(ctx: Ctx, archivedToo: boolean) {
  const p = reachable(ctx);
  const doc = documentOf(ctx);
  if (!archivedToo && doc.status === 'archived') {
    throw memberError('DOCUMENT_ARCHIVED', `Document '${doc.id}' is archived; downloadArchivedDocument downloads archived documents`);
  }
  return { documentId: doc.id, status: doc.status, ...(await downloadLink(ctx, p.id, doc.filename)) };
}

export async function setDocumentStatus(ctx: Ctx, to: DocumentStatus) {
  reachable(ctx);
  const doc = documentOf(ctx);
  const r = moveDocument(doc, to, now());
  if (!r.ok) throw memberError(r.error, r.message);
  const state = memberState(ctx);
  state.documents = (state.documents ?? []).map((d) => (d.id === doc.id ? r.doc : d));
  await logDocuments(ctx, doc, r.doc);
  return { documentId: doc.id, status: to };
}
