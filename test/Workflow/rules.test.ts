import { compare, conditionHolds, getPath, isoInstant, selectRule, targetStatusOf } from '../../classes/Workflow/rules';
import type { Operator, WorkflowConfig, WorkflowRule } from '../../classes/Workflow/types';

describe('compare: every operator', () => {
  const cases: [Operator, unknown, unknown, boolean][] = [
    // equal: deep, no coercion, missing never equal
    ['equal', 'active', 'active', true],
    ['equal', 'active', 'inactive', false],
    ['equal', 5, 5, true],
    ['equal', 5, '5', false],
    ['equal', { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, true],
    ['equal', { a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }, false],
    ['equal', [1, 2], [2, 1], false],
    ['equal', null, null, true],
    ['equal', undefined, null, false],
    ['equal', true, true, true],
    // not_equal: negation, missing differs from everything
    ['not_equal', 'a', 'b', true],
    ['not_equal', 'a', 'a', false],
    ['not_equal', { x: 1 }, { x: 1 }, false],
    ['not_equal', undefined, 'a', true],
    ['not_equal', 5, '5', true],
    // in: scalar membership, array intersection, deep members
    ['in', 'b', ['a', 'b'], true],
    ['in', 'c', ['a', 'b'], false],
    ['in', 2, [1, 2, 3], true],
    ['in', '2', [1, 2, 3], false],
    ['in', ['x', 'approver'], ['approver', 'senior'], true],
    ['in', ['x', 'y'], ['approver'], false],
    ['in', [], ['approver'], false],
    ['in', { k: 1 }, [{ k: 1 }], true],
    ['in', undefined, ['a'], false],
    ['in', 'a', 'a', false],
    // not_in
    ['not_in', 'c', ['a', 'b'], true],
    ['not_in', 'a', ['a', 'b'], false],
    ['not_in', ['x', 'approver'], ['approver'], false],
    ['not_in', ['x'], ['approver'], true],
    ['not_in', undefined, ['a'], true],
    // ordering on numbers
    ['less_than', 1, 2, true],
    ['less_than', 2, 2, false],
    ['less_than', 3, 2, false],
    ['greater_than', 3, 2, true],
    ['greater_than', 2, 2, false],
    ['greater_than', 1, 2, false],
    ['less_than_equal', 2, 2, true],
    ['less_than_equal', 1, 2, true],
    ['less_than_equal', 3, 2, false],
    ['greater_than_equal', 2, 2, true],
    ['greater_than_equal', 3, 2, true],
    ['greater_than_equal', 1, 2, false],
    ['less_than', -1.5, 0, true],
    // ordering on ISO dates and date-times (compared as instants)
    ['less_than', '2024-01-01', '2024-06-30', true],
    ['greater_than', '2024-01-01', '2024-06-30', false],
    ['less_than', '2024-01-01T10:00:00Z', '2024-01-01T09:00:00-02:00', true],
    ['greater_than', '2024-01-01T12:00:00+02:00', '2024-01-01T09:00:00Z', true],
    ['less_than_equal', '2024-01-01T00:00:00Z', '2024-01-01', true],
    ['greater_than_equal', '2024-01-01T00:00:00.000Z', '2024-01-01', true],
    ['less_than', '2024-01-01T10:00:00', '2024-01-01T10:00:01Z', true],
    // anything else does not hold
    ['less_than', '10', '9', false],
    ['greater_than', 'b', 'a', false],
    ['less_than', 1, '2024-01-01', false],
    ['greater_than', '2024-01-01', 1, false],
    ['less_than', undefined, 5, false],
    ['greater_than_equal', null, 0, false],
    ['less_than', true, 2, false],
    ['less_than', Number.NaN, 2, false],
    ['greater_than', [5], 2, false],
  ];
  test.each(cases)('%s(%j, %j) is %s', (op, actual, expected, result) => {
    expect(compare(op, actual, expected)).toBe(result);
  });

  test('an unknown operator never holds', () => {
    expect(compare('like' as Operator, 'a', 'a')).toBe(false);
  });
});

describe('paths and dates', () => {
  test.each([
    [{ a: { b: { c: 1 } } }, 'a.b.c', 1],
    [{ a: [{ c: 'x' }, { c: 'y' }] }, 'a.1.c', 'y'],
    [{ a: [1] }, 'a.x', undefined],
    [{ a: 1 }, 'a.b', undefined],
    [{ a: null }, 'a.b', undefined],
    [{}, 'toString', undefined],
    [null, 'a', undefined],
    [{ roles: ['r1'] }, 'roles', ['r1']],
  ])('getPath(%j, %s)', (obj, key, value) => {
    expect(getPath(obj, key)).toEqual(value);
  });

  test('ISO instants', () => {
    expect(isoInstant('2024-01-01')).toBe(Date.UTC(2024, 0, 1));
    expect(isoInstant('2024-01-01T01:02:03Z')).toBe(Date.UTC(2024, 0, 1, 1, 2, 3));
    expect(isoInstant('2024-01-01T01:02:03')).toBe(Date.UTC(2024, 0, 1, 1, 2, 3));
    expect(isoInstant('2024-01-01T03:02:03+02:00')).toBe(Date.UTC(2024, 0, 1, 1, 2, 3));
    expect(isoInstant('yesterday')).toBeUndefined();
    expect(isoInstant('2024-13-45')).toBeUndefined();
    expect(isoInstant('1700000000')).toBeUndefined();
  });

  test('conditions read the entity or the actor', () => {
    const input = {
      entity: { price: 10, address: { country: 'AE' } },
      actor: { type: 'developer', roles: ['approver'] },
    };
    expect(
      conditionHolds({ dataSource: 'entity', key: 'address.country', operator: 'equal', value: 'AE' }, input),
    ).toBe(true);
    expect(conditionHolds({ dataSource: 'actor', key: 'type', operator: 'equal', value: 'developer' }, input)).toBe(
      true,
    );
    expect(conditionHolds({ dataSource: 'actor', key: 'roles', operator: 'in', value: ['approver'] }, input)).toBe(
      true,
    );
    expect(conditionHolds({ dataSource: 'actor', key: 'price', operator: 'equal', value: 10 }, input)).toBe(false);
  });
});

describe('selectRule', () => {
  const rule = (over: Partial<WorkflowRule>): WorkflowRule => ({
    event: 'e',
    currentStatus: '*',
    targetStatus: '*',
    conditions: [],
    approvers: [],
    ...over,
  });
  const config: WorkflowConfig = {
    classId: 'Thing',
    rules: [
      rule({ event: 'create', currentStatus: 'pending', targetStatus: 'active', approvers: ['approver'] }),
      rule({
        event: 'update',
        conditions: [{ dataSource: 'entity', key: 'price', operator: 'less_than', value: 100 }],
      }),
      rule({
        event: 'update',
        conditions: [{ dataSource: 'entity', key: 'price', operator: 'greater_than_equal', value: 100 }],
        approvers: ['senior'],
      }),
      rule({ event: 'status', currentStatus: 'active', approvers: ['approver'] }),
      rule({ event: 'dup', currentStatus: 'active' }),
      rule({ event: 'dup', currentStatus: '*' }),
      rule({ event: 7, conditions: [{ dataSource: 'actor', key: 'type', operator: 'equal', value: 'developer' }] }),
    ],
  };
  const input = (over: Record<string, unknown>) => ({
    classId: 'Thing',
    event: 'update',
    currentStatus: 'active',
    entity: {},
    actor: {},
    ...over,
  });

  test('picks the one matching rule by event, status and conditions', () => {
    expect(selectRule(config, input({ event: 'create', currentStatus: 'pending' }))).toMatchObject({
      ok: true,
      index: 0,
    });
    expect(selectRule(config, input({ entity: { price: 99 } }))).toMatchObject({ ok: true, index: 1 });
    expect(selectRule(config, input({ entity: { price: 100 } }))).toMatchObject({
      ok: true,
      index: 2,
      rule: { approvers: ['senior'] },
    });
    expect(selectRule(config, input({ event: 'status', currentStatus: 'active' }))).toMatchObject({
      ok: true,
      index: 3,
    });
    expect(selectRule(config, input({ event: '7', actor: { type: 'developer' } }))).toMatchObject({
      ok: true,
      index: 6,
    });
    expect(selectRule(config, input({ event: 7, actor: { type: 'developer' } }))).toMatchObject({ ok: true, index: 6 });
  });

  test.each([
    [
      'another class',
      input({ classId: 'Other', event: 'create', currentStatus: 'pending' }),
      'WORKFLOW_CLASS_MISMATCH',
    ],
    ['unknown event', input({ event: 'nope' }), 'WORKFLOW_NO_MATCHING_RULE'],
    ['wrong current status', input({ event: 'create', currentStatus: 'active' }), 'WORKFLOW_NO_MATCHING_RULE'],
    ['conditions fail (missing key)', input({ entity: {} }), 'WORKFLOW_NO_MATCHING_RULE'],
    ['condition on the actor fails', input({ event: 7, actor: { type: 'system' } }), 'WORKFLOW_NO_MATCHING_RULE'],
    ['two rules match', input({ event: 'dup', currentStatus: 'active' }), 'WORKFLOW_MULTIPLE_RULES'],
  ])('fails on %s', (_what, given, code) => {
    const r = selectRule(config, given);
    expect(r).toMatchObject({ ok: false, code });
  });

  test('failure details say what did not match', () => {
    expect(selectRule(config, input({ event: 'dup', currentStatus: 'active' }))).toMatchObject({
      details: { ruleIndexes: [4, 5] },
    });
    expect(selectRule(config, input({ event: 'create', currentStatus: 'active' }))).toMatchObject({
      details: { event: 'create', currentStatus: 'active', rulesForEvent: 1 },
    });
    expect(selectRule(config, input({ classId: 'Other' }))).toMatchObject({
      details: { configClassId: 'Thing', classId: 'Other' },
    });
    expect(selectRule(config, input({ event: 'dup', currentStatus: 'inactive' }))).toMatchObject({
      ok: true,
      index: 5,
    });
  });

  test('target status: the rule target, or the requested status for *', () => {
    expect(targetStatusOf(rule({ targetStatus: 'active' }), 'pending')).toBe('active');
    expect(targetStatusOf(rule({ targetStatus: '*' }), 'inactive')).toBe('inactive');
    expect(targetStatusOf(rule({ targetStatus: '*' }), undefined)).toBeUndefined();
  });
});
