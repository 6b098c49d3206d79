/** Tier error codes (spec 7.1: 7000-7099). Each name has one code and one HTTP status. */
import { errorFactory } from '../../runtime';

export const TierErrors = {
  /** startDate is not before endDate (or a date is not a valid ISO 8601 instant) */
  TIER_INVALID_DATE_RANGE: { code: 7000, status: 400 },
  /** tierType.id names no tier type in the Setting class */
  TIER_TYPE_NOT_FOUND: { code: 7001, status: 400 },
  /** the tier type exists but is not active */
  TIER_TYPE_INACTIVE: { code: 7002, status: 400 },
  /** another live tier of the same tier type covers part of the date range (README "Overlap rule") */
  TIER_OVERLAP: { code: 7003, status: 409 },
  /** createTier: sourceTierId names no tier */
  TIER_SOURCE_NOT_FOUND: { code: 7004, status: 404 },
  /** a change was requested while an approval of this tier is pending */
  TIER_APPROVAL_PENDING: { code: 7005, status: 409 },
  /** updateStatus to a status users may not set (`expired` is set by the expiry task only) */
  TIER_STATUS_NOT_SETTABLE: { code: 7006, status: 400 },
  /** updateStatus to the status the tier already has */
  TIER_STATUS_UNCHANGED: { code: 7007, status: 409 },
  /** a change of an expired tier (expired is final) */
  TIER_EXPIRED: { code: 7008, status: 409 },
  /** ruleId names no eligibility rule of this tier */
  TIER_RULE_NOT_FOUND: { code: 7009, status: 404 },
  /** update or deactivation of an eligibility rule that is already inactive */
  TIER_RULE_INACTIVE: { code: 7010, status: 409 },
  /** an eligibility condition uses an unknown key, an operator the key does not allow, or a value of the wrong type */
  TIER_INVALID_CONDITION: { code: 7011, status: 400 },
  /** an eligibility rule names a payment period that is not configured in the Setting class */
  TIER_INVALID_PAYMENT_PERIOD: { code: 7012, status: 400 },
  /** listTiers: bad filter or page values */
  TIER_INVALID_QUERY: { code: 7013, status: 400 },
  /** approve: the callback is for an approval this tier does not wait for */
  TIER_APPROVAL_MISMATCH: { code: 7014, status: 409 },
  /** approve: the approved patch no longer applies to the tier */
  TIER_APPROVAL_CONFLICT: { code: 7015, status: 409 },
  /** the Setting class could not be asked (tier types, payment periods) */
  TIER_SETTINGS_UNAVAILABLE: { code: 7016, status: 502 },
  /** updateTier / updateEligibilityRule that changes nothing */
  TIER_NO_CHANGES: { code: 7017, status: 400 },
  /** claimQuotaPlace: every place under the rule's quota is taken */
  TIER_QUOTA_FULL: { code: 7018, status: 409 },
} as const;

export type TierErrorName = keyof typeof TierErrors;

export const tierError = errorFactory('Tier', TierErrors);
