/**
 * Enumerations several classes speak the same way, kept once so that they
 * cannot drift apart: the comparison operators of workflow rules (spec 3.4),
 * which tier eligibility rules use too, and the tier groups that Tier, Setting
 * (the tier configuration) and Member (its memberships) all name.
 */

export const OPERATORS = [
  'equal',
  'not_equal',
  'in',
  'not_in',
  'less_than',
  'greater_than',
  'less_than_equal',
  'greater_than_equal',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const TIER_GROUPS = ['base', 'upgrade', 'add_on'] as const;
export type TierGroup = (typeof TIER_GROUPS)[number];
