/**
 * Approval rules, pure (spec 2.8, 3.2, 8): record creation (auto or manual),
 * who may register callbacks, inline-or-blob storage of the patch and its old values, reviewer
 * eligibility (active roles, maker not reviewer), review outcome, who may
 * read a record, listing filters, the record as callers see it.
 */
import type { ListingSpec } from '../../runtime';
import type { ListApprovalsInput } from '../../schemas/ApprovalManager/inputs';
import { isPrivilegedActor, type Actor } from '../_platform/actor';
import { changeView, oldValuesFit, type OldValue } from './changes';
import { approvalError } from './errors';
import type {
  ApprovalAction,
  ApprovalCallback,
  ApprovalCallbackBody,
  ApprovalRecord,
  ApprovedBy,
  CreateApprovalInput,
} from './types';
import type { Operation } from 'rfc6902';

/** Spec 8: a patch is stored inline up to 10 KB (10 * 1024 bytes of UTF-8 JSON); larger ones go to a blob. */
export const MAX_INLINE_PATCH_BYTES = 10 * 1024;

export const AUTO_APPROVER: ApprovedBy = Object.freeze({ id: 'auto_approve', type: 'system' });

export function patchBytes(patch: Operation[]): number {
  return Buffer.byteLength(JSON.stringify(patch), 'utf8');
}

export function isLargePatch(patch: Operation[]): boolean {
  return patchBytes(patch) > MAX_INLINE_PATCH_BYTES;
}

/**
 * Blob name of a large approval's patch: LARGE_APPROVAL_{entityId}_{approvalId}.json.
 * Characters a blob name may not hold (anything but letters, digits, `_`, `.`, `-`)
 * are replaced by `_`, and a leading non-alphanumeric is impossible by the prefix.
 */
export function largeApprovalFileName(entityId: string, approvalId: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/\.\.+/g, '_');
  return `LARGE_APPROVAL_${safe(entityId)}_${safe(approvalId)}.json`;
}

/** Blob name of old values kept out of line: LARGE_APPROVAL_{entityId}_{approvalId}_OLD_VALUES.json (same character rule). */
export function largeOldValuesFileName(entityId: string, approvalId: string): string {
  return largeApprovalFileName(entityId, approvalId).replace(/\.json$/, '_OLD_VALUES.json');
}

/**
 * Old values stay inline only while the record's inline data stays within
 * the spec 8 bound: the patch is inline and patch plus old values together
 * take at most 10 KB. Otherwise they go to their own blob.
 */
export function oldValuesInline(patch: Operation[], oldValues: OldValue[]): boolean {
  return (
    !isLargePatch(patch) &&
    patchBytes(patch) + Buffer.byteLength(JSON.stringify(oldValues), 'utf8') <= MAX_INLINE_PATCH_BYTES
  );
}

/** An approval is automatic when no role must approve it or the actor is privileged (developer, system). */
export function isAutoApproval(approvers: string[], actor: Actor): boolean {
  return approvers.length === 0 || isPrivilegedActor(actor);
}

/** The class an approval belongs to: its callbacks' class, else the calling class. */
export function approvalClassId(
  input: Pick<CreateApprovalInput, 'approveCallback' | 'rejectCallback'>,
  callerClassId?: string,
): string {
  return input.approveCallback?.classId ?? input.rejectCallback?.classId ?? callerClassId ?? 'unknown';
}

/** A new record (patch still inline; the handler moves large patches to a blob). */
export function newApprovalRecord(
  id: string,
  input: CreateApprovalInput,
  classId: string,
  now: string,
): ApprovalRecord {
  const auto = isAutoApproval(input.approvers, input.actor);
  const record: ApprovalRecord = {
    id,
    event: input.event,
    classId,
    instanceId: input.instanceId,
    entityId: input.entityId,
    approvalStatus: auto ? 'approved' : 'pending',
    entityOldStatus: input.entityOldStatus ?? null,
    entityNewStatus: input.entityNewStatus ?? null,
    approvalType: auto ? 'auto' : 'manual',
    jsonPatch: input.jsonPatch,
    isLargeApproval: false,
    actor: input.actor,
    approvers: [...input.approvers],
    allowSelfApproval: input.allowSelfApproval === true,
    additionalData: input.additionalData ?? {},
    createdAt: now,
    updatedAt: now,
  };
  // old values that do not match the patch (one entry per operation) are not kept: the view then has no `before`
  if (oldValuesFit(input.jsonPatch, input.oldValues)) record.oldValues = input.oldValues;
  if (input.approveCallback) record.approveCallback = input.approveCallback;
  if (input.rejectCallback) record.rejectCallback = input.rejectCallback;
  if (auto) {
    record.approvedAt = now;
    record.approvedBy = { ...AUTO_APPROVER };
  }
  return record;
}

/** A blob that a planned record keeps out of line (its patch, or its old values). */
export interface PlannedBlob {
  name: string;
  json: string;
  what: 'patch' | 'old values';
}

