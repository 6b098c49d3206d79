/**
 * List parameters → a document-store query on collection `settings`. Pure:
 * takes the list's input as its schema validated it (names, values, paging,
 * search length: schemas/Setting/list*.json) and answers the
 * filter/sort/page, or throws a 400 SETTING_INVALID_QUERY with
 * details.errors [{field, reason}] for filters that contradict each other.
 */
import type { FieldError, ListingSpec } from '../../runtime';
import type {
  ListCompanyGroupsInput,
  ListMemberSubTypesInput,
  ListMemberTypesInput,
  ListSettingsInput,
  ListTierTypesInput,
} from '../../schemas/Setting/inputs';
import { escapeRegex, listedDocument, pageInfo, problemsText, type ListingQuery } from '../_platform/paging';
import { settingError } from './errors';
import type { ListGroup } from './types';

export const DEFAULT_PAGE_SIZE = 20;

export type ListQuery = ListingQuery;

/** An equality filter a list accepts: the parameter name and the document field (its values: the list's schema). */
export interface FilterSpec {
  param: string;
  field: string;
}

const STATUS: FilterSpec = { param: 'status', field: 'status' };

/** The filters of each list method besides status, search and paging. */
export const LIST_FILTERS: Record<'listSettings' | ListGroup, FilterSpec[]> = {
  listSettings: [STATUS, { param: 'group', field: 'group' }],
  companyGroups: [STATUS, { param: 'type', field: 'type' }],
  memberTypes: [STATUS],
  memberSubTypes: [STATUS, { param: 'memberTypeId', field: 'memberTypeId' }],
  // spec 4.5 "listTierTypes (filter by group and status)": `tierGroup`, or `group` for short
  tierTypes: [STATUS, { param: 'tierGroup', field: 'tierGroup' }, { param: 'group', field: 'tierGroup' }],
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

/** the input of any list method, as its schema validated it */
export type SettingListInput =
  ListSettingsInput | ListCompanyGroupsInput | ListMemberTypesInput | ListMemberSubTypesInput | ListTierTypesInput;

/** The refusal of a bad READ input, by its schema or a rule (400 10028, each field and reason). */
export function invalidSettingQuery(errors: FieldError[], what = 'list parameters') {
  return settingError('SETTING_INVALID_QUERY', `Invalid ${what}: ${problemsText(errors)}`, { errors });
}

/**
 * The query of a list: `list` is a group (its own records only) or
 * 'listSettings' (every group, optional `group` filter). Defaults page 1 and
 * 20 a page; the search is trimmed (blank: none).
 */
export function settingListQuery(list: 'listSettings' | ListGroup, input: SettingListInput): ListQuery {
  const given = input as Readonly<Record<string, unknown>>;
  const filter: Record<string, unknown> = list === 'listSettings' ? {} : { group: list };
  const errors: FieldError[] = [];
  for (const spec of LIST_FILTERS[list]) {
    const v = given[spec.param];
    if (v === undefined) continue;
    if (filter[spec.field] !== undefined && filter[spec.field] !== v) {
      errors.push({ field: spec.param, reason: `contradicts another filter on ${spec.field}` });
    } else filter[spec.field] = v;
  }
  if (errors.length) throw invalidSettingQuery(errors);
  const page = input.page ?? 1;
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const search = input.search?.trim();
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
