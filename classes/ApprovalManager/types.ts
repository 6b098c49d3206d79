/** Approval records (spec 2.8). */
import type { Operation } from 'rfc6902';
import type { Actor } from '../_platform/actor';

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
  actor: Actor;
  approvers: string[];
  approveCallback?: ApprovalCallback;
  rejectCallback?: ApprovalCallback;
  approvedAt?: string;
  approvedBy?: ApprovedBy;
  reviewNote?: string;
  /** job of the callback queued by reviewApproval */
  callbackJobId?: string;
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
  approveCallback?: ApprovalCallback;
  rejectCallback?: ApprovalCallback;
  additionalData?: Record<string, unknown>;
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
