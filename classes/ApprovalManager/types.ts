/** Approval records (spec 2.8): the shapes are the platform's (classes/_platform/approvals.ts), shared with entity classes. */
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
