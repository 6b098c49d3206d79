/**
 * Values of any depth in the audit log (a body nested 10 000 deep
 * made addLogEntry answer 500, a stack overflow in the field diff). Classes
 * pass before/after in-process, where the HTTP depth limit does not apply:
 * the diff, the masking and the stored entry must hold at any depth.
 */
import { diffFields, jsonEqual, jsonText, limitDepth, toJsonValue } from '../../classes/_platform/field-diff';
import { ADDITIONAL_DATA_MAX_DEPTH, buildLog } from '../../classes/LogManager/log-entry';
import { MASK, maskNested, sensitiveKeyMatcher } from '../../classes/LogManager/masking';

/** {"a":{"a":...{"a":leaf}}} nested `depth` objects deep, built without recursion */
function deepObject(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v as Record<string, unknown>;
}

function deepArray(depth: number): unknown[] {
  let v: unknown[] = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

/** the depth of objects/arrays in a value, measured without recursion */
function depthOf(value: unknown): number {
  let max = 0;
  const work: [unknown, number][] = [[value, 0]];
  while (work.length) {
    const [v, d] = work.pop()!;
    if (v === null || typeof v !== 'object') {
      max = Math.max(max, d);
      continue;
    }
    max = Math.max(max, d + 1);
    for (const c of Object.values(v)) work.push([c, d + 1]);
  }
  return max;
}

const DEEP = 100_000;

describe('the premise', () => {
  test("V8's JSON.stringify overflows at this depth (what the fast path falls back from)", () => {
    expect(() => JSON.stringify(deepObject(DEEP))).toThrow(RangeError);
  });
});

describe('jsonText', () => {
  test.each([
    ['an object', deepObject(DEEP)],
    ['an array', deepArray(DEEP)],
  ])('encodes %s nested 100 000 deep; JSON.parse reads it back', (_what, value) => {
    const text = jsonText(value)!;
    expect(text.length).toBeGreaterThan(2 * DEEP - 1);
    expect(depthOf(JSON.parse(text))).toBe(depthOf(value));
  });

  test('the iterative encoder writes what JSON.stringify writes (checked on shallow values through a deep wrapper)', () => {
    const sample = {
      s: 'say "hi"\n\u2028',
      n: [1, -0, 2.5, 1e21, NaN, Infinity],
      b: [true, false],
      z: null,
      u: undefined,
      f: () => 1,
      arr: [undefined, () => 1, Symbol('x'), { x: undefined }],
      d: new Date(Date.UTC(2024, 0, 2)),
      boxed: [Object(3), Object('s'), Object(false)],
      custom: { toJSON: (key: string) => `key=${key}` },
      empty: {},
      emptyArr: [],
    };
    Object.defineProperty(sample, '__proto__', { value: { own: true }, enumerable: true });
    const wrapped = deepObject(DEEP, sample);
    const text = jsonText(wrapped)!;
    // the innermost part of the text is the sample's JSON, exactly as JSON.stringify writes it
    const inner = JSON.stringify(sample);
    expect(text).toBe('{"a":'.repeat(DEEP) + inner + '}'.repeat(DEEP));
  });

  test('cycles and BigInt are TypeErrors, as with JSON.stringify', () => {
    const cyclic = deepObject(DEEP) as Record<string, any>;
    let inner = cyclic;
    while (typeof inner.a === 'object') inner = inner.a;
    inner.a = cyclic;
    expect(() => jsonText(cyclic)).toThrow(TypeError);
    expect(() => jsonText(deepObject(DEEP, 10n))).toThrow(TypeError);
  });

  test('a shared (not cyclic) value is encoded each time it appears', () => {
    const shared = deepObject(10);
    const text = jsonText(deepObject(DEEP, [shared, shared]))!;
    expect(text).toContain(`[${JSON.stringify(shared)},${JSON.stringify(shared)}]`);
  });

  test('scalars and undefined at the top', () => {
    expect(jsonText(undefined)).toBeUndefined();
    expect(jsonText('x')).toBe('"x"');
  });
});

describe('toJsonValue and jsonEqual', () => {
  test('toJsonValue keeps a 100 000 deep value', () => {
    expect(depthOf(toJsonValue(deepObject(DEEP)))).toBe(DEEP);
  });

  test('jsonEqual compares at any depth', () => {
    expect(jsonEqual(deepObject(DEEP), deepObject(DEEP))).toBe(true);
    expect(jsonEqual(deepObject(DEEP, 1), deepObject(DEEP, 2))).toBe(false);
    expect(jsonEqual(deepArray(DEEP), deepArray(DEEP))).toBe(true);
    expect(jsonEqual(deepArray(DEEP), deepArray(DEEP - 1))).toBe(false);
  });

  test('jsonEqual keeps its rules: key order is free, array order is not, own keys only', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(false);
    expect(jsonEqual({ constructor: 1 }, { toString: 1 })).toBe(false);
  });
});

