/** Eligibility rules (classes/Tier/eligibility.ts): definitions, condition checks, evaluation. */
import {
  CONDITION_DEFINITIONS,
  conditionHolds,
  conditionProblems,
  conditionsProblems,
  eligibleRules,
  evaluateEligibility,
  evaluateTierRules,
  type EligibilityInput,
} from '../../classes/_platform/eligibility';
import type { EligibilityRule, EligibilityRuleCondition } from '../../classes/Tier/types';

const employee: EligibilityInput = {
  member: {
    memberType: 'employee',
    memberSubType: 'regular',
    grade: 'G7',
    staffId: 'E100',
    isCabinCrew: true,
    address: { country: 'AE', address: 'Dubai' },
    familyMembers: [{ id: 'd1' }, { id: 'd2' }],
  },
  company: { id: 'c1', companyGroupId: 'internal-group' },
};

const spouse: EligibilityInput = {
  member: { memberType: 'dependant', relation: 'spouse', primaryMemberId: 'm1', isCabinCrew: null, address: null },
  company: { id: 'c1', companyGroupId: 'internal-group' },
};

function rule(conditions: EligibilityRuleCondition[], status: 'active' | 'inactive' = 'active'): EligibilityRule {
  return { id: 'r1', name: 'rule', paymentTypes: ['credit_card'], paymentPeriod: 'monthly', conditions, status };
}

const c = (
  key: string,
  logicalOperator: EligibilityRuleCondition['logicalOperator'],
  value: EligibilityRuleCondition['value'],
): EligibilityRuleCondition => ({
  key,
  logicalOperator,
  value,
});

describe('evaluateEligibility: one condition per key and operator', () => {
  const cases: [string, EligibilityInput, EligibilityRuleCondition, boolean][] = [
    ['memberType equal (match)', employee, c('member.memberType', 'equal', 'employee'), true],
    ['memberType equal (other)', employee, c('member.memberType', 'equal', 'retiree'), false],
    ['memberType equal is case-sensitive', employee, c('member.memberType', 'equal', 'Employee'), false],
    ['memberType not_equal', employee, c('member.memberType', 'not_equal', 'retiree'), true],
    ['memberType not_equal (same)', employee, c('member.memberType', 'not_equal', 'employee'), false],
    ['memberSubType in', employee, c('member.memberSubType', 'in', ['regular', 'club']), true],
    ['memberSubType in (absent from list)', employee, c('member.memberSubType', 'in', ['club']), false],
    ['memberSubType not_in', employee, c('member.memberSubType', 'not_in', ['club']), true],
    ['memberSubType not_in (listed)', employee, c('member.memberSubType', 'not_in', ['regular']), false],
    ['grade in', employee, c('member.grade', 'in', ['G7', 'G8']), true],
    ['staffId equal', employee, c('member.staffId', 'equal', 'E100'), true],
    ['isCabinCrew equal true', employee, c('member.isCabinCrew', 'equal', true), true],
    ['isCabinCrew equal false', employee, c('member.isCabinCrew', 'equal', false), false],
    ['isCabinCrew no coercion ("true" ≠ true)', employee, c('member.isCabinCrew', 'equal', 'true'), false],
    ['country equal', employee, c('member.address.country', 'equal', 'AE'), true],
    ['country not_in', employee, c('member.address.country', 'not_in', ['US', 'GB']), true],
    ['company.id equal', employee, c('company.id', 'equal', 'c1'), true],
    ['companyGroupId in', employee, c('company.companyGroupId', 'in', ['external-group']), false],
    ['isDependant false for a primary member', employee, c('member.isDependant', 'equal', false), true],
    ['isDependant true for a dependant', spouse, c('member.isDependant', 'equal', true), true],
    ['relation equal (dependant)', spouse, c('member.relation', 'equal', 'spouse'), true],
    ['relation in (dependant)', spouse, c('member.relation', 'in', ['child', 'parent']), false],
    ['dependantCount greater_than', employee, c('member.dependantCount', 'greater_than', 1), true],
    ['dependantCount greater_than (equal value)', employee, c('member.dependantCount', 'greater_than', 2), false],
    ['dependantCount greater_than_equal', employee, c('member.dependantCount', 'greater_than_equal', 2), true],
    ['dependantCount less_than', employee, c('member.dependantCount', 'less_than', 2), false],
    ['dependantCount less_than_equal', employee, c('member.dependantCount', 'less_than_equal', 2), true],
    ['dependantCount is 0 without family members', spouse, c('member.dependantCount', 'equal', 0), true],
    ['dependantCount no coercion (5 ≠ "2")', employee, c('member.dependantCount', 'equal', '2'), false],
    // missing values (absent or null): equal, in and comparisons fail; not_equal and not_in hold
    ['missing relation: equal fails', employee, c('member.relation', 'equal', 'spouse'), false],
    ['missing relation: in fails', employee, c('member.relation', 'in', ['spouse']), false],
    ['missing relation: not_equal holds', employee, c('member.relation', 'not_equal', 'spouse'), true],
    ['missing relation: not_in holds', employee, c('member.relation', 'not_in', ['spouse']), true],
    ['null isCabinCrew: equal false fails', spouse, c('member.isCabinCrew', 'equal', false), false],
    ['null address: country not_equal holds', spouse, c('member.address.country', 'not_equal', 'AE'), true],
    ['null memberSubType: not_in holds', spouse, c('member.memberSubType', 'not_in', ['regular']), true],
    ['unknown key never holds', employee, c('member.shoeSize', 'not_equal', 'x'), false],
  ];
  test.each(cases)('%s', (_what, input, condition, eligible) => {
    const result = evaluateEligibility(input, rule([condition]));
    expect(result.eligible).toBe(eligible);
    if (!result.eligible) {
      expect(result.failed).toHaveLength(1);
      expect(result.failed[0]).toMatchObject({
        key: condition.key,
        logicalOperator: condition.logicalOperator,
        expected: condition.value,
      });
      expect(result.failed[0]).toHaveProperty('actual');
    }
  });
});

