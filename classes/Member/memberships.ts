/**
 * Memberships (spec 4.5 addMembership, listMemberships), pure.
 *
 * addMembership: the tier must be `active`; the member must satisfy one of the
 * tier's active eligibility rules (classes/Tier/eligibility.ts) that accepts
 * the payment type; the membership gets its period and payment schedule.
 *
 * Choices (spec: "not shown"):
 *  - payment types: `cpg` (card, payment gateway) needs a rule accepting
 *    `credit_card`, `dds` (direct debit) one accepting `salary_deduction`.
 *  - `company_paid`: the company pays. Allowed for `base` tiers only, and for
 *    a dependant only while it is one of the primary member's free
 *    dependants (company `maxFreeDependants`, in the order they were added).
 *    Its payment schedule is empty.
 *  - period: from startDate (default now, or the tier's start when the tier
 *    has not started yet) to the tier's endDate, at most one year; a
 *    startDate before the tier starts or from its end on is refused (400
 *    5033); the rule's paymentPeriod sets the schedule: `monthly` (every month),
 *    `quarterly` (every 3 months), `semi_annual`/`half_yearly` (every 6),
 *    `annual`/`yearly` (once a year); any other period: one payment at the
 *    start. Each payment is the tier fee.
 *  - one active membership per tier (409 5016).
 */
import type { DeepReadonly } from '../../runtime';
import type { AddMembershipInput } from '../../schemas/Member/inputs';
import {
  eligibleRules,
  evaluateTierRules,
  type EligibilityInput,
  type EligibilityRule,
  type TierPaymentType,
} from '../_platform/eligibility';
import type { Actor } from '../_platform/actor';
import type { CompanyRecord, QuotaUseRecord, TierRecord } from './clients';
import { fieldError, type MemberErrorName } from './errors';
import type { Membership, MemberProfile, PaymentType, TierGroup } from './types';

export const PAYMENT_TYPES: readonly PaymentType[] = ['dds', 'cpg', 'company_paid'];

const TIER_PAYMENT_OF: Record<Exclude<PaymentType, 'company_paid'>, TierPaymentType> = {
  cpg: 'credit_card',
  dds: 'salary_deduction',
};

/** months between the payments of a payment period (the membership life cycle renews by one such period) */
export const PERIOD_MONTHS: Record<string, number> = {
  monthly: 1,
  month: 1,
  quarterly: 3,
  quarter: 3,
  semi_annual: 6,
  half_yearly: 6,
  annual: 12,
  annually: 12,
  yearly: 12,
  year: 12,
};

/** Why a membership is refused; `field` names the input field at fault. */
export type Refusal = {
  ok: false;
  error: MemberErrorName;
  message: string;
  field: string;
  details?: Record<string, unknown>;
};

/** The error of a refusal: its code, with `details.errors: [{field, reason}]`. */
export function refusalError(r: Refusal) {
  return fieldError(r.error, r.field, r.message, r.details);
}

/** `iso` plus `months` calendar months, the day clamped to the target month's last (Jan 31 + 1 month = Feb 28/29) */
export function addMonths(iso: string, months: number): string {
  const d = new Date(iso);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d.toISOString();
}

/** The payment due dates of a period (empty for company-paid). */
export function paymentSchedule(
  startDate: string,
  endDate: string,
  paymentPeriod: string,
  fee: number,
  paymentType: PaymentType,
): Membership['paymentSchedule'] {
  if (paymentType === 'company_paid') return [];
  // own keys only: a period named like an Object.prototype member ('constructor') is an unknown period
  const key = paymentPeriod.toLowerCase();
  const step = Object.hasOwn(PERIOD_MONTHS, key) ? PERIOD_MONTHS[key] : undefined;
  if (!step) return [{ dueDate: startDate, amount: fee }];
  const out: Membership['paymentSchedule'] = [];
  for (let i = 0, due = startDate; due < endDate && i < 120; i++, due = addMonths(startDate, step * i)) {
    out.push({ dueDate: due, amount: fee });
  }
  return out;
}

/**
 * The period of a membership of `tier`: from `requested` (default: now, or
 * the tier's start when it lies ahead) to the tier's end, at most one year.
 */
