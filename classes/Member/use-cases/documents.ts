/**
 * Member documents (spec 2.1, 4.5): upload, list, download (active, archived),
 * archive, unarchive, through the platform's entity documents (files in
 * FileManager `member_<id>`, audit entries `member_document`).
 */
import type { ListDocumentsInput } from '../../../schemas/Member/inputs';
import type { DocumentStatus } from '../../_platform/entity-documents';
import { entityDocuments } from '../../_platform/entity-documents';
import { memberError } from '../errors';
import { documentTypeProblem } from '../family';
import { memberState, type MemberCtx, type MemberReadCtx } from '../member-state';
import { reachable } from './common';
import type { DocumentRefInput, UploadDocumentInput } from '../../../schemas/Member/inputs';

const memberDocuments = entityDocuments({
  entityType: 'member',
  // the platform hands back the handler's own context: a write's, or a READ's (frozen) for list and download
  reach: (ctx: MemberCtx<unknown>) => reachable(ctx).id,
  read: (ctx: MemberCtx<unknown>) => memberState(ctx).documents,
  write: (ctx: MemberCtx<unknown>, docs) => {
    memberState(ctx).documents = docs;
  },
  typeProblem: documentTypeProblem,
  error: memberError,
});

export function uploadDocument(ctx: MemberCtx<UploadDocumentInput>) {
  return memberDocuments.upload(ctx);
}

export function listDocuments(ctx: MemberReadCtx<ListDocumentsInput>) {
  return memberDocuments.list(ctx);
}

export function downloadDocument(ctx: MemberReadCtx<DocumentRefInput>, archivedToo: boolean) {
  return memberDocuments.download(ctx, archivedToo);
}

export function setDocumentStatus(ctx: MemberCtx<DocumentRefInput>, to: DocumentStatus) {
  return memberDocuments.setStatus(ctx, to);
}
