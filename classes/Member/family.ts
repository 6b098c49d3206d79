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
import type { CompanyRecord } from './clients';
import type { MemberErrorName } from './errors';
import type { DocumentStatus, FamilyMember, MemberDocument } from './types';

export type Refusal = { ok: false; error: MemberErrorName; message: string; details?: unknown };

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

/** Spec 2.1: images up to 5 MB and documents up to 10 MB (FileManager enforces type, size and content). */
export const DOCUMENT_MIME_TYPES = [
  'image/jpeg',
  'image/jpg',
  'image/png',
  'image/gif',
  'image/webp',
  'application/pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'text/plain',
  'text/csv',
];

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