export function membershipPeriod(
  tier: Pick<TierRecord, 'id' | 'startDate' | 'endDate'>,
  requested: string | undefined,
  now: string,
  requestedEnd?: string,
): { ok: true; startDate: string; endDate: string } | Refusal {
  const iso = (v: string | undefined) => (v && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : undefined);
  const tierStart = iso(tier.startDate);
  const tierEnd = iso(tier.endDate);
  let startDate: string;
  if (requested) {
    const s = iso(requested);
    if (!s)
      return {
        ok: false,
        error: 'INVALID_MEMBERSHIP_PERIOD',
        field: 'startDate',
        message: `startDate '${requested}' is not a date-time`,
      };
    if (tierStart && s < tierStart) {
      return {
        ok: false,
        error: 'INVALID_MEMBERSHIP_PERIOD',
        field: 'startDate',
        message: `startDate is before tier '${tier.id}' starts (${tierStart})`,
      };
    }
    if (tierEnd && s >= tierEnd) {
      return {
        ok: false,
        error: 'INVALID_MEMBERSHIP_PERIOD',
        field: 'startDate',
        message: `startDate is not before tier '${tier.id}' ends (${tierEnd})`,
      };
    }
    startDate = s;
  } else {
    startDate = tierStart && tierStart > now ? tierStart : now;
  }
  const yearLater = addMonths(startDate, 12);
  const latest = tierEnd && tierEnd < yearLater ? tierEnd : yearLater;
  if (latest <= startDate)
    return {
      ok: false,
      error: 'TIER_NOT_ACTIVE',
      field: 'tierId',
      message: `Tier '${tier.id}' ends before the membership would start`,
    };
  if (requestedEnd === undefined) return { ok: true, startDate, endDate: latest };
  const e = iso(requestedEnd);
  if (!e)
    return {
      ok: false,
      error: 'INVALID_MEMBERSHIP_PERIOD',
      field: 'endDate',
      message: `endDate '${requestedEnd}' is not a date-time`,
    };
  if (e <= startDate)
    return {
      ok: false,
      error: 'INVALID_MEMBERSHIP_PERIOD',
      field: 'endDate',
      message: `endDate is not after the membership's start (${startDate})`,
    };
  if (e > latest)
    return {
      ok: false,
      error: 'INVALID_MEMBERSHIP_PERIOD',
      field: 'endDate',
      message: `endDate is after ${latest}, the latest end (the tier's end, or a year after the start)`,
    };
  return { ok: true, startDate, endDate: e };
}

export interface MembershipContext {
  profile: MemberProfile;
  company: CompanyRecord;
  tier: TierRecord | null;
  input: AddMembershipInput;
  /** for a dependant: is it one of the primary member's free dependants? */
  dependantIsFree: boolean;
  /** the quotas of the tier's rules and the places taken (getTier); absent: none counted */
  quota?: readonly QuotaUseRecord[];
  actor: Actor;
  now: string;
  id: string;
}

