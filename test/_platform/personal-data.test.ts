/** The personal-data contract's shared rule: erasing the string leaves of a value. */
import { ERASED, eraseStringLeaves } from '../../classes/_platform/personal-data';

describe('eraseStringLeaves', () => {
  test('string leaves become ERASED; keys, structure, numbers, booleans and nulls stay; keys stay own keys', () => {
    expect(eraseStringLeaves('Kim')).toBe(ERASED);
    expect(eraseStringLeaves(42)).toBe(42);
    expect(eraseStringLeaves(null)).toBeNull();
    expect(eraseStringLeaves({ a: 'x', b: [1, 'y', { c: 'z', d: null }], e: false })).toEqual({
      a: ERASED,
      b: [1, ERASED, { c: ERASED, d: null }],
      e: false,
    });
    const proto = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    const out = eraseStringLeaves(proto) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
  });

  test('deep values are walked without recursion', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 50_000; i++) deep = { d: deep };
    let cur = eraseStringLeaves(deep) as { d: unknown };
    for (let i = 0; i < 49_999; i++) cur = cur.d as { d: unknown };
    expect(cur.d).toBe(ERASED);
  });

  test('only the leaves `match` picks', () => {
    expect(eraseStringLeaves({ a: 'Kim Lee', b: ['Kim Lee', 'other'] }, (s) => s === 'Kim Lee')).toEqual({
      a: ERASED,
      b: [ERASED, 'other'],
    });
  });
});
