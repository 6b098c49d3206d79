/**
 * List parameters → a document-store query on collection `settings`. Pure:
 * takes the query-string and body parameters (body wins), answers the
 * filter/sort/page or throws a 400 SETTING_INVALID_QUERY with
 * details.errors [{field, reason}]. Paging (page ≥ 1, limit 1-100) and the
 * search text are the platform's listing input (classes/_platform/paging.ts).
 */
import type { ListingSpec } from '../../runtime';
import {
  escapeRegex,
  type FieldProblem,
  listedDocument,
  pageInfo,
  parsePaging,
  problemsText,
  textOf,
} from '../_platform/paging';
import { settingError } from './errors';
import { LIST_GROUPS, TIER_GROUPS, type ListGroup } from './types';

export const DEFAULT_PAGE_SIZE = 20;

export interface ListQuery {
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  page: number;
  limit: number;
  skip: number;
}

/** An equality filter a list accepts: the parameter name, the document field, and the values allowed (any string when absent). */
export interface FilterSpec {
  param: string;
  field: string;
  values?: readonly string[];
}

const STATUS: FilterSpec = { param: 'status', field: 'status', values: ['pending', 'active', 'inactive'] };

/** The filters of each list method besides status, search and paging. */
export const LIST_FILTERS: Record<'listSettings' | ListGroup, FilterSpec[]> = {
  listSettings: [STATUS, { param: 'group', field: 'group', values: LIST_GROUPS }],
  companyGroups: [STATUS, { param: 'type', field: 'type', values: ['internal', 'external'] }],
  memberTypes: [STATUS],
  memberSubTypes: [STATUS, { param: 'memberTypeId', field: 'memberTypeId' }],
  // spec 4.5 "listTierTypes (filter by group and status)": `tierGroup`, or `group` for short
  tierTypes: [
    STATUS,
    { param: 'tierGroup', field: 'tierGroup', values: TIER_GROUPS },
    { param: 'group', field: 'tierGroup', values: TIER_GROUPS },
  ],
};

const SEARCH_FIELDS = ['name', 'description', 'systemIdentifier', 'hrmsMapping'];

/**
 * Every list of settings, by name then id: a group's records (every list but listSettings is one), by
 * status or tier group within it, or listSettings over all groups, off an index in that order
 */
export const LIST_SETTINGS: ListingSpec = {
  name: 'listSettings',
  sort: { nameKey: 1, id: 1 },
  filterSets: [[], ['group'], ['group', 'status'], ['group', 'tierGroup']],
};

/**
 * The query of a list: `list` is a group (its own records only) or
 * 'listSettings' (every group, optional `group` filter).
 */
export function parseSettingListQuery(
  list: 'listSettings' | ListGroup,
  query: Record<string, unknown>,
  body: Record<string, unknown>,
): ListQuery {
  const input: Record<string, unknown> = { ...query, ...body };
  const specs = LIST_FILTERS[list];
  const known = new Set(['page', 'limit', 'search', ...specs.map((s) => s.param)]);
  const errors: FieldProblem[] = [];
  for (const key of Object.keys(input)) if (!known.has(key)) errors.push({ field: key, reason: 'is not allowed' });

  const filter: Record<string, unknown> = list === 'listSettings' ? {} : { group: list };
  for (const spec of specs) {
    const v = input[spec.param];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length === 0 || v.length > 200) {
      errors.push({ field: spec.param, reason: 'must be a string of 1 to 200 characters' });
    } else if (spec.values && !spec.values.includes(v)) {
      errors.push({ field: spec.param, reason: `must be one of: ${spec.values.join(', ')}` });
    } else if (filter[spec.field] !== undefined && filter[spec.field] !== v) {
      errors.push({ field: spec.param, reason: `contradicts another filter on ${spec.field}` });
    } else filter[spec.field] = v;
  }
  const { page, limit } = parsePaging(input, errors, DEFAULT_PAGE_SIZE);
  const search = textOf(input, 'search', errors)?.trim();
  if (errors.length) {
    throw settingError('SETTING_INVALID_QUERY', `Invalid list parameters: ${problemsText(errors)}`, { errors });
  }
  if (search) {
    const regex = { $regex: escapeRegex(search), $options: 'i' };
    filter.$or = SEARCH_FIELDS.map((field) => ({ [field]: regex }));
  }
  return { filter, sort: { ...LIST_SETTINGS.sort }, page, limit, skip: (page - 1) * limit };
}

/** A listed document without the store's bookkeeping fields. */
export function listedItem(doc: Record<string, unknown>): Record<string, unknown> {
  return listedDocument(doc, ['nameKey']);
}

export function pageOf(items: Record<string, unknown>[], total: number, q: Pick<ListQuery, 'page' | 'limit'>) {
  return { items: items.map(listedItem), ...pageInfo(total, q.page, q.limit) };
}
