/** Tier records (spec 2.3). */
import type { StateOf } from '../../runtime';

export const TIER_STATUSES = ['pending', 'active', 'inactive', 'expired'] as const;
export type TierStatus = (typeof TIER_STATUSES)[number];

/** What updateStatus may set (spec 2.3 UpdatableTierStatus). */
export const UPDATABLE_TIER_STATUSES = ['active', 'inactive', 'pending'] as const;
export type UpdatableTierStatus = (typeof UPDATABLE_TIER_STATUSES)[number];

import type { TierGroup } from '../_platform/vocabulary';

export { TIER_GROUPS, type TierGroup } from '../_platform/vocabulary';

export {
  ELIGIBILITY_OPERATORS,
  TIER_PAYMENT_TYPES,
  type ConditionScalar,
  type ConditionValue,
  type EligibilityOperator,
  type EligibilityRule,
  type EligibilityRuleCondition,
  type EligibilityRuleStatus,
  type TierPaymentType,
} from '../_platform/eligibility';
import type { EligibilityRule } from '../_platform/eligibility';

/** createdBy (spec "StateManagerActor"): the spec actor behind the creating identity. */
export interface TierActor {
  id: string;
  type: string;
  name?: string;
}

export interface Tier {
  id: string;
  name: string;
  description?: string;
  tierType: { id: string; group: TierGroup };
  fee: number;
  /** ISO 8601 instants (UTC, `toISOString()` form) */
  startDate: string;
  endDate: string;
  status: TierStatus;
  eligibilityRules: EligibilityRule[];
  createdBy: TierActor;
  createdAt: string;
  updatedAt: string;
}

export const TIER_EVENTS = [
  'tier_create',
  'tier_update',
  'tier_status_update',
  'eligibility_rule_add',
  'eligibility_rule_update',
  'eligibility_rule_deactivate',
] as const;
export type TierEvent = (typeof TIER_EVENTS)[number];

/** The approval a tier waits for; every change is refused meanwhile. */
export interface PendingApproval {
  id: string;
  event: TierEvent;
  /** the status the tier gets once approved (counts for the overlap rule meanwhile) */
  requestedStatus: TierStatus;
}

/** Private state of a Tier instance (spec 2.3: "private state holds `tier`"). */
/** The Tier class's state (`@ActorClass<TierClassState>`): private holds TierState. */
export type TierClassState = StateOf<TierState>;

/** a membership's place under an eligibility rule with a quota (quota.ts) */
export interface QuotaPlace {
  ruleId: string;
  membershipId: string;
  memberId: string;
  at: string;
}

export interface TierState {
  tier: Tier;
  pendingApproval: PendingApproval | null;
  lastReview?: {
    approvalId: string;
    event: string;
    action: string;
    outcome: 'applied' | 'rejected' | 'ignored_expired';
    by?: string;
    at: string;
  };
  /** when the earliest outstanding `expire` task runs (null: none outstanding) */
  expiryCheckAt: string | null;
  /** set by streamTier (a changed state is what makes the runtime project it again) */
  streamedAt?: string;
  /** the dates a pending change asks for, when they differ from the tier's: held for the overlap rule until it is reviewed */
  requestedRange?: { startDate: string; endDate: string } | null;
  /** the sequence number of the last entry this tier published on its type's TierSchedule (schedule.ts); absent: never published */
  scheduleSeq?: number;
  /** the memberships holding a place under a rule with a quota (quota.ts); absent: none */
  quotaPlaces?: QuotaPlace[];
}