/** What createApproval stores (and prepareApproval announces): the record, its full patch and old values, and its blobs. */
export interface PlannedApproval {
  record: ApprovalRecord;
  /** the full patch (also when the record keeps it in a blob) */
  patch: Operation[];
  /** the old values the record keeps (when they fit the patch), also when they go to a blob */
  oldValues: OldValue[] | undefined;
  blobs: PlannedBlob[];
}

/**
 * The record an event's approval is stored as, the full patch and old values
 * (for the answer's view), and the blobs holding what does not fit inline
 * (10 KB, spec 8). A calling class may register callbacks only on itself
 * (`caller`: its class id; absent for other identities): 403 8005 otherwise.
 */
export function planApproval(
  id: string,
  input: CreateApprovalInput,
  caller: string | undefined,
  now: string,
): PlannedApproval {
  if (caller) {
    for (const cb of [input.approveCallback, input.rejectCallback]) {
      if (cb && cb.classId !== caller) {
        throw approvalError(
          'APPROVAL_CALLBACK_CLASS_MISMATCH',
          `Class ${caller} may only register callbacks on itself, not on ${cb.classId}`,
          {
            callerClassId: caller,
            callbackClassId: cb.classId,
          },
        );
      }
    }
  }
  const { createdAt: _at, ...fields } = input;
  const record = newApprovalRecord(id, fields, approvalClassId(fields, caller), now);
  if (input.companyId !== undefined) record.companyId = input.companyId;
  const patch = record.jsonPatch;
  const oldValues = record.oldValues;
  const blobs: PlannedBlob[] = [];
  if (isLargePatch(patch)) {
    const name = largeApprovalFileName(record.entityId, record.id);
    blobs.push({ name, json: JSON.stringify(patch), what: 'patch' });
    record.isLargeApproval = true;
    record.largePatchFile = name;
    record.jsonPatch = [];
  }
  if (oldValues && !oldValuesInline(patch, oldValues)) {
    // the record keeps at most 10 KB inline: old values that do not fit beside the patch get their own blob
    const name = largeOldValuesFileName(record.entityId, record.id);
    blobs.push({ name, json: JSON.stringify(oldValues), what: 'old values' });
    record.oldValuesFile = name;
    delete record.oldValues;
  }
  return { record, patch, oldValues, blobs };
}

/** A role as the role check knows it now (the deployed snapshot; ctx.roles()). */
export interface ActiveRole {
  id: string;
  name: string;
  status?: string;
}

/** The names and ids of the roles that are active now (what approver names are matched against). */
export function activeRoleKeys(roles: readonly ActiveRole[]): string[] {
  return [...new Set(roles.filter((r) => r.status !== 'inactive').flatMap((r) => [r.name, r.id]))];
}

/**
 * Eligible reviewers (spec 3.2): developers and the system actor (developer
 * bypass), or program management users holding an **active** role, as the
 * deployed roles say now (`activeRoles`, not the token's role claims), whose
 * name (or id) the record names as approver.
 */
export function canReview(reviewer: Actor, approvers: readonly string[], activeRoles: readonly ActiveRole[]): boolean {
  if (isPrivilegedActor(reviewer)) return true;
  if (reviewer.type !== 'program_management_user') return false;
  const held = new Set(activeRoleKeys(activeRoles));
  return approvers.some((r) => held.has(r));
}

/** Is the reviewer the maker of the change (same id and actor type as the record's actor)? */
export function isMaker(reviewer: Actor, record: Pick<ApprovalRecord, 'actor'>): boolean {
  return reviewer.id === record.actor.id && reviewer.type === record.actor.type;
}

/**
 * Why a review is refused, or null: the reviewer must be eligible
 * (canReview), and the maker of a change cannot approve it unless its rule
 * allowed self-approval. The maker may still reject (withdraw) it when
 * eligible.
 */
export function reviewRefusal(
  record: Pick<ApprovalRecord, 'actor' | 'approvers' | 'allowSelfApproval'>,
  action: ApprovalAction,
  reviewer: Actor,
  activeRoles: readonly ActiveRole[],
): 'APPROVER_NOT_ELIGIBLE' | 'SELF_APPROVAL_NOT_ALLOWED' | null {
  if (!canReview(reviewer, record.approvers, activeRoles)) return 'APPROVER_NOT_ELIGIBLE';
  if (action === 'approve' && isMaker(reviewer, record) && record.allowSelfApproval !== true)
    return 'SELF_APPROVAL_NOT_ALLOWED';
  return null;
}

/** The reviewer as recorded: the actor, with the names of its active roles instead of the token's claims. */
export function reviewerWithRoles(actor: Actor, activeRoles: readonly ActiveRole[]): Actor {
  if (actor.type !== 'program_management_user' && actor.type !== 'developer') return actor;
  return { ...actor, roles: [...new Set(activeRoles.filter((r) => r.status !== 'inactive').map((r) => r.name))] };
}

export function reviewerOf(actor: Actor): ApprovedBy {
  return {
    id: actor.id,
    type: actor.type,
    ...(actor.name ? { name: actor.name } : {}),
    ...(actor.roles ? { roles: [...actor.roles] } : {}),
  };
}

/**
 * The record after a review, and the callback to run (approve: approveCallback;
 * reject: rejectCallback when defined). approvedAt/approvedBy record the
 * reviewer for both outcomes (the spec has no separate rejection fields).
 */
