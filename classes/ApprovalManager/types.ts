/** Approval records (spec 2.8): the shapes are the platform's (classes/_platform/approvals.ts), shared with entity classes. */
import type { StateOf } from '../../runtime';
import type { ApprovalAction, ApprovalRecord } from '../_platform/approvals';

export type {
  ApprovalAction,
  ApprovalCallback,
  ApprovalCallbackBody,
  ApprovalRecord,
  ApprovalStatus,
  ApprovalType,
  ApprovedBy,
  CreateApprovalInput,
} from '../_platform/approvals';
export type { ApprovalChange, OldValue } from './changes';

/** One instance per record: `public.approval` holds it (written by createApproval); nothing is private. */
export type ApprovalManagerState = StateOf<Record<string, never>, { approval: ApprovalRecord }>;

/** moveApprovalCompany (schemas/ApprovalManager/moveApprovalCompany.json) */
export type MoveApprovalCompanyBody = { companyId: string };

/** reviewApproval (schemas/ApprovalManager/reviewApproval.json) */
export type ReviewBody = { action: ApprovalAction; note?: string };

/** listApprovals's POST body (schemas/ApprovalManager/listApprovals.json); a GET passes the same names as strings */
export type ListApprovalsBody = {
  approvalStatus?: 'pending' | 'approved' | 'rejected';
  classId?: string;
  event?: string | number;
  entityId?: string;
  actionable?: boolean;
  page?: number;
  limit?: number;
};

/** getApproval takes no input (the record is the instance) */
export type NoBody = Record<string, never>;
