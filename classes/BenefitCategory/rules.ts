/**
 * BenefitCategory's pure rules, and the list and id rules the whole benefit
 * catalogue shares (Offer uses them too): ids, the sheet's comma-separated
 * columns as lists, ISO 8601 instants; building and changing a category, its
 * status moves, the streamed document, the listing's query and filter, and
 * the entries of listActiveCategories. No I/O; unit-tested in
 * test/catalogue/rules.test.ts.
 */
import type { DeepReadonly, FieldError, ListingSpec } from '../../runtime';
import {
  escapeRegex,
  MAX_FILTER_TEXT,
  oneOf,
  parsePaging,
  textOf,
  unknownKeys,
  type FieldProblem,
} from '../_platform/paging';
import {
  CATEGORY_STATUSES,
  type ActiveCategory,
  type BenefitCategoryRecord,
  type CategoryStatus,
  type CreateCategoryInput,
  type UpdateCategoryInput,
} from './types';

// ---------------------------------------------------------------- catalogue-wide rules

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

// ---------------------------------------------------------------- categories

/** A new category from createCategory's body (`problems`: what the schema cannot judge). */
export function buildCategory(
  input: CreateCategoryInput,
  id: string,
  now: string,
): { category: BenefitCategoryRecord; problems: FieldError[] } {
  const problems: FieldError[] = [];
  const name = requiredText(input.name, 'name', problems);
  const subcategories = textList(input.subcategories ?? [], 'subcategories');
  const keywords = textList(input.keywords ?? [], 'keywords');
  problems.push(...subcategories.problems, ...keywords.problems);
  return {
    category: {
      id,
      name,
      subcategories: subcategories.list,
      keywords: keywords.list,
      status: input.status ?? 'active',
      createdAt: now,
      updatedAt: now,
    },
    problems,
  };
}

const UPDATABLE = ['name', 'subcategories', 'keywords'] as const;

/** The category after updateCategory's body; `changed` lists the fields that differ (none: `next` is the current one). */
export function applyCategoryUpdate(
  current: DeepReadonly<BenefitCategoryRecord>,
  input: UpdateCategoryInput,
  now: string,
): { next: BenefitCategoryRecord; changed: string[]; problems: FieldError[] } {
  const base: BenefitCategoryRecord = JSON.parse(JSON.stringify(current));
  const problems: FieldError[] = [];
  const next: BenefitCategoryRecord = { ...base };
  if (input.name !== undefined) next.name = requiredText(input.name, 'name', problems);
  if (input.subcategories !== undefined) {
    const l = textList(input.subcategories, 'subcategories');
    next.subcategories = l.list;
    problems.push(...l.problems);
  }
  if (input.keywords !== undefined) {
    const l = textList(input.keywords, 'keywords');
    next.keywords = l.list;
    problems.push(...l.problems);
  }
  const changed = UPDATABLE.filter((f) => !same(next[f], current[f]));
  if (problems.length || !changed.length) return { next: base, changed: [], problems };
  return { next: { ...next, updatedAt: now }, changed: [...changed], problems };
}

/** updateCategoryStatus: `active` ↔ `inactive`; the same status is no move. */
export function categoryStatusMove(
  from: CategoryStatus,
  to: string,
): { ok: true; to: CategoryStatus } | { ok: false; reason: string } {
  if (!(CATEGORY_STATUSES as readonly string[]).includes(to))
    return { ok: false, reason: `status must be one of ${CATEGORY_STATUSES.join(', ')}` };
  if (from === to) return { ok: false, reason: `the category is already ${to}` };
  return { ok: true, to: to as CategoryStatus };
}

// ---------------------------------------------------------------- stream and listing

export const CATEGORIES_COLLECTION = 'benefitCategories';

/** the streamed document's own columns, never answered */
export const CATEGORY_HIDDEN_COLUMNS = ['search', 'sortName'];

/** The streamed document: the category, its lower-cased name (the order) and a search column (name, subcategories, keywords). */
export function categoryDocument(c: DeepReadonly<BenefitCategoryRecord>): Record<string, unknown> {
  return {
    ...(JSON.parse(JSON.stringify(c)) as BenefitCategoryRecord),
    sortName: c.name.toLowerCase(),
    search: [c.name, ...c.subcategories, ...c.keywords].join('\n').toLowerCase(),
  };
}

export const DEFAULT_PAGE_SIZE = 20;
const LIST_KEYS = ['status', 'search', 'page', 'limit'];

export interface CategoryListQuery {
  page: number;
  limit: number;
  status?: CategoryStatus;
  search?: string;
}

/** listCategories' body or query: status, search (name, subcategory, keyword), page from 1, limit 1-100 (default 20). */
export function parseCategoryListQuery(
  raw: Record<string, unknown>,
): { ok: true; query: CategoryListQuery } | { ok: false; errors: FieldProblem[] } {
  const errors: FieldProblem[] = [];
  unknownKeys(raw, LIST_KEYS, errors);
  const { page, limit } = parsePaging(raw, errors, DEFAULT_PAGE_SIZE);
  const status = oneOf(raw, 'status', CATEGORY_STATUSES, errors);
  const search = textOf(raw, 'search', errors)?.trim();
  if (errors.length) return { ok: false, errors };
  return { ok: true, query: { page, limit, ...(status ? { status } : {}), ...(search ? { search } : {}) } };
}

/** MongoDB filter of a listing; search: a case-insensitive literal in the name, a subcategory or a keyword. */
export function buildCategoryListFilter(q: Pick<CategoryListQuery, 'status' | 'search'>): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  if (q.status) and.push({ status: q.status });
  if (q.search) and.push({ search: { $regex: escapeRegex(q.search.toLowerCase().slice(0, MAX_FILTER_TEXT)) } });
  return and.length ? { $and: and } : {};
}

/** the order of every category listing: by name, then id */
export const CATEGORY_ORDER = { sortName: 1, _id: 1 } as const;

/** listCategories and listActiveCategories: all, or by status, off an index in that order */
export const LIST_CATEGORIES: ListingSpec = {
  name: 'listCategories',
  sort: { ...CATEGORY_ORDER },
  filterSets: [[], ['status']],
};

/** One entry of listActiveCategories from a streamed document. */
export function activeCategory(doc: Record<string, unknown>): ActiveCategory {
  return {
    id: String(doc.id),
    name: String(doc.name),
    subcategories: Array.isArray(doc.subcategories) ? doc.subcategories.map(String) : [],
  };
}
