/**
 * Records keyed by caller input: state maps such as `companies[id]`, where the
 * key comes from a request. A plain object inherits from Object.prototype, so
 * `companies['constructor']` finds a function, `companies['toString']` too,
 * and `companies['__proto__'] = x` replaces the map's prototype instead of
 * storing an entry. With these helpers such keys are ordinary keys: unknown
 * until stored, and stored like any other.
 *
 *  - openRecord(state.x): at the start of a write, turns the map (parsed from
 *    JSON, so a plain object) into a null-prototype object in place, or makes
 *    an empty one. Assignments and lookups on it are then safe. State
 *    serialises as before (JSON.stringify keeps every own key, `__proto__`
 *    included, and JSON.parse reads it back as an own key).
 *  - ownEntry / hasEntry: own-property lookups, for maps that cannot be
 *    opened (the deep-frozen state of a READ) or whose origin is unknown.
 *  - setEntry: stores an entry as an own property on any object.
 *
 * A `Map` is the other safe choice, for maps that never go to JSON state.
 */

/** A record keyed by caller input. */
export type InputRecord<T> = Record<string, T>;

/**
 * The record made safe for keys from input: `record` itself with its
 * prototype removed (state of a write), a null-prototype copy when it cannot
 * be changed (frozen), or a new empty null-prototype record when absent.
 */
export function openRecord<T>(record: InputRecord<T> | null | undefined): InputRecord<T> {
  if (record === null || record === undefined) return Object.create(null) as InputRecord<T>;
  if (Object.getPrototypeOf(record) === null) return record;
  if (Object.isExtensible(record)) {
    Object.setPrototypeOf(record, null);
    return record;
  }
  const copy = Object.create(null) as InputRecord<T>;
  for (const key of Object.keys(record)) copy[key] = record[key]!;
  return copy;
}

/** Whether `key` is an own entry of the record (never an inherited property). */
export function hasEntry(record: Readonly<InputRecord<unknown>> | null | undefined, key: string): boolean {
  return record !== null && record !== undefined && Object.prototype.hasOwnProperty.call(record, key);
}

/** The record's own entry for `key`, or undefined (never an inherited property such as `constructor`). */
export function ownEntry<T>(record: Readonly<InputRecord<T>> | null | undefined, key: string): T | undefined {
  return hasEntry(record, key) ? record![key] : undefined;
}

/** Stores `value` as the record's own entry `key`, even for `__proto__` on a plain object. */
export function setEntry<T>(record: InputRecord<T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}
