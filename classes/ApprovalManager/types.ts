/** Approval records (spec 2.8): the shapes are the platform's (classes/_platform/approvals.ts), shared with entity classes. */
import type { StateOf } from '../../runtime';
import type { ApprovalRecord } from '../_platform/approvals';

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
