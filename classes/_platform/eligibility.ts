/**
 * Eligibility rules of a tier (spec 2.3), pure: here because Tier writes and
 * checks them and Member evaluates them when it chooses a membership.
 *
 *   evaluateEligibility({ member, company }, rule)
 *     → { eligible: true } | { eligible: false, failed: [{ key, logicalOperator, expected, actual }], reason? }
 *   eligibleRules({ member, company }, tier) → the tier's active rules the member satisfies
 *
 * A rule is eligible when it is `active` and every condition holds (a rule
 * without conditions admits everyone). The condition keys a rule may use, their
 * value types and operators are CONDITION_DEFINITIONS (getEligibilityRuleDefinitions
 * returns them); rules are checked against them when they are written
 * (conditionProblems), so the evaluator only ever sees known keys.
 *
 * Operator semantics (strict, no type coercion: 5 ≠ "5", "AE" ≠ "ae"):
 *  - equal / not_equal: the member's value equals the rule's scalar value.
 *  - in / not_in: the member's value is one of the rule's list.
 *  - less_than, greater_than, less_than_equal, greater_than_equal: both numbers.
 *  - A missing value (absent, null) equals nothing and is in no list: equal,
 *    in and the comparisons fail; not_equal and not_in hold.
 */
import type { DeepReadonly } from '../../runtime';
import { OPERATORS } from './vocabulary';

// ---------------------------------------------------------------- the rules' shape (Tier stores them, Member evaluates them)

export const TIER_PAYMENT_TYPES = ['credit_card', 'salary_deduction'] as const;
export type TierPaymentType = (typeof TIER_PAYMENT_TYPES)[number];

/** EligibilityOperator values (the spec leaves them open; the workflow engine's operator set, spec 3.4). */
export const ELIGIBILITY_OPERATORS = OPERATORS;
export type EligibilityOperator = (typeof ELIGIBILITY_OPERATORS)[number];

export type ConditionScalar = string | number | boolean;
export type ConditionValue = ConditionScalar | ConditionScalar[];

export interface EligibilityRuleCondition {
  key: string;
  logicalOperator: EligibilityOperator;
  value: ConditionValue;
}

export type EligibilityRuleStatus = 'active' | 'inactive';

export interface EligibilityRule {
  id: string;
  name: string;
  paymentTypes: TierPaymentType[];
  paymentPeriod: string;
  quota?: number;
  conditions: EligibilityRuleCondition[];
  status: EligibilityRuleStatus;
}

// ---------------------------------------------------------------- evaluation

/** The member fields eligibility reads (a Member profile, spec 2.1, satisfies it). */
export interface EligibilityMember {
  memberType?: string | null;
  memberSubType?: string | null;
  grade?: string | null;
  staffId?: string | null;
  isCabinCrew?: boolean | null;
  address?: { country?: string | null; [field: string]: unknown } | null;
  relation?: string | null;
  primaryMemberId?: string | null;
  familyMembers?: unknown[] | null;
  [field: string]: unknown;
}

/** The company fields eligibility reads (a Company record, spec 2.2, satisfies it). */
export interface EligibilityCompany {
  id?: string | null;
  companyGroupId?: string | null;
  [field: string]: unknown;
}

export interface EligibilityInput {
  member: EligibilityMember;
  company: EligibilityCompany;
}

export interface FailedCondition {
  key: string;
  logicalOperator: EligibilityOperator;
  expected: ConditionScalar | readonly ConditionScalar[];
  /** the member's value; null when it has none */
  actual: unknown;
}

export type EligibilityResult =
  { eligible: true } | { eligible: false; failed: FailedCondition[]; reason?: 'rule_inactive' };

export type ConditionValueType = 'string' | 'number' | 'boolean';

export interface ConditionDefinition {
  key: string;
  label: string;
  description: string;
  valueType: ConditionValueType;
  operators: readonly EligibilityOperator[];
}

interface ResolvedDefinition extends ConditionDefinition {
  resolve: (input: EligibilityInput) => unknown;
}

