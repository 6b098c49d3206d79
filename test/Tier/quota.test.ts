/** Eligibility rule quotas (classes/Tier/quota.ts): the places a tier counts, pure. */
import { claimPlace, quotaUse, releasePlace, type QuotaPlace } from '../../classes/Tier/quota';
import type { EligibilityRule } from '../../classes/Tier/types';

const rule = (id: string, quota?: number): EligibilityRule => ({
  id,
  name: id,
  paymentTypes: ['credit_card'],
  paymentPeriod: 'monthly',
  conditions: [],
  status: 'active',
  ...(quota === undefined ? {} : { quota }),
});
const RULES = [rule('r-two', 2), rule('r-open'), rule('r-none', 0)];
const AT = '2026-11-29T10:00:00.000Z';
const place = (ruleId: string, membershipId: string): QuotaPlace => ({
  ruleId,
  membershipId,
  memberId: `m-${membershipId}`,
  at: AT,
});

test('quotaUse counts the places under each rule that has a quota, and only those rules', () => {
  expect(quotaUse(RULES, [place('r-two', 'a'), place('r-open', 'x')])).toEqual([
    { ruleId: 'r-two', quota: 2, taken: 1 },
    { ruleId: 'r-none', quota: 0, taken: 0 },
  ]);
});

test('a claim takes a place while one is left, and is refused once the quota is used up', () => {
  const first = claimPlace(RULES, [], { ruleId: 'r-two', membershipId: 'a', memberId: 'm-a' }, AT);
  expect(first).toEqual({ ok: true, taken: true, remaining: 1, places: [place('r-two', 'a')] });
  const second = claimPlace(
    RULES,
    first.ok ? first.places : [],
    { ruleId: 'r-two', membershipId: 'b', memberId: 'm-b' },
    AT,
  );
  expect(second).toMatchObject({ ok: true, taken: true, remaining: 0 });
  const third = claimPlace(
    RULES,
    second.ok ? second.places : [],
    { ruleId: 'r-two', membershipId: 'c', memberId: 'm-c' },
    AT,
  );
  expect(third).toEqual({ ok: false, reason: 'full', quota: 2 });
  expect(claimPlace(RULES, [], { ruleId: 'r-none', membershipId: 'a', memberId: 'm-a' }, AT)).toEqual({
    ok: false,
    reason: 'full',
    quota: 0,
  });
});

test('a retried claim of a membership holding a place changes nothing, even when the quota is used up', () => {
  const full = [place('r-two', 'a'), place('r-two', 'b')];
  expect(claimPlace(RULES, full, { ruleId: 'r-two', membershipId: 'b', memberId: 'm-b' }, AT)).toEqual({
    ok: true,
    taken: false,
    remaining: 0,
    places: full,
  });
});

test('a rule without a quota takes no place; an unknown rule is refused', () => {
  expect(claimPlace(RULES, [], { ruleId: 'r-open', membershipId: 'a', memberId: 'm-a' }, AT)).toEqual({
    ok: true,
    taken: false,
    remaining: null,
    places: [],
  });
  expect(claimPlace(RULES, [], { ruleId: 'r-gone', membershipId: 'a', memberId: 'm-a' }, AT)).toEqual({
    ok: false,
    reason: 'rule_not_found',
  });
});

test('releasing gives back the place of that membership only', () => {
  expect(releasePlace([place('r-two', 'a'), place('r-two', 'b')], 'a')).toEqual([place('r-two', 'b')]);
  expect(releasePlace([place('r-two', 'a')], 'zz')).toEqual([place('r-two', 'a')]);
});
