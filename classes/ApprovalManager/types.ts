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

/**
 * A record as ApprovalManager stores it: the platform's shape, and the mark a
 * data subject's erasure leaves on a record whose values it anonymised
 * (erasure-rules.ts): which erasure and when, so that a second erasure skips
 * it and a reader sees why its values read `[erased]`.
 */
export interface StoredApproval extends ApprovalRecord {
  erasedBy?: string;
  erasedAt?: string;
}

/** One instance per record: `public.approval` holds it (written by createApproval); nothing is private. */
export type ApprovalManagerState = StateOf<Record<string, never>, { approval: StoredApproval }>;