/** The new membership, or why it is refused. */
export function newMembership(c: MembershipContext): { ok: true; membership: Membership } | Refusal {
  const { tier, input, profile } = c;
  if (!tier)
    return { ok: false, error: 'TIER_NOT_FOUND', field: 'tierId', message: `Tier '${input.tierId}' does not exist` };
  if (tier.status !== 'active')
    return { ok: false, error: 'TIER_NOT_ACTIVE', field: 'tierId', message: `Tier '${tier.id}' is ${tier.status}` };
  if ((profile.memberships ?? []).some((m) => m.tierId === tier.id && m.status === 'active')) {
    return {
      ok: false,
      error: 'DUPLICATE_MEMBERSHIP',
      field: 'tierId',
      message: `The member already has an active membership of tier '${tier.id}'`,
    };
  }
  const eligibility: EligibilityInput = { member: { ...profile }, company: { ...c.company } };
  const satisfied = eligibleRules(eligibility, tier);
  if (!satisfied.length) {
    return {
      ok: false,
      error: 'NOT_ELIGIBLE_FOR_TIER',
      field: 'tierId',
      message: `The member satisfies no active eligibility rule of tier '${tier.id}'`,
      details: { rules: evaluateTierRules(eligibility, tier) },
    };
  }
  // a rule whose quota is used up admits nobody more
  const rules = satisfied.filter((r) => placeLeft(c.quota ?? [], r.id));
  if (!rules.length) {
    return {
      ok: false,
      error: 'QUOTA_FULL',
      field: 'tierId',
      message: `Every place under the eligibility rules of tier '${tier.id}' the member satisfies is taken`,
    };
  }
  const group: TierGroup = tier.tierType?.group ?? 'base';
  let rule: DeepReadonly<EligibilityRule> | undefined;
  if (input.paymentType === 'company_paid') {
    if (group !== 'base') {
      return {
        ok: false,
        error: 'PAYMENT_TYPE_NOT_ALLOWED',
        field: 'paymentType',
        message: `Company-paid memberships are for base tiers only; tier '${tier.id}' is ${group}`,
      };
    }
    if (profile.primaryMemberId && !c.dependantIsFree) {
      return {
        ok: false,
        error: 'PAYMENT_TYPE_NOT_ALLOWED',
        field: 'paymentType',
        message: "The company pays only for the company's free dependants; this dependant is not one of them",
      };
    }
    rule = rules[0];
  } else {
    const wanted = TIER_PAYMENT_OF[input.paymentType];
    rule = rules.find((r) => (r.paymentTypes ?? []).includes(wanted));
    if (!rule) {
      return {
        ok: false,
        error: 'PAYMENT_TYPE_NOT_ALLOWED',
        field: 'paymentType',
        message: `No eligibility rule of tier '${tier.id}' the member satisfies accepts payment type '${input.paymentType}' (${wanted})`,
      };
    }
  }
  const period = membershipPeriod(tier, input.startDate, c.now, input.endDate);
  if (!period.ok) return period;
  const { startDate, endDate } = period;
  const paymentPeriod = rule.paymentPeriod ?? 'once';
  return {
    ok: true,
    membership: {
      id: c.id,
      tierId: tier.id,
      tierGroup: group,
      status: 'active',
      paymentType: input.paymentType,
      eligibilityRuleId: rule.id,
      paymentPeriod,
      startDate,
      endDate,
      paymentSchedule: paymentSchedule(startDate, endDate, paymentPeriod, tier.fee ?? 0, input.paymentType),
      lastRenewal: null,
      createdBy: c.actor,
      createdAt: c.now,
      updatedAt: c.now,
    },
  };
}

/** is a place left under `ruleId`'s quota? (true for a rule without one) */
export function placeLeft(quota: readonly QuotaUseRecord[], ruleId: string): boolean {
  const q = quota.find((u) => u.ruleId === ruleId);
  return !q || q.taken < q.quota;
}

/** payment types a member chooses for itself (chooseTier): the company pays only when the back office says so */
export const SELF_PAYMENT_TYPES = ['cpg', 'dds'] as const satisfies readonly PaymentType[];
export type SelfPaymentType = (typeof SELF_PAYMENT_TYPES)[number];

/** One way a member may take a tier: what addMembership would make of it. */
export interface TierOption {
  paymentType: SelfPaymentType;
  eligibilityRuleId: string;
  paymentPeriod: string;
  startDate: string;
  endDate: string;
}

/**
 * The ways the member may take `tier` itself (listMyTierChoices, chooseTier):
 * each self-paid payment type for which newMembership would add the
 * membership, as it would add it (the rule it falls under, its period). Empty
 * when the tier is closed, already held, or no active rule the member
 * satisfies accepts a payment type of its own. One rule, newMembership's, so
 * a choice listed is a choice admitted.
 */
export function tierOptions(c: Omit<MembershipContext, 'input' | 'id'>): TierOption[] {
  if (!c.tier) return [];
  const out: TierOption[] = [];
  for (const paymentType of SELF_PAYMENT_TYPES) {
    const r = newMembership({ ...c, input: { tierId: c.tier.id, paymentType }, id: 'choice' });
    if (r.ok) {
      const m = r.membership;
      out.push({
        paymentType,
        eligibilityRuleId: m.eligibilityRuleId ?? '',
        paymentPeriod: m.paymentPeriod,
        startDate: m.startDate,
        endDate: m.endDate,
      });
    }
  }
  return out;
}

export interface MembershipFilter {
  tierId?: string;
  tierGroup?: string;
  status?: string;
}

export function filterMemberships(list: DeepReadonly<Membership[]>, f: MembershipFilter): DeepReadonly<Membership>[] {
  return list
    .filter((m) => (f.tierId ? m.tierId === f.tierId : true))
    .filter((m) => (f.tierGroup ? m.tierGroup === f.tierGroup : true))
    .filter((m) => (f.status ? m.status === f.status : true))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}
