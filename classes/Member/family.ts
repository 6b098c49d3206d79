/**
 * Family members (spec 4.5 "the service management": getMemberDependants,
 * addMemberFamilyMember, updateMemberFamilyMember, removeMemberFamilyMember)
 * and documents, pure.
 *
 * A family member is a dependant Member instance of its own (so it can hold
 * memberships, photos and sign in); the primary member lists it in
 * `familyMembers`. Limits come from the member's company:
 *  - `memberSubTypes[].maxDependants`: at most that many family members of
 *    each sub type; a sub type the company does not list is not allowed.
 *  - `maxFreeDependants`: the first that many family members (in the order
 *    they were added) are free (company-paid memberships are possible for
 *    them); later ones are not refused, they are paid.
 */
import { typeForMimeType } from '../FileManager/file-types';
import type { CompanyRecord } from './clients';
import type { MemberErrorName } from './errors';
import type { DocumentStatus, FamilyMember, MemberDocument } from './types';

export type Refusal = { ok: false; error: MemberErrorName; message: string; details?: Record<string, unknown> };

/** May one more family member of `memberSubType` be added (or moved to it)? */
export function checkFamilyLimit(company: CompanyRecord, family: readonly FamilyMember[], memberSubType: string, excludeId?: string): { ok: true } | Refusal {
  const entry = (company.memberSubTypes ?? []).find((s) => s.memberSubTypeId === memberSubType);
  if (!entry) {
    return { ok: false, error: 'NOT_ELIGIBLE_FOR_COMPANY', message: `Company '${company.id}' allows no family members of sub type '${memberSubType}'` };
  }
  const count = family.filter((f) => f.memberSubType === memberSubType && f.id !== excludeId && f.status !== 'inactive').length;
  if (count >= entry.maxDependants) {
    return {
      ok: false,
      error: 'FAMILY_MEMBER_LIMIT',
      message: `Company '${company.id}' allows at most ${entry.maxDependants} family member(s) of sub type '${memberSubType}'`,
      details: { memberSubType, maxDependants: entry.maxDependants, current: count },
    };
  }
  return { ok: true };
}

/** Ids of the free family members: the first maxFreeDependants (active ones, in the order added). */
export function freeFamilyMemberIds(company: Pick<CompanyRecord, 'maxFreeDependants'> | null, family: readonly FamilyMember[]): string[] {
  const max = Math.max(0, company?.maxFreeDependants ?? 0);
  return family.filter((f) => f.status !== 'inactive').slice(0, max).map((f) => f.id);
}

// ---------------------------------------------------------------- documents

/**
 * Spec 2.1: member documents are images (jpeg, jpg, png, gif, webp; 5 MB) and
 * documents (pdf, doc, docx, xls, xlsx, txt, csv; 10 MB). FileManager also
 * stores JSON files (spec 8), which are not member documents. FileManager
 * checks size and content.
 */
export const DOCUMENT_FILE_TYPES = ['image', 'document'] as const;

/** Why `mimeType` is not a member document type (null when it is one). */
export function documentTypeProblem(mimeType: string): string | null {
  const type = typeof mimeType === 'string' && mimeType.includes('/') ? typeForMimeType(mimeType) : null;
  if (type && (DOCUMENT_FILE_TYPES as readonly string[]).includes(type.fileType)) return null;
  return `'${mimeType}' is not a member document type: images (jpeg, jpg, png, gif, webp) or documents (pdf, doc, docx, xls, xlsx, txt, csv), as a mime type`;
}

export function findDocument(docs: readonly MemberDocument[] | undefined, id: string): { ok: true; doc: MemberDocument } | Refusal {
  const doc = (docs ?? []).find((d) => d.id === id);
  return doc ? { ok: true, doc } : { ok: false, error: 'DOCUMENT_NOT_FOUND', message: `No document '${id}'` };
}

/** archive / unarchive: active ↔ archived (spec 3.3). */
export function moveDocument(doc: MemberDocument, to: DocumentStatus, now: string): { ok: true; doc: MemberDocument } | Refusal {
  if (doc.status === to) {
    return { ok: false, error: 'DOCUMENT_STATUS_CONFLICT', message: `Document '${doc.id}' is already ${to}` };
  }
  return { ok: true, doc: { ...doc, status: to, updatedAt: now } };
}

/** listDocuments: newest first, each with status, label and isArchived. */
export function documentListing(docs: readonly MemberDocument[] | undefined, status?: DocumentStatus) {
  return [...(docs ?? [])]
    .filter((d) => (status ? d.status === status : true))
    .sort((a, b) => (a.uploadedAt < b.uploadedAt ? 1 : a.uploadedAt > b.uploadedAt ? -1 : a.id < b.id ? 1 : -1))
    .map((d) => ({ ...d, isArchived: d.status === 'archived' }));
}
