/**
 * Partner documents (spec 2.5, 3.3, 4.5, 8): upload, list, download (active
 * only; archived too through downloadArchivedDocument), archive, unarchive,
 * through the platform's entity documents (files in FileManager
 * `partner_<id>`, audit entries `partner_document`), with the rules and
 * limits of member documents. An archived document asked of downloadDocument
 * is 14008 (spec 7.1).
 */
import type { DocumentStatus } from '../../_platform/entity-documents';
import { entityDocuments } from '../../_platform/entity-documents';
import { partnerError } from '../errors';
import { documentTypeProblem } from '../rules';
import { PARTNER_ENTITY, st, type PartnerCtx, type PartnerReadCtx } from './common';
import type { DocumentRefInput, ListDocumentsInput, UploadDocumentInput } from '../../../schemas/Partner/inputs';

const partnerDocuments = entityDocuments({
  entityType: PARTNER_ENTITY,
  // the platform hands back the handler's own context: a write's, or a READ's (frozen) for list and download
  reach: (ctx: PartnerCtx<unknown>) => ctx.state.private.partner.id,
  read: (ctx: PartnerCtx<unknown>) => ctx.state.private.documents,
  write: (ctx: PartnerCtx<unknown>, docs) => {
    st(ctx).documents = docs;
  },
  typeProblem: documentTypeProblem,
  error: partnerError,
});

export function uploadDocument(ctx: PartnerCtx<UploadDocumentInput>) {
  return partnerDocuments.upload(ctx);
}

/** its input checked by schemas/Partner/listDocuments.json (400 17010 naming the field) */
export function listDocuments(ctx: PartnerReadCtx<ListDocumentsInput>) {
  return partnerDocuments.list(ctx);
}

export function downloadDocument(ctx: PartnerReadCtx<DocumentRefInput>, archivedToo: boolean) {
  return partnerDocuments.download(ctx, archivedToo);
}

export function setDocumentStatus(ctx: PartnerCtx<DocumentRefInput>, to: DocumentStatus) {
  return partnerDocuments.setStatus(ctx, to);
}