describe('evaluateEligibility: rules', () => {
  test('every condition must hold; all failed conditions are reported with expected and actual values', () => {
    const r = rule([
      c('member.memberType', 'equal', 'employee'),
      c('member.grade', 'in', ['G1', 'G2']),
      c('member.relation', 'equal', 'spouse'),
      c('company.id', 'equal', 'c1'),
    ]);
    expect(evaluateEligibility(employee, r)).toEqual({
      eligible: false,
      failed: [
        { key: 'member.grade', logicalOperator: 'in', expected: ['G1', 'G2'], actual: 'G7' },
        { key: 'member.relation', logicalOperator: 'equal', expected: 'spouse', actual: null },
      ],
    });
  });

  test('a rule without conditions admits everyone; an inactive rule no one', () => {
    expect(evaluateEligibility(employee, rule([]))).toEqual({ eligible: true });
    expect(evaluateEligibility(employee, rule([], 'inactive'))).toEqual({
      eligible: false,
      failed: [],
      reason: 'rule_inactive',
    });
    expect(
      evaluateEligibility(employee, rule([c('member.memberType', 'equal', 'employee')], 'inactive')).eligible,
    ).toBe(false);
  });

  test('eligibleRules keeps the active rules the member satisfies, in order; evaluateTierRules explains each', () => {
    const tier = {
      eligibilityRules: [
        { ...rule([c('member.memberType', 'equal', 'employee')]), id: 'a' },
        { ...rule([c('member.memberType', 'equal', 'employee')], 'inactive'), id: 'b' },
        { ...rule([c('member.isDependant', 'equal', true)]), id: 'c' },
        { ...rule([]), id: 'd' },
      ],
    };
    expect(eligibleRules(employee, tier).map((r) => r.id)).toEqual(['a', 'd']);
    expect(eligibleRules(spouse, tier).map((r) => r.id)).toEqual(['c', 'd']);
    expect(evaluateTierRules(spouse, tier)).toEqual([
      {
        ruleId: 'a',
        ruleName: 'rule',
        result: {
          eligible: false,
          failed: [{ key: 'member.memberType', logicalOperator: 'equal', expected: 'employee', actual: 'dependant' }],
        },
      },
      { ruleId: 'c', ruleName: 'rule', result: { eligible: true } },
      { ruleId: 'd', ruleName: 'rule', result: { eligible: true } },
    ]);
    expect(eligibleRules(employee, { eligibilityRules: [] })).toEqual([]);
  });

  test('comparisons need two numbers', () => {
    expect(conditionHolds('less_than', 1, 2)).toBe(true);
    expect(conditionHolds('less_than', '1', 2)).toBe(false);
    expect(conditionHolds('greater_than', undefined, 0)).toBe(false);
    expect(conditionHolds('greater_than_equal', Number.NaN, 0)).toBe(false);
    expect(conditionHolds('in', 'a', 'a')).toBe(false); // in needs a list
  });
});

