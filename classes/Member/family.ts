/**
 * Family members (spec 4.5 "the service management": getMemberDependants,
 * addMemberFamilyMember, updateMemberFamilyMember, removeMemberFamilyMember)
 * and which files are member documents, pure (the document rules shared with
 * other entities are in classes/_platform/entity-documents.ts).
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
import type { DeepReadonly } from '../../runtime';
import { typeForMimeType } from '../_platform/file-types';
import type { CompanyRecord } from './clients';
import type { MemberErrorName } from './errors';
import type { FamilyMember, MemberProfile } from './types';

export type Refusal = { ok: false; error: MemberErrorName; message: string; details?: Record<string, unknown> };

/** May one more family member of `memberSubType` be added (or moved to it)? */
export function checkFamilyLimit(
  company: CompanyRecord,
  family: DeepReadonly<FamilyMember[]>,
  memberSubType: string,
  excludeId?: string,
): { ok: true } | Refusal {
  const entry = (company.memberSubTypes ?? []).find((s) => s.memberSubTypeId === memberSubType);
  if (!entry) {
    return {
      ok: false,
      error: 'NOT_ELIGIBLE_FOR_COMPANY',
      message: `Company '${company.id}' allows no family members of sub type '${memberSubType}'`,
    };
  }
  const count = family.filter(
    (f) => f.memberSubType === memberSubType && f.id !== excludeId && f.status !== 'inactive',
  ).length;
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
export function freeFamilyMemberIds(
  company: Pick<CompanyRecord, 'maxFreeDependants'> | null,
  family: DeepReadonly<FamilyMember[]>,
): string[] {
  const max = Math.max(0, company?.maxFreeDependants ?? 0);
  return family
    .filter((f) => f.status !== 'inactive')
    .slice(0, max)
    .map((f) => f.id);
}

// ---------------------------------------------------------------- a family member's own fields

/** the fields of a family member that updateMemberFamilyMember changes (on the dependant's own instance) */
export const FAMILY_FIELDS = ['name', 'middleName', 'surname', 'email', 'phone', 'relation', 'memberSubType'] as const;
export type FamilyField = (typeof FAMILY_FIELDS)[number];
export type FamilyChanges = Partial<Pick<MemberProfile, FamilyField>>;

function copyField<K extends FamilyField>(to: FamilyChanges, from: FamilyChanges, k: K): void {
  to[k] = from[k];
}

/**
 * The dependant after `changes`: the fields given that differ from what it
 * holds (JSON comparison; undefined leaves a field as it is, null clears it),
 * in FAMILY_FIELDS order, and updatedAt `now` when any did. The primary
 * member computes it to answer; the dependant applies it to its state when
 * the change reaches it.
 */
export function applyFamilyChanges<P extends DeepReadonly<Pick<MemberProfile, FamilyField | 'updatedAt'>>>(
  before: P,
  changes: FamilyChanges,
  now: string,
): { after: P; updatedFields: FamilyField[] } {
  const picked: FamilyChanges = {};
  const updatedFields: FamilyField[] = [];
  for (const f of FAMILY_FIELDS) {
    if (changes[f] === undefined || JSON.stringify(changes[f]) === JSON.stringify(before[f])) continue;
    copyField(picked, changes, f);
    updatedFields.push(f);
  }
  if (!updatedFields.length) return { after: before, updatedFields };
  return { after: { ...before, ...picked, updatedAt: now }, updatedFields };
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