describe('maskNested', () => {
  const isSensitive = sensitiveKeyMatcher(['phone']);

  test('masks at any depth without recursion', () => {
    const masked = maskNested(deepObject(DEEP, { phone: '555', password: 'x', name: 'Ann' }), isSensitive);
    let inner = masked as Record<string, any>;
    for (let i = 0; i < DEEP; i++) inner = inner.a;
    expect(inner).toEqual({ phone: MASK, password: MASK, name: 'Ann' });
  });

  test("an own '__proto__' key is copied as a key (and masked when sensitive), never as the copy's prototype", () => {
    const value = JSON.parse('{"__proto__": {"password": "p", "x": 1}, "list": [{"__proto__": 2}]}');
    const masked = maskNested(value, isSensitive) as Record<string, any>;
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(Object.keys(masked)).toEqual(['__proto__', 'list']);
    expect(JSON.stringify(masked)).toBe('{"__proto__":{"password":"***","x":1},"list":[{"__proto__":2}]}');
  });

  test('a cycle stays a cycle (JSON encoding refuses it) instead of looping', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    const masked = maskNested(a, isSensitive) as Record<string, unknown>;
    expect(masked.self).toBe(masked);
    expect(() => jsonText(masked)).toThrow(TypeError);
  });
});

describe('limitDepth', () => {
  test('keeps structure down to the limit and stores deeper parts as their JSON text', () => {
    const v = { a: { b: { c: { d: 1 } } }, s: 'x', l: [[1]] };
    expect(limitDepth(v, 2)).toEqual({ a: { b: '{"c":{"d":1}}' }, s: 'x', l: ['[1]'] });
    expect(limitDepth(v, 10)).toEqual(v);
    expect(limitDepth(v, 0)).toBe(JSON.stringify(v));
    expect(limitDepth('x', 1)).toBe('x');
  });

  test('a 100 000 deep value becomes a value native JSON.stringify can encode, losing nothing', () => {
    const limited = limitDepth(deepObject(DEEP), 32);
    expect(depthOf(limited)).toBe(32);
    let inner = limited as Record<string, any>;
    for (let i = 0; i < 31; i++) inner = inner.a;
    expect(typeof inner.a).toBe('string');
    expect(depthOf(JSON.parse(inner.a))).toBe(DEEP - 32);
    expect(() => JSON.stringify(limited)).not.toThrow();
  });
});

describe('diffFields and buildLog at any depth', () => {
  test('a field nested 100 000 deep is diffed: replace with its full JSON text', () => {
    const before = { name: 'Ann', tree: deepObject(DEEP, 1) };
    const after = { name: 'Ann', tree: deepObject(DEEP, 2) };
    const out = diffFields(before, after);
    expect(out.map((f) => [f.key, f.operation])).toEqual([['tree', 'replace']]);
    expect(out[0]!.newValue).toBe('{"a":'.repeat(DEEP) + '2' + '}'.repeat(DEEP));
    expect(diffFields(before, { name: 'Ann', tree: deepObject(DEEP, 1) })).toEqual([]);
  });

  test('buildLog: deep before/after/additionalData give an entry that native JSON.stringify encodes; large values go to the file', () => {
    const built = buildLog({
      logId: 'l1',
      timeStamp: '2024-01-01T00:00:00.000Z',
      classId: 'Member',
      entityId: 'm1',
      entityType: 'member',
      before: { tree: deepObject(10_000, { password: 'old' }) },
      after: { tree: deepObject(10_000, { password: 'new' }) },
      actor: { type: 'system', name: 'test' } as never,
      additionalData: { trail: deepObject(10_000, { secret: 's', note: 'n' }) },
    });
    expect(() => JSON.stringify(built.record)).not.toThrow();
    expect(built.record.isLargeLog).toBe(true);
    const full = built.full[0]!;
    expect(full.key).toBe('tree');
    // masked at depth 10 000: old and new passwords both read "***", yet the trees differ only there,
    // so the change is still reported (values compare before masking) and the text holds no secret
    expect(full.newValue).not.toContain('new');
    expect(full.newValue!.endsWith(`{"password":"***"}${'}'.repeat(10_000)}`)).toBe(true);
    expect(depthOf(built.record.additionalData)).toBe(ADDITIONAL_DATA_MAX_DEPTH);
    const stored = JSON.stringify(built.record.additionalData);
    expect(stored).toContain('\\"secret\\":\\"***\\"');
    expect(stored).not.toContain('\\"secret\\":\\"s\\"');
  });
});