const STRING_OPS = ['equal', 'not_equal', 'in', 'not_in'] as const;
const BOOLEAN_OPS = ['equal', 'not_equal'] as const;
/** a number compares with every operator */
const NUMBER_OPS = OPERATORS;
const COMPARISONS: ReadonlySet<EligibilityOperator> = new Set([
  'less_than',
  'greater_than',
  'less_than_equal',
  'greater_than_equal',
]);

const DEFINITIONS: ResolvedDefinition[] = [
  {
    key: 'member.memberType',
    label: 'Member type',
    description: 'the member type id (Setting member types)',
    valueType: 'string',
    operators: STRING_OPS,
    resolve: ({ member }) => member.memberType,
  },
  {
    key: 'member.memberSubType',
    label: 'Member sub type',
    description: 'the member sub type id (Setting member sub types)',
    valueType: 'string',
    operators: STRING_OPS,
    resolve: ({ member }) => member.memberSubType,
  },
  {
    key: 'member.grade',
    label: 'Grade',
    description: 'the employee grade as the HR system reports it',
    valueType: 'string',
    operators: STRING_OPS,
    resolve: ({ member }) => member.grade,
  },
  {
    key: 'member.staffId',
    label: 'Staff id',
    description: 'the staff identifier',
    valueType: 'string',
    operators: STRING_OPS,
    resolve: ({ member }) => member.staffId,
  },
  {
    key: 'member.isCabinCrew',
    label: 'Cabin crew',
    description: 'whether the employee is cabin crew (HR employee lookup)',
    valueType: 'boolean',
    operators: BOOLEAN_OPS,
    resolve: ({ member }) => member.isCabinCrew,
  },
  {
    key: 'member.address.country',
    label: 'Country',
    description: 'the country of the member address (country code)',
    valueType: 'string',
    operators: STRING_OPS,
    resolve: ({ member }) => member.address?.country,
  },
  {
    key: 'member.relation',
    label: 'Dependant relation',
    description:
      'the relation of a dependant to its primary member (spouse, child, sibling, in-law, parent); primary members have none',
    valueType: 'string',
    operators: STRING_OPS,
    resolve: ({ member }) => member.relation,
  },
  {
    key: 'member.isDependant',
    label: 'Is a dependant',
    description: 'true when the member is a dependant (has a primary member)',
    valueType: 'boolean',
    operators: BOOLEAN_OPS,
    resolve: ({ member }) => typeof member.primaryMemberId === 'string' && member.primaryMemberId.length > 0,
  },
  {
    key: 'member.dependantCount',
    label: 'Number of dependants',
    description: 'how many dependants (family members) the member has',
    valueType: 'number',
    operators: NUMBER_OPS,
    resolve: ({ member }) => (Array.isArray(member.familyMembers) ? member.familyMembers.length : 0),
  },
  {
    key: 'company.id',
    label: 'Company',
    description: 'the id of the member company',
    valueType: 'string',
    operators: STRING_OPS,
    resolve: ({ company }) => company.id,
  },
  {
    key: 'company.companyGroupId',
    label: 'Company group',
    description: 'the company group id of the member company (Setting company groups)',
    valueType: 'string',
    operators: STRING_OPS,
    resolve: ({ company }) => company.companyGroupId,
  },
];

const BY_KEY = new Map(DEFINITIONS.map((d) => [d.key, d]));

/** The condition keys rules may use, with value types and allowed operators (getEligibilityRuleDefinitions). */
export const CONDITION_DEFINITIONS: readonly ConditionDefinition[] = DEFINITIONS.map(({ resolve: _r, ...d }) => ({
  ...d,
  operators: [...d.operators],
}));

function typeMatches(value: unknown, type: ConditionValueType): value is ConditionScalar {
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeof value === type;
}

