/** Member records (spec 2.1, 2.9; GUIDE 6: the field "the service" is `familyMembers`). */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';
import type { EntityDocument } from '../_platform/entity-documents';
import type { TierGroup } from '../_platform/vocabulary';

export const MEMBER_STATUSES = [
  'pending_invite',
  'pending_invitation_acceptance',
  'pending_approval',
  'pending_id_photo',
  'pending_tier',
  'active',
  'inactive',
  'suspended',
  'rejected',
] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** The four statuses only the system sets (spec 3.1). */
export const SYSTEM_ONLY_STATUSES: readonly MemberStatus[] = [
  'pending_invite',
  'pending_invitation_acceptance',
  'pending_id_photo',
  'pending_tier',
];

export type LoginMethod = 'sso' | 'email_password';
export type PaymentType = 'dds' | 'cpg' | 'company_paid';
/** tier groups on memberships: the Tier class's own */
export { TIER_GROUPS, type TierGroup } from '../_platform/vocabulary';
/** membership statuses (spec 2.1 "Membership filter statuses") */
export const MEMBERSHIP_STATUSES = ['active', 'expired', 'inactive', 'suspended'] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];
export { DOCUMENT_STATUSES } from '../_platform/entity-documents';

export type Address = {
  country: string;
  address: string;
};

/** A membership of a tier (fields beyond id: the service's choice, spec 2.1 "not shown"). */
export interface Membership {
  id: string;
  tierId: string;
  tierGroup: TierGroup;
  status: MembershipStatus;
  paymentType: PaymentType;
  /** the eligibility rule that admitted the member */
  eligibilityRuleId: string | null;
  paymentPeriod: string;
  startDate: string;
  endDate: string;
  /** due dates of the payments of the period (empty for company-paid) */
  paymentSchedule: { dueDate: string; amount: number }[];
  lastRenewal: string | null;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
  /** every move of its status, oldest first (README "Membership life cycle"); absent on memberships that never moved */
  transitions?: MembershipTransition[];
}

/** One move of a membership's status: renewed, expired, suspended, reinstated. */
export interface MembershipTransition {
  at: string;
  from: MembershipStatus;
  to: MembershipStatus;
  event: 'renewed' | 'expired' | 'suspended' | 'reinstated';
  /** who asked for it (the expiry task's moves: the system) */
  actor: Actor;
  /** a renewal's: the member, the back office, or the company's automatic renewal */
  by?: 'member' | 'back_office' | 'automatic';
  /** suspension and reinstatement: the back office's reason */
  reason?: string;
  /** the approval a suspension or reinstatement went through */
  approvalId?: string;
  /** the end the move concerns (a renewal's new end) */
  endDate?: string;
  /** a renewal's end before it */
  previousEndDate?: string;
}

/** A suspension or reinstatement of a membership waiting for its approval. */
export interface PendingMembershipChange {
  approvalId: string;
  move: 'suspend' | 'reinstate';
  reason: string;
  requestedBy: Actor;
  requestedAt: string;
}

/** What the membership tasks last did for a membership (the delayed expiry and reminder, effectively once). */
export interface MembershipTaskRecord {
  /** the end the last expiry task was scheduled for, and what it found */
  expiryCheck?: { endDate: string; outcome: string; at: string };
  /** the end whose reminder was sent */
  remindedFor?: string;
}

/**
 * A family member (dependant) as listed on the primary member: a reference to
 * the dependant's own Member instance with the fields listings need.
 */
export interface FamilyMember {
  /** the dependant's own member id */
  id: string;
  relation: string | null;
  memberSubType: string | null;
  name: string;
  surname: string;
  status: MemberStatus;
  createdAt: string;
}

export interface MemberPermissions {
  sms: boolean;
  email: boolean;
}

/** The member entity (private state `profile`). */
export interface MemberProfile {
  id: string;
  status: MemberStatus;
  name: string;
  middleName: string | null;
  surname: string;
  /** current staff id (null for dependants) */
  staffId: string | null;
  email: string | null;
  phone: string | null;
  company: { id: string };
  grade: string | null;
  idPhoto: string | null;
  loginMethod: LoginMethod;
  address: Address | null;
  memberType: string | null;
  memberSubType: string | null;
  memberships: Membership[];
  primaryMemberId: string | null;
  relation: string | null;
  familyMembers: FamilyMember[];
  createdBy: Actor;
  note: string | null;
  permissions: MemberPermissions;
  /** staff ids this member had before a migration (spec 4.2) */
  previousStaffIds: string[];
  statusReason: string | null;
  /** HR record fields kept with the member (spec 4.2 "the service overwrites the member record") */
  gender?: string | null;
  maritalStatus?: string | null;
  coreGrade?: string | null;
  dependantsExists?: string | null;
  lastDayOfService?: string | null;
  isCabinCrew?: boolean | null;
  createdAt: string;
  updatedAt: string;
}

export type { DocumentStatus } from '../_platform/entity-documents';

