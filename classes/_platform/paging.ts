/** Paging of listings (spec 8: 1 to 100 per page), from a POST body or a GET query (strings). */

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
    if (n === undefined || n < 1 || n > max) errors.push({ field: 'limit', reason: `must be an integer from 1 to ${max}` });
    else out.limit = n;
  }
  return out;
}

/** `{page, limit, totalPages}` of a listing answer. */
export function pageInfo(total: number, page: number, limit: number) {
  return { totalCount: total, page, limit, totalPages: Math.ceil(total / limit) };
}