/** Why a condition may not be stored (empty when it may). */
export function conditionProblems(condition: EligibilityRuleCondition): string[] {
  const def = BY_KEY.get(condition.key);
  if (!def) return [`unknown key '${condition.key}'; allowed: ${DEFINITIONS.map((d) => d.key).join(', ')}`];
  const op = condition.logicalOperator;
  if (!def.operators.includes(op))
    return [`operator '${op}' is not allowed for ${def.key}; allowed: ${def.operators.join(', ')}`];
  const v = condition.value;
  if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(v) || v.length === 0) return [`${op} needs a non-empty list of ${def.valueType} values`];
    const bad = v.filter((e) => !typeMatches(e, def.valueType));
    return bad.length ? [`every value of ${def.key} must be a ${def.valueType}`] : [];
  }
  if (!typeMatches(v, def.valueType)) return [`${op} needs a single ${def.valueType} value for ${def.key}`];
  return [];
}

/** Problems of a rule's conditions as field-level errors (`conditions.<i>`). */
export function conditionsProblems(
  conditions: EligibilityRuleCondition[],
  prefix = 'conditions',
): { field: string; reason: string }[] {
  return conditions.flatMap((c, i) => conditionProblems(c).map((reason) => ({ field: `${prefix}.${i}`, reason })));
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** Does one condition hold for the member's value? */
export function conditionHolds(
  op: EligibilityOperator,
  actual: unknown,
  expected: ConditionScalar | readonly ConditionScalar[],
): boolean {
  switch (op) {
    case 'equal':
      return present(actual) && actual === expected;
    case 'not_equal':
      return !present(actual) || actual !== expected;
    case 'in':
      return present(actual) && Array.isArray(expected) && expected.includes(actual);
    case 'not_in':
      return !(present(actual) && Array.isArray(expected) && expected.includes(actual));
    default: {
      if (!COMPARISONS.has(op)) return false;
      if (
        typeof actual !== 'number' ||
        typeof expected !== 'number' ||
        !Number.isFinite(actual) ||
        !Number.isFinite(expected)
      )
        return false;
      if (op === 'less_than') return actual < expected;
      if (op === 'greater_than') return actual > expected;
      if (op === 'less_than_equal') return actual <= expected;
      return actual >= expected;
    }
  }
}

/** The member's value for a condition key (undefined for unknown keys and missing values). */
export function valueOf(input: EligibilityInput, key: string): unknown {
  const v = BY_KEY.get(key)?.resolve(input);
  return v === null ? undefined : v;
}

/** Is the member eligible under one rule? Inactive rules admit no one. */
export function evaluateEligibility(
  input: EligibilityInput,
  rule: DeepReadonly<Pick<EligibilityRule, 'status' | 'conditions'>>,
): EligibilityResult {
  if (rule.status !== 'active') return { eligible: false, failed: [], reason: 'rule_inactive' };
  const failed: FailedCondition[] = [];
  for (const c of rule.conditions) {
    const known = BY_KEY.has(c.key);
    const actual = valueOf(input, c.key);
    if (!known || !conditionHolds(c.logicalOperator, actual, c.value)) {
      failed.push({
        key: c.key,
        logicalOperator: c.logicalOperator,
        expected: c.value,
        actual: actual === undefined ? null : actual,
      });
    }
  }
  return failed.length ? { eligible: false, failed } : { eligible: true };
}

/** The tier's rules the member is eligible under (active rules only, in the tier's order). */
export function eligibleRules<R extends DeepReadonly<EligibilityRule>>(
  input: EligibilityInput,
  tier: { readonly eligibilityRules?: readonly R[] },
): R[] {
  return (tier.eligibilityRules ?? []).filter((r) => evaluateEligibility(input, r).eligible);
}

/** Every active rule of the tier with its result (for explaining a refusal). */
export function evaluateTierRules(
  input: EligibilityInput,
  tier: { readonly eligibilityRules?: readonly DeepReadonly<EligibilityRule>[] },
): { ruleId: string; ruleName: string; result: EligibilityResult }[] {
  return (tier.eligibilityRules ?? [])
    .filter((r) => r.status === 'active')
    .map((r) => ({ ruleId: r.id, ruleName: r.name, result: evaluateEligibility(input, r) }));
}