export function reviewOutcome(
  record: ApprovalRecord,
  action: ApprovalAction,
  reviewer: Actor,
  now: string,
  note?: string,
): { record: ApprovalRecord; callback?: ApprovalCallback } {
  const next: ApprovalRecord = {
    ...record,
    approvalStatus: action === 'approve' ? 'approved' : 'rejected',
    approvedAt: now,
    approvedBy: reviewerOf(reviewer),
    updatedAt: now,
  };
  if (note !== undefined) next.reviewNote = note;
  const callback = action === 'approve' ? record.approveCallback : record.rejectCallback;
  return { record: next, callback };
}

export function callbackBody(
  record: ApprovalRecord,
  action: ApprovalAction,
  fullPatch: Operation[],
): ApprovalCallbackBody {
  return {
    approvalId: record.id,
    action,
    event: record.event,
    entityId: record.entityId,
    jsonPatch: fullPatch,
    additionalData: record.additionalData,
    reviewedBy: record.approvedBy ?? { ...AUTO_APPROVER },
  };
}

// ---------------------------------------------------------------- listing

export interface ListQuery {
  approvalStatus?: 'pending' | 'approved' | 'rejected';
  classId?: string;
  event?: string | number;
  entityId?: string;
  actionable: boolean;
  page: number;
  limit: number;
}

export const DEFAULT_PAGE_SIZE = 10;

/** listApprovals's query from its input, which its schema has checked: not actionable, page 1 and 10 a page unless given. */
export function listQuery(input: ListApprovalsInput): ListQuery {
  const { actionable = false, page = 1, limit = DEFAULT_PAGE_SIZE, ...filters } = input;
  return { ...filters, actionable, page, limit };
}

/**
 * MongoDB filter for the `approvals` collection. `actionable` keeps the records
 * the viewer may approve now: pending; (unless the viewer is privileged)
 * naming as approver a role the viewer holds active now (`activeRoles`, by
 * name or id); and not made by the viewer, unless the record allows
 * self-approval.
 */
/**
 * listApprovals, newest first: by status, class or entity, and the actionable listing (pending records
 * naming one of the viewer's roles), each read off an index in that order
 */
export const LIST_APPROVALS: ListingSpec = {
  name: 'listApprovals',
  sort: { createdAt: -1, _id: -1 },
  filterSets: [[], ['approvalStatus'], ['classId'], ['entityId'], ['approvalStatus', 'approvers']],
};

export function buildListFilter(
  q: ListQuery,
  viewer: Actor,
  activeRoles: readonly ActiveRole[] = [],
): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  if (q.approvalStatus) and.push({ approvalStatus: q.approvalStatus });
  if (q.classId) and.push({ classId: q.classId });
  if (q.entityId) and.push({ entityId: q.entityId });
  if (q.event !== undefined) {
    const alternatives: (string | number)[] = [q.event];
    if (typeof q.event === 'string' && /^-?\d+(\.\d+)?$/.test(q.event)) alternatives.push(Number(q.event));
    if (typeof q.event === 'number') alternatives.push(String(q.event));
    and.push({ event: { $in: alternatives } });
  }
  if (q.actionable) {
    and.push({ approvalStatus: 'pending' });
    if (!isPrivilegedActor(viewer))
      and.push({ approvers: { $in: viewer.type === 'program_management_user' ? activeRoleKeys(activeRoles) : [] } });
    and.push({
      $or: [{ 'actor.id': { $ne: viewer.id } }, { 'actor.type': { $ne: viewer.type } }, { allowSelfApproval: true }],
    });
  }
  if (and.length === 0) return {};
  return and.length === 1 ? and[0] : { $and: and };
}

/** The streamed document of a record (the listing's row; old values inline only when they are in the record). */
export function approvalDocument(record: ApprovalRecord): Record<string, unknown> {
  const { largePatchFile: _file, oldValuesFile: _old, ...doc } = record;
  return doc;
}

/**
 * A record as callers see it: every field but storage details (blob names,
 * raw old values), with the full patch and, when the old values are known,
 * `changes` ([{op, path, before?, after?}], see changes.ts) next to it.
 */
export function approvalView(
  record: ApprovalRecord | Record<string, unknown>,
  fullPatch: Operation[],
  oldValues: unknown,
): Record<string, unknown> {
  const { largePatchFile: _file, oldValuesFile: _old, oldValues: _values, ...rest } = record as ApprovalRecord;
  const out: Record<string, unknown> = { ...rest, jsonPatch: fullPatch };
  if (oldValuesFit(fullPatch, oldValues)) out.changes = changeView(fullPatch, oldValues);
  return out;
}

/** A listing row: the view when the row holds its patch and old values inline, else the record without `changes` (getApproval has it). */
export function listingRow(doc: Record<string, unknown>): Record<string, unknown> {
  const patch = (doc.isLargeApproval ? [] : doc.jsonPatch) as Operation[];
  return approvalView(doc, Array.isArray(patch) ? patch : [], doc.isLargeApproval ? undefined : doc.oldValues);
}
