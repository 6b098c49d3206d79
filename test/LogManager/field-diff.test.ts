import { countFieldUpdates, diffFields, jsonEqual, toJsonValue } from '../../classes/_platform/field-diff';

describe('diffFields', () => {
  test('add, remove and replace of top-level fields; unchanged fields are left out', () => {
    const before = { name: 'Ann', phone: '123', status: 'active' };
    const after = { name: 'Anna', status: 'active', grade: 'A' };
    expect(diffFields(before, after)).toEqual([
      { key: 'name', operation: 'replace', oldValue: '"Ann"', newValue: '"Anna"' },
      { key: 'phone', operation: 'remove', oldValue: '"123"' },
      { key: 'grade', operation: 'add', newValue: '"A"' },
    ]);
  });

  test('values are JSON-encoded strings of every JSON type', () => {
    const out = diffFields({ n: 1, b: true, s: 'x', z: null }, { n: 2.5, b: false, s: 'say "hi"', z: 0 });
    expect(out).toEqual([
      { key: 'n', operation: 'replace', oldValue: '1', newValue: '2.5' },
      { key: 'b', operation: 'replace', oldValue: 'true', newValue: 'false' },
      { key: 's', operation: 'replace', oldValue: '"x"', newValue: '"say \\"hi\\""' },
      { key: 'z', operation: 'replace', oldValue: 'null', newValue: '0' },
    ]);
    for (const fu of out) {
      expect(() => JSON.parse(fu.oldValue!)).not.toThrow();
      expect(() => JSON.parse(fu.newValue!)).not.toThrow();
    }
  });

  test('a changed nested object is one replace of the whole field; key order does not matter', () => {
    const before = { address: { city: 'Oslo', zip: '0150' }, meta: { a: 1, b: 2 } };
    const after = { address: { city: 'Bergen', zip: '0150' }, meta: { b: 2, a: 1 } };
    expect(diffFields(before, after)).toEqual([
      {
        key: 'address',
        operation: 'replace',
        oldValue: JSON.stringify(before.address),
        newValue: JSON.stringify(after.address),
      },
    ]);
  });

  test('deep changes inside nested objects and arrays are found', () => {
    const before = { family: [{ id: 'd1', name: 'Bo', tags: ['x'] }] };
    expect(diffFields(before, { family: [{ id: 'd1', name: 'Bo', tags: ['x'] }] })).toEqual([]);
    expect(diffFields(before, { family: [{ id: 'd1', name: 'Bo', tags: ['y'] }] })).toEqual([
      {
        key: 'family',
        operation: 'replace',
        oldValue: '[{"id":"d1","name":"Bo","tags":["x"]}]',
        newValue: '[{"id":"d1","name":"Bo","tags":["y"]}]',
      },
    ]);
  });

  test('arrays compare in order and by length', () => {
    expect(diffFields({ a: [1, 2] }, { a: [2, 1] })).toEqual([
      { key: 'a', operation: 'replace', oldValue: '[1,2]', newValue: '[2,1]' },
    ]);
    expect(diffFields({ a: [1, 2] }, { a: [1, 2, 3] })).toEqual([
      { key: 'a', operation: 'replace', oldValue: '[1,2]', newValue: '[1,2,3]' },
    ]);
    expect(diffFields({ a: [] }, { a: [] })).toEqual([]);
    expect(diffFields({ a: [] }, { a: {} })).toEqual([
      { key: 'a', operation: 'replace', oldValue: '[]', newValue: '{}' },
    ]);
  });

  test('a type change is a replace', () => {
    expect(diffFields({ v: { x: 1 } }, { v: 'x' })).toEqual([
      { key: 'v', operation: 'replace', oldValue: '{"x":1}', newValue: '"x"' },
    ]);
    expect(diffFields({ v: '1' }, { v: 1 })).toEqual([
      { key: 'v', operation: 'replace', oldValue: '"1"', newValue: '1' },
    ]);
  });

  test('before null (create) adds every field; after null (delete) removes every field', () => {
    expect(diffFields(null, { id: 'm1', name: 'Ann' })).toEqual([
      { key: 'id', operation: 'add', newValue: '"m1"' },
      { key: 'name', operation: 'add', newValue: '"Ann"' },
    ]);
    expect(diffFields({ id: 'm1', tags: ['a'] }, null)).toEqual([
      { key: 'id', operation: 'remove', oldValue: '"m1"' },
      { key: 'tags', operation: 'remove', oldValue: '["a"]' },
    ]);
    expect(diffFields(null, null)).toEqual([]);
    expect(diffFields(undefined, {})).toEqual([]);
  });

  test('null is a value, absent is not: null → absent is a remove with "null"', () => {
    expect(diffFields({ a: null }, {})).toEqual([{ key: 'a', operation: 'remove', oldValue: 'null' }]);
    expect(diffFields({}, { a: null })).toEqual([{ key: 'a', operation: 'add', newValue: 'null' }]);
    expect(diffFields({ a: undefined }, {})).toEqual([]);
  });

  test('ignored keys are left out', () => {
    const out = diffFields({ name: 'A', updatedAt: '1' }, { name: 'B', updatedAt: '2' }, { ignore: ['updatedAt'] });
    expect(out.map((f) => f.key)).toEqual(['name']);
    expect(diffFields({ name: 'A', updatedAt: '1' }, { name: 'A', updatedAt: '2' }).map((f) => f.key)).toEqual([
      'updatedAt',
    ]);
  });

  test('the mask function shapes the logged values, not the comparison', () => {
    const mask = (key: string, v: unknown) => (key === 'pin' ? '***' : v);
    expect(diffFields({ pin: '1111', x: 1 }, { pin: '2222', x: 1 }, { mask })).toEqual([
      { key: 'pin', operation: 'replace', oldValue: '"***"', newValue: '"***"' },
    ]);
  });

  test('Dates and other toJSON values are logged as their JSON', () => {
    const d = new Date('2024-05-01T10:00:00.000Z');
    expect(diffFields({}, { at: d })).toEqual([
      { key: 'at', operation: 'add', newValue: '"2024-05-01T10:00:00.000Z"' },
    ]);
    expect(diffFields({ at: d.toISOString() }, { at: d })).toEqual([]);
  });

  test('values that are not JSON yet, at any depth, compare and are logged as their JSON', () => {
    const d = new Date('2024-05-01T10:00:00.000Z');
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const before = { list: [null, 1], nested: { at: d.toISOString(), n: null, p: { x: 1, y: 2 } }, boxed: 3, zero: 0 };
    const after = {
      list: [undefined, 1],
      nested: { at: d, n: NaN, gone: undefined, p: new Point(1, 2) },
      boxed: new Number(3),
      zero: -0,
    };
    expect(diffFields(before, after)).toEqual([]);
    expect(diffFields(null, { deep: [{ at: d, f: () => 1 }] })).toEqual([
      { key: 'deep', operation: 'add', newValue: '[{"at":"2024-05-01T10:00:00.000Z"}]' },
    ]);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => diffFields(null, cyclic)).toThrow(TypeError);
  });

  test('non-object entities are refused', () => {
    expect(() => diffFields([1], {})).toThrow(/before must be an object/);
    expect(() => diffFields({}, 'x')).toThrow(/after must be an object/);
    expect(() => countFieldUpdates([1], {})).toThrow(/before must be an object/);
  });

  test('countFieldUpdates counts the updates diffFields gives', () => {
    const before = { name: 'Ann', phone: '123', tags: ['a'], at: '2024-05-01T10:00:00.000Z', updatedAt: 'x' };
    const after = {
      name: 'Ann',
      tags: ['a', 'b'],
      at: new Date('2024-05-01T10:00:00.000Z'),
      grade: 'A',
      updatedAt: 'y',
    };
    expect(countFieldUpdates(before, after, { ignore: ['updatedAt'] })).toBe(3);
    expect(diffFields(before, after, { ignore: ['updatedAt'] })).toHaveLength(3);
    expect(countFieldUpdates(null, after)).toBe(5);
    expect(countFieldUpdates(before, before)).toBe(0);
  });
});

describe('jsonEqual / toJsonValue', () => {
  test('deep equality of JSON values', () => {
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, c: 2 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });

  test('JSON equality, not strict equality: 0 and -0 are one JSON number, an object with no prototype is an object', () => {
    // what util.isDeepStrictEqual (which calls both pairs different) would change; it and rfc6902's
    // createPatch also recurse, and overflow the stack a few thousand levels deep (see deep-values.test.ts)
    expect(jsonEqual({ a: [0] }, { a: [-0] })).toBe(true);
    expect(diffFields({ n: 0 }, { n: -0 })).toEqual([]);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: { c: 2 } });
    expect(jsonEqual(bare, { a: 1, b: { c: 2 } })).toBe(true);
    expect(diffFields(bare, { a: 1, b: { c: 2 } })).toEqual([]);
  });

  test('toJsonValue drops undefined members', () => {
    expect(toJsonValue({ a: undefined, b: 1 })).toEqual({ b: 1 });
    expect(toJsonValue(undefined)).toBeUndefined();
  });
});
