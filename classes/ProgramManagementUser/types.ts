/**
 * Program management (back-office) users (spec 2.7, 3.3): the record, the
 * state of one user's instance, and the bodies of the class's methods.
 */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';

export const USER_TYPES = ['internal', 'company'] as const;
/** `internal`: the programme's own staff; `company`: limited to the company `companyId` */
export type UserType = (typeof USER_TYPES)[number];

export const USER_STATUSES = ['pending', 'active', 'inactive'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export const LOGIN_METHODS = ['sso', 'email_password'] as const;
export type LoginMethod = (typeof LOGIN_METHODS)[number];

/** Workflow events (spec 6 names none for this class: the PartnerUser names are reused, see README). */
export const USER_EVENTS = { create: 'user_create', update: 'user_update', status: 'user_status_update' } as const;
export type UserEvent = (typeof USER_EVENTS)[keyof typeof USER_EVENTS];

/** A back-office user as it is answered, streamed, patched by the workflow and audit-logged: no secret in it. */
export interface ProgramManagementUserRecord {
  id: string;
  /** lower-cased; unique among users that are not `inactive` (the `email` lookup key) */
  email: string;
  name: string;
  type: UserType;
  /** the company a `company` user is limited to; null for `internal` users */
  companyId: string | null;
  loginMethod: LoginMethod;
  /** role names (or ids) of RoleManager */
  roles: string[];
  /** a developer bypasses approvals (docs/workflow-defaults.md); only a developer makes one */
  developer: boolean;
  status: UserStatus;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
  /** when the invitation was last sent (null: not yet, the creation waits for its approval) */
  invitedAt: string | null;
  /** when the user accepted the invitation (email_password) or first signed in by SSO */
  acceptedAt: string | null;
  lastLoginAt: string | null;
  /**
   * When the user was erased (DataSubject's approved erasure: its personal
   * values are ERASED, it is `inactive` and takes no change any more); absent
   * for every user not erased.
   */
  erasedAt?: string;
  /** the DataSubject request that erased it */
  erasureId?: string;
}

/** What the user's sessions depend on, never answered nor logged. */
export interface Credentials {
  /** scrypt hash (classes/_platform/passwords.ts); null until the invitation is accepted */
  passwordHash: string | null;
  passwordChangedAt: string | null;
}

/** The approval a user waits for. */
export interface PendingApproval {
  id: string;
  event: UserEvent;
  requestedStatus: UserStatus;
}

/** The last approval callback settled (a redelivery of it changes nothing). */
export interface LastReview {
  approvalId: string;
  event: string;
  action: 'approve' | 'reject';
  outcome: 'applied' | 'rejected' | 'conflict';
  reason?: string;
  by: string | null;
  at: string;
}

/** ctx.state.private of one user's instance (instance id = user id). */
export interface UserState {
  user: ProgramManagementUserRecord;
  credentials: Credentials;
  pendingApproval: PendingApproval | null;
  lastSettledApprovalId: string | null;
  lastReview: LastReview | null;
  /** tokens issued before this instant are refused (resolveIdentity's validAfter): a password change or reset ends sessions */
  sessionsValidAfter: string | null;
}

export type ProgramManagementUserClassState = StateOf<UserState>;

/** What the identity source answers the authorizer (runtime `identitySource`). */
export interface ResolvedIdentity {
  active: boolean;
  roles: string[];
  tenant?: string;
  developer?: boolean;
  validAfter?: string;
}
