/**
 * Member documents (spec 2.1, 4.5): upload, list, download (active, archived),
 * archive, unarchive, through the platform's entity documents (files in
 * FileManager `member_<id>`, audit entries `member_document`).
 */
import type { Ctx } from '../../../runtime';
import { entityDocuments, type DocumentStatus } from '../../_platform/entity-documents';
import { memberError } from '../errors';
import { documentTypeProblem } from '../family';
import { memberState } from '../member-state';
import { reachable } from './common';

const memberDocuments = entityDocuments({
  entityType: 'member',
  reach: (ctx) => reachable(ctx).id,
  read: (ctx) => memberState(ctx).documents,
  write: (ctx, docs) => {
    memberState(ctx).documents = docs;
  },
  typeProblem: documentTypeProblem,
  error: memberError,
});

export function uploadDocument(ctx: Ctx) {
  return memberDocuments.upload(ctx);
}

export function listDocuments(ctx: Ctx) {
  return memberDocuments.list(ctx);
}

export function downloadDocument(ctx: Ctx, archivedToo: boolean) {
  return memberDocuments.download(ctx, archivedToo);
}

export function setDocumentStatus(ctx: Ctx, to: DocumentStatus) {
  return memberDocuments.setStatus(ctx, to);
}
