/** runtime/http/body-guards.ts: body sizes in body-parser's notation, and the iterative depth check. */
import { nestedDeeperThan, parseByteSize } from '../../runtime/http/body-guards';

describe('parseByteSize', () => {
  test.each([
    ['16mb', 16 * 1024 * 1024],
    ['64kb', 64 * 1024],
    ['64KB', 64 * 1024],
    ['2 kb', 2048],
    ['1.5mb', 1.5 * 1024 * 1024],
    ['512b', 512],
    ['100', 100],
    [4096, 4096],
  ] as [string | number, number][])('%s is %d bytes', (size, bytes) => {
    expect(parseByteSize(size)).toBe(bytes);
  });

  test.each(['', 'lots', '-1kb', '10 parsecs', NaN, -5])('%s is refused', (size) => {
    expect(() => parseByteSize(size as string | number)).toThrow(/not a body size/);
  });
});

describe('nestedDeeperThan', () => {
  const nest = (depth: number, leaf: unknown = 1) => {
    let text = JSON.stringify(leaf);
    for (let i = 0; i < depth; i++) text = i % 2 ? `[${text}]` : `{"a":${text}}`;
    return JSON.parse(text);
  };

  test('scalars have depth 0; {} and [] depth 1; the deepest branch counts', () => {
    for (const v of ['x', 1, null, true]) expect(nestedDeeperThan(v, 0)).toBe(false);
    expect(nestedDeeperThan({}, 0)).toBe(true);
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan([], 1)).toBe(false);
    const wide = { a: 1, b: [1, 2, { c: [] }], d: { e: 'x' } };
    expect(nestedDeeperThan(wide, 3)).toBe(true);
    expect(nestedDeeperThan(wide, 4)).toBe(false);
  });

  test('exactly the limit passes, one more does not', () => {
    expect(nestedDeeperThan(nest(64), 64)).toBe(false);
    expect(nestedDeeperThan(nest(65), 64)).toBe(true);
    expect(nestedDeeperThan({ ok: nest(63), deep: [nest(64)] }, 64)).toBe(true);
  });

  test('a million levels: no stack overflow', () => {
    const text = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    expect(nestedDeeperThan(JSON.parse(text), 64)).toBe(true);
    expect(nestedDeeperThan(JSON.parse(text), 1_000_000)).toBe(false);
  });
});