/** Member document metadata (spec 2.1): the platform's entity document; content in FileManager `member_<memberId>`. */
export type MemberDocument = EntityDocument;

/** An ID photo waiting for approval (MEMBER_ID_PHOTO_UPLOAD). */
export interface PendingPhoto {
  approvalId: string;
  /** the new photo's stored file name */
  idPhoto: string;
  /** the photo in place when it was uploaded (kept until approval) */
  previousIdPhoto: string | null;
  /** status the member gets when the photo is approved (spec 3.1) */
  statusOnApproval: MemberStatus;
  /** id_card: the photo printed on the employee's ID card, submitted by registerFromHr (use-cases/id-card.ts) */
  source: 'hr' | 'program_management_user' | 'enduser' | 'id_card';
  uploadedBy: Actor;
  uploadedAt: string;
}

/** A member change waiting for approval (member_create, member_update, member_status_update). */
export interface PendingChange {
  approvalId: string;
  event: string;
  requestedAt: string;
  /** a membership the change adds (addMembership, chooseTier): it holds its quota place while the change waits */
  membershipId?: string;
}

/**
 * The private state of a Member instance. `profile` is there once the member
 * exists; a new instance (INIT, an upsert) starts without one, which the
 * creating handlers check (`ctx.version === 0 || !state.profile`).
 */
export interface MemberPrivateState {
  profile: MemberProfile;
  documents?: MemberDocument[];
  pendingPhoto?: PendingPhoto | null;
  pendingChange?: PendingChange | null;
  /** the photo replaced by the last approved upload */
  previousIdPhoto?: string | null;
  /** approvals already applied or superseded (idempotent callbacks) */
  lastApprovalId?: string | null;
  /** when the HR system took the member id (registerFromHr inline through markHrRegistrationFinished, or recordHrMemberId) */
  hrMemberIdRecordedAt?: string;
  /**
   * `hr_registration` when registerFromHr created the member (absent for any
   * other creation): with hrMemberIdRecordedAt, what lets a registration
   * stopped half-way be finished by running it again (registration-rules.ts)
   */
  creationSource?: 'hr_registration' | 'self_registration';
  /**
   * when registerFromHr's finishing step ended (its dependants linked, the
   * member id recorded or queued for HR), set by the effect
   * markHrRegistrationFinished in the same batch as the family links: a member
   * created by the HR registration without it is the one to resume
   */
  hrRegistrationFinishedAt?: string;
  /** the newest X-HR-Timestamp of an HR push applied to this member: an older record is not applied (hr-contract.ts) */
  hrRecordedAt?: string;
  /** an HR push that would deactivate the member, held by the quarantine (hr-quarantine.ts) until reviewed */
  heldHr?: HeldHrPush | null;
  /** set by streamMember (a changed state is what makes the runtime project it again) */
  streamedAt?: string;
  /**
   * The member's password, for email and password sign-in (README "Sign-in"):
   * absent until an invitation is accepted. Never answered, logged, audited or
   * projected to the document store.
   */
  credentials?: MemberCredentials | null;
  /** when the member last signed in (checkOtp, singleSignOn) */
  lastSignInAt?: string | null;
  /** by membership id: a suspension or reinstatement waiting for its approval (README "Membership life cycle") */
  membershipChanges?: Record<string, PendingMembershipChange>;
  /** the approvals of membership changes settled last (a redelivered callback changes nothing), newest last, at most 20 */
  settledMembershipApprovals?: string[];
  /** by membership id: what its delayed tasks last did */
  membershipTasks?: Record<string, MembershipTaskRecord>;
  /**
   * Set when the member was erased at its request (README "Erasure"): the
   * record is then a tombstone, read as it is and written by nobody but
   * DataSubject's erasure.
   */
  erasure?: MemberErasure;
}

/** What an erased member keeps of its erasure (private state `erasure`); nothing in it is a personal value. */
export interface MemberErasure {
  /** DataSubject's request that erased the member */
  erasureId: string;
  erasedAt: string;
  /** the lookup names of the suppression markers this member holds (erasure-rules.ts) */
  markers: string[];
}

/**
 * A deactivating HR push the quarantine holds: the body its apply step takes
 * (hrApplyEmployee's or hrApplyDependant's), kept whole so that a release
 * applies exactly what HR sent, through the same step.
 */
export interface HeldHrPush {
  kind: 'employee' | 'dependant';
  body: Record<string, unknown>;
  companyId: string;
  /** the approval that releases (approve) or discards (reject) it */
  approvalId: string;
  heldAt: string;
  /** how many pushes it has replaced while held (the newest record is the one held) */
  replaced: number;
}

/** A member's password, as stored (classes/_platform/passwords.ts). */
export interface MemberCredentials {
  /** `scrypt$N$r$p$salt$key` */
  passwordHash: string;
  /** when it was set: tokens issued before it are refused (the identity source's validAfter) */
  passwordChangedAt: string;
}

/** The Member class's state (`@ActorClass<MemberClassState>`): private holds MemberPrivateState. */
export type MemberClassState = StateOf<MemberPrivateState>;
