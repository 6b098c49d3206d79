/**
 * Eligibility rule quotas (spec 2.3 `EligibilityRule.quota`, what it counts
 * "not shown"): at most `quota` memberships are granted under the rule, for
 * as long as the tier lasts. Each granted membership holds a place on the
 * tier (its state, so the count is exact across processes: Tier's writes are
 * exclusive); a place whose membership was never committed (the member's
 * change failed after the place was taken) is given back by the tier's
 * confirmation task. Pure: the tier's use case (use-cases/quota.ts) applies it.
 */
import type { DeepReadonly } from '../../runtime';
import type { EligibilityRule, QuotaPlace } from './types';

export type { QuotaPlace };

/** a rule's quota as readers see it (getTier) */
export interface QuotaUse {
  ruleId: string;
  quota: number;
  taken: number;
}

/** the quotas of the tier's rules that have one, and the places taken under each */
export function quotaUse(rules: DeepReadonly<EligibilityRule[]>, places: DeepReadonly<QuotaPlace[]>): QuotaUse[] {
  return rules
    .filter((r) => typeof r.quota === 'number')
    .map((r) => ({ ruleId: r.id, quota: r.quota!, taken: places.filter((p) => p.ruleId === r.id).length }));
}

/** is a place left under `ruleId`? (true for a rule without a quota) */
export function placeLeft(use: readonly QuotaUse[], ruleId: string): boolean {
  const q = use.find((u) => u.ruleId === ruleId);
  return !q || q.taken < q.quota;
}

export type ClaimOutcome =
  | { ok: true; places: QuotaPlace[]; taken: boolean; remaining: number | null }
  | { ok: false; reason: 'rule_not_found' | 'full'; quota?: number };

/**
 * A place for `claim.membershipId` under its rule: the places with it added
 * (`taken` true), or unchanged when the membership holds one already (a
 * retried claim) or the rule has no quota; refused when the rule is unknown
 * or every place is taken.
 */
export function claimPlace(
  rules: DeepReadonly<EligibilityRule[]>,
  places: DeepReadonly<QuotaPlace[]>,
  claim: Omit<QuotaPlace, 'at'>,
  at: string,
): ClaimOutcome {
  const rule = rules.find((r) => r.id === claim.ruleId);
  if (!rule) return { ok: false, reason: 'rule_not_found' };
  const copy = places.map((p) => ({ ...p }));
  if (typeof rule.quota !== 'number') return { ok: true, places: copy, taken: false, remaining: null };
  const under = copy.filter((p) => p.ruleId === rule.id);
  if (under.some((p) => p.membershipId === claim.membershipId))
    return { ok: true, places: copy, taken: false, remaining: rule.quota - under.length };
  if (under.length >= rule.quota) return { ok: false, reason: 'full', quota: rule.quota };
  return { ok: true, places: [...copy, { ...claim, at }], taken: true, remaining: rule.quota - under.length - 1 };
}

/** the places without the one of `membershipId` */
export function releasePlace(places: DeepReadonly<QuotaPlace[]>, membershipId: string): QuotaPlace[] {
  return places.filter((p) => p.membershipId !== membershipId).map((p) => ({ ...p }));
}
