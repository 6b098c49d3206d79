/**
 * What listings share (spec 8: 1 to 100 per page). A listing's input is
 * checked by its method's schema (a GET query coerced to it by the runtime);
 * here are the page answer, the listed document, the refusal's problems and
 * the search literal.
 */

export const MAX_PAGE_SIZE = 100;

export interface FieldProblem {
  field: string;
  reason: string;
}

/** What a listing asks the document store for, from its checked input: the filter, the order and the page. */
export interface ListingQuery {
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  page: number;
  limit: number;
  skip: number;
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

/**
 * A reason that only says a filter taking one value or a list is neither
 * (`must be string`, `must be array`, `must match a schema in anyOf`): the
 * value's own problem (`must be one of: ...`) says more.
 */
function isShapeReason(reason: string): boolean {
  return /^must (be (string|array)$|match a schema in anyOf)/.test(reason);
}

/**
 * A listing's refused input (its schema's problems) with one reason a filter:
 * a listing's filters are top-level, so an item of a list (`status.0`) is its
 * filter's problem, and a filter that takes one value or a list, failing both
 * ways, keeps the reason that says what it takes.
 */
export function listingProblems(errors: readonly FieldProblem[]): FieldProblem[] {
  const byField = new Map<string, FieldProblem>();
  for (const e of errors) {
    const field = e.field.split('.')[0];
    const held = byField.get(field);
    if (!held || (isShapeReason(held.reason) && !isShapeReason(e.reason)))
      byField.set(field, { field, reason: e.reason });
  }
  return [...byField.values()];
}

/** The problems of a refused input as one line for an error message: `field reason; field reason`. */
export function problemsText(problems: readonly FieldProblem[]): string {
  return problems.map((p) => `${p.field} ${p.reason}`).join('; ');
}

/** longest filter text accepted */
export const MAX_FILTER_TEXT = 200;

/** A search term as a literal for a `$regex` filter (every regex metacharacter escaped). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
