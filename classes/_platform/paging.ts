/**
 * Listing input (spec 8: 1 to 100 per page), from a POST body or a GET query
 * (strings, a repeated key as a list): paging and the checks of filter values,
 * each problem appended to `errors` as {field, reason}.
 */
import type { BaseCtx } from '../../runtime';

export const MAX_PAGE_SIZE = 100;

export interface FieldProblem {
  field: string;
  reason: string;
}

function intOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^\d{1,9}$/.test(v)) return Number(v);
  return undefined;
}

/** `page` (from 1) and `limit` (1..max); problems are appended to `errors`. */
export function parsePaging(
  raw: Record<string, unknown>,
  errors: FieldProblem[],
  defaultLimit: number,
  max = MAX_PAGE_SIZE,
): { page: number; limit: number } {
  const out = { page: 1, limit: defaultLimit };
  if (raw.page !== undefined) {
    const n = intOf(raw.page);
    if (n === undefined || n < 1) errors.push({ field: 'page', reason: 'must be an integer >= 1' });
    else out.page = n;
  }
  if (raw.limit !== undefined) {
    const n = intOf(raw.limit);
    if (n === undefined || n < 1 || n > max)
      errors.push({ field: 'limit', reason: `must be an integer from 1 to ${max}` });
    else out.limit = n;
  }
  return out;
}

/** `{page, limit, totalPages}` of a listing answer. */
export function pageInfo(total: number, page: number, limit: number) {
  return { totalCount: total, page, limit, totalPages: Math.ceil(total / limit) };
}

/** the document store's bookkeeping fields on every listed document (runtime StoredDocument) */
const STORE_FIELDS = ['_id', '_v', '_sv', '_instance', '_class'];

/**
 * A listed document as a class answers it: without the store's bookkeeping
 * fields and the class's own search columns (`hidden`, e.g. a lower-cased name).
 */
export function listedDocument(doc: Record<string, unknown>, hidden: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!STORE_FIELDS.includes(k) && !hidden.includes(k)) out[k] = v;
  return out;
}

/** The problems of a refused input as one line for an error message: `field reason; field reason`. */
export function problemsText(problems: readonly FieldProblem[]): string {
  return problems.map((p) => `${p.field} ${p.reason}`).join('; ');
}

/** A GET query and a POST body together (the body wins; a body that is no object adds nothing). */
export function listingInput(ctx: Pick<BaseCtx, 'request'>): Record<string, unknown> {
  const body: unknown = ctx.request.body;
  const fields = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  return { ...(ctx.request.query ?? {}), ...fields };
}

/** longest filter text accepted */
export const MAX_FILTER_TEXT = 200;

/** a value given in a query or body ('' counts as not given) */
function given(raw: Record<string, unknown>, k: string): boolean {
  return raw[k] !== undefined && raw[k] !== null && raw[k] !== '';
}

/** every key not in `known` is a problem */
export function unknownKeys(raw: Record<string, unknown>, known: readonly string[], errors: FieldProblem[]): void {
  for (const k of Object.keys(raw)) if (!known.includes(k)) errors.push({ field: k, reason: 'is not allowed' });
}

/** one value of a fixed set */
export function oneOf<T extends string>(
  raw: Record<string, unknown>,
  k: string,
  allowed: readonly T[],
  errors: FieldProblem[],
): T | undefined {
  if (!given(raw, k)) return undefined;
  if ((allowed as readonly unknown[]).includes(raw[k])) return raw[k] as T;
  errors.push({ field: k, reason: `must be one of: ${allowed.join(', ')}` });
  return undefined;
}

/** one string, or a list of strings (a GET query repeats the key), each short and, with `allowed`, one of them: no query operators */
export function stringOrList(
  raw: Record<string, unknown>,
  k: string,
  errors: FieldProblem[],
  allowed?: readonly string[],
): string | string[] | undefined {
  if (!given(raw, k)) return undefined;
  const v = raw[k];
  const list = Array.isArray(v) ? v : [v];
  const ok =
    list.length > 0 &&
    list.length <= MAX_PAGE_SIZE &&
    list.every(
      (x) => typeof x === 'string' && x.length > 0 && x.length <= MAX_FILTER_TEXT && (!allowed || allowed.includes(x)),
    );
  if (ok) return v as string | string[];
  errors.push({
    field: k,
    reason: allowed
      ? `must be one of (or a list of): ${allowed.join(', ')}`
      : `must be a string of 1 to ${MAX_FILTER_TEXT} characters, or a list of them`,
  });
  return undefined;
}

/** true / false, or the strings 'true' / 'false' of a GET query */
export function booleanOf(raw: Record<string, unknown>, k: string, errors: FieldProblem[]): boolean | undefined {
  if (!given(raw, k)) return undefined;
  const v = raw[k];
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  errors.push({ field: k, reason: 'must be true or false' });
  return undefined;
}

/** one string of at most MAX_FILTER_TEXT characters */
export function textOf(raw: Record<string, unknown>, k: string, errors: FieldProblem[]): string | undefined {
  if (!given(raw, k)) return undefined;
  const v = raw[k];
  if (typeof v === 'string' && v.length <= MAX_FILTER_TEXT) return v;
  errors.push({ field: k, reason: `must be a string of at most ${MAX_FILTER_TEXT} characters` });
  return undefined;
}

/** A search term as a literal for a `$regex` filter (every regex metacharacter escaped). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
