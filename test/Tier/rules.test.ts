/** Tier domain rules (classes/Tier/rules.ts): dates, updates, rules, listing (the overlap rule: schedule.test.ts). */
import {
  applyRuleUpdate,
  applyTierUpdate,
  buildListFilter,
  checkDateRange,
  copyActiveRules,
  delayUntil,
  newRule,
  listQuery,
  normalizeDate,
  sameTier,
  tierDocument,
} from '../../classes/Tier/rules';
import { escapeRegex } from '../../classes/_platform/paging';
import type { EligibilityRule, Tier } from '../../classes/Tier/types';
import { schemaRefusal } from './support';

const tier: Tier = {
  id: 't1',
  name: 'Gold',
  description: 'd',
  tierType: { id: 'tt1', group: 'base' },
  fee: 10,
  startDate: '2030-01-01T00:00:00.000Z',
  endDate: '2031-01-01T00:00:00.000Z',
  status: 'active',
  eligibilityRules: [],
  createdBy: { id: 'u', type: 'program_management_user' },
  createdAt: '2029-01-01T00:00:00.000Z',
  updatedAt: '2029-01-01T00:00:00.000Z',
};

describe('dates', () => {
  test.each([
    ['2030-01-01', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01T10:00:00Z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01T10:00:00.5+04:00', '2030-01-01T06:00:00.500Z'],
    ['2030-01-01 10:00:00+0400', '2030-01-01T06:00:00.000Z'],
    ['2028-02-29', '2028-02-29T00:00:00.000Z'],
    ['2030-02-29', undefined],
    ['2030-13-01', undefined],
    ['2030-01-01T10:00:00', undefined], // no zone
    ['01/02/2030', undefined],
    ['', undefined],
    [20300101, undefined],
  ])('normalizeDate(%j) = %j', (input, out) => {
    expect(normalizeDate(input)).toBe(out);
  });

  test('checkDateRange needs start < end', () => {
    expect(checkDateRange('2030-01-01', '2030-01-02')).toEqual({
      ok: true,
      startDate: '2030-01-01T00:00:00.000Z',
      endDate: '2030-01-02T00:00:00.000Z',
    });
    expect(checkDateRange('2030-01-02', '2030-01-01')).toEqual({
      ok: false,
      problems: [{ field: 'endDate', reason: 'must be after startDate' }],
    });
    expect(checkDateRange('2030-01-01T00:00:00Z', '2030-01-01')).toMatchObject({ ok: false });
    expect(checkDateRange('x', undefined)).toMatchObject({
      ok: false,
      problems: [{ field: 'startDate' }, { field: 'endDate' }],
    });
  });

  test('delayUntil is never negative', () => {
    expect(delayUntil('2030-01-01T00:00:10.000Z', Date.parse('2030-01-01T00:00:00.000Z'))).toBe(10);
    expect(delayUntil('2020-01-01T00:00:00.000Z', Date.now())).toBe(0);
  });
});

describe('tiers and rules', () => {
  const rule: EligibilityRule = {
    id: 'r1',
    name: 'R',
    paymentTypes: ['credit_card'],
    paymentPeriod: 'monthly',
    quota: 5,
    conditions: [{ key: 'company.id', logicalOperator: 'in', value: ['c1'] }],
    status: 'active',
  };

  test('newRule: given id, deduplicated payment types, active unless told', () => {
    const r = newRule(
      { name: 'R', paymentTypes: ['credit_card', 'credit_card'], paymentPeriod: 'monthly', conditions: [] },
      'x',
    );
    expect(r).toEqual({
      id: 'x',
      name: 'R',
      paymentTypes: ['credit_card'],
      paymentPeriod: 'monthly',
      conditions: [],
      status: 'active',
    });
    expect(newRule({ ...r, status: 'inactive', quota: 0 }, 'y')).toMatchObject({
      id: 'y',
      status: 'inactive',
      quota: 0,
    });
  });

  test('copyActiveRules copies active rules only, each with a new id, deep', () => {
    let n = 0;
    const source = [rule, { ...rule, id: 'r2', status: 'inactive' as const }, { ...rule, id: 'r3', name: 'R3' }];
    const copies = copyActiveRules(source, () => `new-${++n}`);
    expect(copies.map((c) => [c.id, c.name])).toEqual([
      ['new-1', 'R'],
      ['new-2', 'R3'],
    ]);
    expect(copies[0]).toEqual({ ...rule, id: 'new-1' });
    (copies[0].conditions[0].value as string[]).push('c2');
    expect(rule.conditions[0].value).toEqual(['c1']);
  });

  test('applyTierUpdate and sameTier', () => {
    const dates = { startDate: tier.startDate, endDate: tier.endDate };
    expect(sameTier(applyTierUpdate(tier, { name: 'Gold' }, dates, 'later'), tier)).toBe(true);
    const renamed = applyTierUpdate(tier, { name: ' Platinum ', description: null, fee: 0 }, dates, 'later');
    expect(renamed).toMatchObject({ name: 'Platinum', fee: 0, updatedAt: 'later' });
    expect(renamed).not.toHaveProperty('description');
    expect(sameTier(renamed, tier)).toBe(false);
    expect(tier.name).toBe('Gold');
  });

  test('applyRuleUpdate: quota null removes it; untouched fields stay', () => {
    expect(applyRuleUpdate(rule, { ruleId: 'r1', quota: null })).not.toHaveProperty('quota');
    expect(applyRuleUpdate(rule, { ruleId: 'r1', name: 'N', paymentTypes: ['salary_deduction'] })).toEqual({
      ...rule,
      name: 'N',
      paymentTypes: ['salary_deduction'],
    });
  });

  test('tierDocument carries the pending approval', () => {
    expect(tierDocument(tier, null)).toMatchObject({ id: 't1', pendingApprovalId: null, pendingApproval: null });
    const p = { id: 'a1', event: 'tier_status_update' as const, requestedStatus: 'inactive' as const };
    expect(tierDocument(tier, p)).toMatchObject({ pendingApprovalId: 'a1', pendingApproval: p });
  });
});

describe('listTiers query', () => {
  test('defaults, filters and a trimmed search from the validated input', () => {
    expect(listQuery({})).toEqual({ page: 1, limit: 20 });
    expect(
      listQuery({ status: 'active', tierTypeId: 'tt', tierGroup: 'add_on', search: ' gold ', page: 2, limit: 5 }),
    ).toEqual({ status: 'active', tierTypeId: 'tt', tierGroup: 'add_on', search: 'gold', page: 2, limit: 5 });
    expect(listQuery({ search: '   ' })).toEqual({ page: 1, limit: 20 });
  });

  test('a GET query is coerced by the schema: numbers from strings, blank values not given', () => {
    expect(schemaRefusal('Tier', 'listTiers', { page: '2', limit: '5', status: '', search: '' })).toEqual({
      input: { page: 2, limit: 5 },
      fields: [],
    });
  });

  test.each([
    [{ status: 'gone' }, 'status'],
    [{ tierGroup: 'gold' }, 'tierGroup'],
    [{ page: '0' }, 'page'],
    [{ page: 1.5 }, 'page'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 0 }, 'limit'],
    [{ search: 'x'.repeat(201) }, 'search'],
    [{ sort: 'name' }, 'sort'],
  ])('the schema refuses %j (%s)', (raw, field) => {
    expect(schemaRefusal('Tier', 'listTiers', raw).fields).toEqual([field]);
  });

  test('a POST body is not coerced: a number where a string is expected is refused', () => {
    expect(schemaRefusal('Tier', 'listTiers', { tierTypeId: 5 }, false).fields).toEqual(['tierTypeId']);
  });

  test('buildListFilter; search is a literal, case-insensitive name match', () => {
    expect(buildListFilter({ page: 1, limit: 20 })).toEqual({});
    expect(buildListFilter({ status: 'active', page: 1, limit: 20 })).toEqual({ status: 'active' });
    expect(buildListFilter({ tierTypeId: 'tt', tierGroup: 'base', search: 'a.b', page: 1, limit: 20 })).toEqual({
      $and: [{ 'tierType.id': 'tt' }, { 'tierType.group': 'base' }, { name: { $regex: 'a\\.b', $options: 'i' } }],
    });
    expect(escapeRegex('(x)*[y]+?')).toBe('\\(x\\)\\*\\[y\\]\\+\\?');
  });
});
