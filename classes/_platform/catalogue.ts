/**
 * The rules the whole benefit catalogue shares (BenefitCategory and Offer):
 * record ids, the sheet's comma-separated columns as lists, blank texts, ISO
 * 8601 instants. No I/O; unit-tested in test/_platform/catalogue-rules.test.ts.
 */
import type { FieldError } from '../../runtime';

/** what may name a category or an offer (its instance id): letters, digits, `_ . -`, up to 100 */
export const CATALOGUE_ID = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * The id of a new record: the instance's (the path's, else the body's `id`,
 * else a UUID the runtime chose) must be a catalogue id, and a body `id` must
 * be that id.
 */
export function idProblems(instanceId: string, bodyId: string | undefined): FieldError[] {
  if (bodyId !== undefined && bodyId !== instanceId)
    return [{ field: 'id', reason: `must be the instance id of the path (${instanceId})` }];
  if (!CATALOGUE_ID.test(instanceId)) return [{ field: 'id', reason: 'must be 1 to 100 letters, digits, _ . or -' }];
  return [];
}

/**
 * A sheet column that is a comma-separated list (subcategories, keywords,
 * images, categoryIds), as a list: each item trimmed, not blank, without a
 * comma (the sheet could not hold it), and given once (case-insensitively
 * unless `caseSensitive`). Problems name the item (`field.i`).
 */
export function textList(
  values: readonly string[],
  field: string,
  opts: { caseSensitive?: boolean } = {},
): { list: string[]; problems: FieldError[] } {
  const list: string[] = [];
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  values.forEach((raw, i) => {
    const v = raw.trim();
    const key = opts.caseSensitive ? v : v.toLowerCase();
    if (!v) problems.push({ field: `${field}.${i}`, reason: 'must not be blank' });
    else if (v.includes(','))
      problems.push({
        field: `${field}.${i}`,
        reason: 'must not contain a comma (the sheet separates the list with commas)',
      });
    else if (seen.has(key)) problems.push({ field: `${field}.${i}`, reason: `'${v}' is given twice` });
    else {
      seen.add(key);
      list.push(v);
    }
  });
  return { list, problems };
}

/** A trimmed text that must not be blank (the schema bounds its length). */
export function requiredText(value: string, field: string, problems: FieldError[]): string {
  const v = value.trim();
  if (!v) problems.push({ field, reason: 'must not be blank' });
  return v;
}

/** An ISO 8601 date-time with a zone (or a date: midnight UTC) as a UTC instant string; undefined when it is not one. */
export function isoInstant(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/i.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined; // years 0000-9999: instants compare as strings
}

/** `a` and `b` hold the same values (JSON-equal). */
export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
