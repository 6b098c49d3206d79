/**
 * classes/_platform/records.ts: state maps keyed by caller input, where
 * '__proto__', 'constructor', 'toString' or 'hasOwnProperty' are ordinary keys.
 */
import { hasEntry, openRecord, ownEntry, setEntry } from '../../classes/_platform/records';

const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

describe('the problem', () => {
  test('a plain object answers inherited properties for these keys, and __proto__ assignment replaces its prototype', () => {
    const plain: Record<string, unknown> = {};
    expect(plain['constructor']).toBe(Object);
    plain['__proto__'] = { sneaky: true };
    expect(Object.keys(plain)).toEqual([]);
    expect((plain as { sneaky?: boolean }).sneaky).toBe(true);
  });
});

describe('ownEntry and hasEntry', () => {
  test.each(PROTO_NAMES)('%s is unknown until stored', (key) => {
    const map: Record<string, string> = { a: 'x' };
    expect(ownEntry(map, key)).toBeUndefined();
    expect(hasEntry(map, key)).toBe(false);
    expect(ownEntry(Object.freeze({ ...map }), key)).toBeUndefined();
  });

  test('own entries are found, on plain, null-prototype and frozen records; absent records have none', () => {
    const parsed = JSON.parse('{"__proto__": "p", "constructor": "c", "a": "x"}') as Record<string, string>;
    expect([ownEntry(parsed, '__proto__'), ownEntry(parsed, 'constructor'), ownEntry(parsed, 'a')]).toEqual([
      'p',
      'c',
      'x',
    ]);
    expect(ownEntry(Object.freeze(parsed), 'a')).toBe('x');
    expect(ownEntry(openRecord({ b: 1 }), 'b')).toBe(1);
    expect(ownEntry(undefined, 'a')).toBeUndefined();
    expect(hasEntry(null, 'a')).toBe(false);
  });

  test('a record holding a key named hasOwnProperty is still read correctly', () => {
    const map = { hasOwnProperty: 'shadow', a: 1 } as unknown as Record<string, unknown>;
    expect(ownEntry(map, 'a')).toBe(1);
    expect(ownEntry(map, 'hasOwnProperty')).toBe('shadow');
  });
});

describe('openRecord', () => {
  test('removes the prototype in place, keeping the entries (state of a write)', () => {
    const state = { companies: JSON.parse('{"c1": {"id": "c1"}}') as Record<string, unknown> };
    const companies = openRecord(state.companies);
    expect(companies).toBe(state.companies);
    expect(Object.getPrototypeOf(companies)).toBeNull();
    expect(companies['c1']).toEqual({ id: 'c1' });
    for (const key of PROTO_NAMES) expect(companies[key]).toBeUndefined();
  });

  test('on an opened record every key is stored as an own entry, and the state serialises and parses back the same', () => {
    const companies = openRecord<Record<string, string>>(undefined);
    for (const key of PROTO_NAMES) companies[key] = { id: key };
    expect(Object.keys(companies)).toEqual(PROTO_NAMES);
    const text = JSON.stringify({ companies });
    const back = JSON.parse(text) as { companies: Record<string, { id: string }> };
    for (const key of PROTO_NAMES) expect(ownEntry(back.companies, key)).toEqual({ id: key });
    expect(Object.getPrototypeOf(back.companies)).toBe(Object.prototype);
    expect(JSON.stringify(back)).toBe(text);
  });

  test('a frozen record (a READ snapshot) is copied, not changed; an open record is returned as it is', () => {
    const frozen = Object.freeze({ a: 1 }) as Record<string, number>;
    const opened = openRecord(frozen);
    expect(opened).not.toBe(frozen);
    expect(Object.getPrototypeOf(frozen)).toBe(Object.prototype);
    expect({ ...opened }).toEqual({ a: 1 });
    expect(openRecord(opened)).toBe(opened);
  });
});

describe('setEntry', () => {
  test('stores __proto__ as an own entry even on a plain object', () => {
    const plain: Record<string, number> = {};
    setEntry(plain, '__proto__', 1);
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(ownEntry(plain, '__proto__')).toBe(1);
    expect(JSON.stringify(plain)).toBe('{"__proto__":1}');
  });
});

describe('listedDocument', () => {
  const { listedDocument } =
    require('../../classes/_platform/paging') as typeof import('../../classes/_platform/paging');
  it("drops the store's bookkeeping fields and the class's hidden columns, and keeps the rest", () => {
    const doc = { _id: 'x', _v: 3, _instance: 'i', _class: 'C', id: 'x', name: 'N', nameKey: 'n' };
    expect(listedDocument(doc)).toEqual({ id: 'x', name: 'N', nameKey: 'n' });
    expect(listedDocument(doc, ['nameKey'])).toEqual({ id: 'x', name: 'N' });
  });
});
