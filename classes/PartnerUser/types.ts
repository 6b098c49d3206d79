/**
 * Partner users (spec 2.6, 3.3): the record, the state of one user's
 * instance, and the bodies of the class's methods.
 */
import type { StateOf } from '../../runtime';

export const PARTNER_USER_ROLES = ['admin', 'manager', 'staff'] as const;
/** a partner user's role at one partner */
export type PartnerUserRole = (typeof PARTNER_USER_ROLES)[number];

export const PARTNER_USER_STATUSES = ['pending', 'active', 'inactive'] as const;
export type PartnerUserStatus = (typeof PARTNER_USER_STATUSES)[number];

/** Workflow events of spec 6. */
export const PARTNER_USER_EVENTS = {
  create: 'user_create',
  update: 'user_update',
  status: 'user_status_update',
} as const;
export type PartnerUserEvent = (typeof PARTNER_USER_EVENTS)[keyof typeof PARTNER_USER_EVENTS];

/** A partner the user belongs to, with its role there. */
export interface PartnerMembership {
  partnerId: string;
  role: PartnerUserRole;
}

/** A venue (a PartnerLocation of Partner) the user is assigned to. */
export interface VenueAssignment {
  partnerId: string;
  venueId: string;
}

/** A partner user as it is answered, streamed, patched by the workflow and audit-logged (spec 2.6). */
export interface PartnerUserRecord {
  id: string;
  fullName: string;
  /** lower-cased and trimmed; unique among partner users that are not `inactive` (the `email` lookup key) */
  email: string;
  /** one entry per partner */
  partners: PartnerMembership[];
  /** one entry per venue; each of a partner in `partners` */
  venues: VenueAssignment[];
  status: PartnerUserStatus;
  /** the reason given with the last status change (null: none given) */
  statusReason: string | null;
  /** the id of the actor that created the user (spec 2.6: string) */
  createdBy: string;
  /** the id of the actor that made the last change */
  updatedBy: string;
  /** epoch milliseconds (spec 2.6: number) */
  createdAt: number;
  updatedAt: number;
  /**
   * When the user was erased (DataSubject's approved erasure: its personal
   * values are ERASED, it is `inactive` and takes no change any more), epoch
   * milliseconds as the record's other times; absent for every user not erased.
   */
  erasedAt?: number;
  /** the DataSubject request that erased it */
  erasureId?: string;
}

/** The approval a user waits for. */
export interface PendingApproval {
  id: string;
  event: PartnerUserEvent;
  requestedStatus: PartnerUserStatus;
  /** the operation that asked for it (init, updateUser, updateStatus, addVenues, removeVenues) */
  operation: string;
}

/** The last approval callback settled (a redelivery of it changes nothing). */
export interface LastReview {
  approvalId: string;
  event: string;
  action: 'approve' | 'reject';
  outcome: 'applied' | 'rejected' | 'conflict';
  reason?: string;
  by: string | null;
  at: number;
}

/** ctx.state.private of one partner user's instance (instance id = user id). */
export interface PartnerUserState {
  user: PartnerUserRecord;
  pendingApproval: PendingApproval | null;
  lastSettledApprovalId: string | null;
  lastReview: LastReview | null;
}

export type PartnerUserClassState = StateOf<PartnerUserState>;