describe('conditionProblems: what rules may store', () => {
  const cases: [string, EligibilityRuleCondition, RegExp | null][] = [
    ['a string key with equal', c('member.memberType', 'equal', 'employee'), null],
    ['a string key with in', c('company.id', 'in', ['c1', 'c2']), null],
    ['a boolean key with not_equal', c('member.isCabinCrew', 'not_equal', false), null],
    ['a number key with greater_than_equal', c('member.dependantCount', 'greater_than_equal', 1), null],
    ['a number key with in', c('member.dependantCount', 'in', [1, 2]), null],
    ['an unknown key', c('member.birthdate', 'equal', 'x'), /unknown key 'member.birthdate'/],
    [
      'a comparison on a string key',
      c('member.grade', 'greater_than', 'G5'),
      /operator 'greater_than' is not allowed for member.grade/,
    ],
    ['in on a boolean key', c('member.isCabinCrew', 'in', [true]), /operator 'in' is not allowed/],
    ['a list for equal', c('member.memberType', 'equal', ['a']), /needs a single string/],
    ['a number for a string key', c('member.memberType', 'equal', 5), /needs a single string/],
    ['a string for a boolean key', c('member.isCabinCrew', 'equal', 'true'), /needs a single boolean/],
    ['a scalar for in', c('company.id', 'in', 'c1'), /non-empty list/],
    ['an empty list for not_in', c('company.id', 'not_in', []), /non-empty list/],
    ['a mixed list', c('company.id', 'in', ['c1', 2]), /every value of company.id must be a string/],
    ['a string for a comparison', c('member.dependantCount', 'less_than', '3'), /needs a single number/],
  ];
  test.each(cases)('%s', (_what, condition, problem) => {
    const problems = conditionProblems(condition);
    if (problem === null) expect(problems).toEqual([]);
    else {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(problem);
    }
  });

  test('conditionsProblems names the condition index', () => {
    expect(
      conditionsProblems(
        [c('member.memberType', 'equal', 'x'), c('nope', 'equal', 1)],
        'eligibilityRules.2.conditions',
      ),
    ).toEqual([{ field: 'eligibilityRules.2.conditions.1', reason: expect.stringContaining("unknown key 'nope'") }]);
  });

  test('every definition has a value type and operators that fit it', () => {
    const keys = CONDITION_DEFINITIONS.map((d) => d.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(
      expect.arrayContaining([
        'member.memberType',
        'member.memberSubType',
        'member.grade',
        'member.isCabinCrew',
        'member.address.country',
        'member.relation',
        'company.id',
        'company.companyGroupId',
      ]),
    );
    for (const d of CONDITION_DEFINITIONS) {
      expect(['string', 'number', 'boolean']).toContain(d.valueType);
      expect(d.operators.length).toBeGreaterThan(0);
      if (d.valueType !== 'number') expect(d.operators).not.toContain('less_than');
      expect((d as unknown as Record<string, unknown>).resolve).toBeUndefined();
    }
  });
});
