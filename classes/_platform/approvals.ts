/**
 * Approval records (spec 2.8) as entity classes see them: the record runWorkflow
 * answers, the callback body an approve/reject method receives, and the input
 * of createApproval. ApprovalManager stores these shapes; they live here so that
 * the platform's workflow step and every entity class share them without
 * importing a specific class.
 */
import type { Operation } from 'rfc6902';
import type { Actor } from './actor';
import type { OldValue } from './old-values';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected';
export type ApprovalType = 'auto' | 'manual';
export type ApprovalAction = 'approve' | 'reject';

/** Where the approval's outcome is delivered: a method of the originating class, run as QUEUED_WRITE. */
export interface ApprovalCallback {
  event: string | number;
  classId: string;
  instanceId: string;
  methodName: string;
}

/** Who approved; `{id: 'auto_approve', type: 'system'}` for automatic approvals. */
export interface ApprovedBy {
  id: string;
  type: string;
  name?: string;
  roles?: string[];
}

export interface ApprovalRecord {
  id: string;
  event: string | number;
  /** the class whose entity changes (the callbacks' class, else the calling class) */
  classId: string;
  /** actor instance of the entity (e.g. `default` for singletons) */
  instanceId: string;
  entityId: string;
  approvalStatus: ApprovalStatus;
  entityOldStatus: string | null;
  entityNewStatus: string | null;
  approvalType: ApprovalType;
  /** the change; `[]` inline when isLargeApproval (the full list is in the blob) */
  jsonPatch: Operation[];
  isLargeApproval: boolean;
  /** blob holding the patch of a large approval: LARGE_APPROVAL_{entityId}_{approvalId}.json */
  largePatchFile?: string;
  /**
   * Per patch operation, what its path held before (see changes.ts); the
   * source of the `changes` view. Inline only while patch and old values
   * together fit in 10 KB, else in the blob `oldValuesFile` (absent: unknown).
   */
  oldValues?: OldValue[];
  /** blob holding the old values when they are not inline: LARGE_APPROVAL_{entityId}_{approvalId}_OLD_VALUES.json */
  oldValuesFile?: string;
  /** the maker of the change (actor) may approve it itself (from the workflow rule; default false) */
  allowSelfApproval?: boolean;
  actor: Actor;
  approvers: string[];
  approveCallback?: ApprovalCallback;
  rejectCallback?: ApprovalCallback;
  approvedAt?: string;
  approvedBy?: ApprovedBy;
  reviewNote?: string;
  /** job of the callback queued by reviewApproval */
  callbackJobId?: string;
  /** the company of the entity changed (company scope: that company's users see and review the record) */
  companyId?: string;
  additionalData: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** Body of createApproval (called by entity classes through runWorkflow). */
export interface CreateApprovalInput {
  event: string | number;
  instanceId: string;
  entityId: string;
  entityOldStatus?: string | null;
  entityNewStatus?: string | null;
  jsonPatch: Operation[];
  actor: Actor;
  approvers: string[];
  /** the matched rule's allowSelfApproval (default false) */
  allowSelfApproval?: boolean;
  /** per patch operation, what its path held before (runWorkflow computes them from the old entity) */
  oldValues?: OldValue[];
  approveCallback?: ApprovalCallback;
  rejectCallback?: ApprovalCallback;
  additionalData?: Record<string, unknown>;
  /** the company of the entity changed (runWorkflow: recordCompany) */
  companyId?: string;
  /** the record's creation time as prepareApproval planned it (so the stored record is the one announced) */
  createdAt?: string;
}

/** What an approve/reject callback method receives. */
export interface ApprovalCallbackBody {
  approvalId: string;
  action: ApprovalAction;
  event: string | number;
  entityId: string;
  /** the full patch, also for large approvals */
  jsonPatch: Operation[];
  additionalData: Record<string, unknown>;
  reviewedBy: ApprovedBy;
}
