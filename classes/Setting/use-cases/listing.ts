/** The list methods: records from the `settings` collection of the document store (query rules in listing-rules.ts). */
import { pageOf, settingListQuery, type SettingListInput } from '../listing-rules';
import { SETTINGS_COLLECTION } from '../rules';
import type { ListGroup } from '../types';
import { guardSingleton, type SettingReadCtx } from './common';

/** `list` is one group (its own records only) or listSettings (every group, optional `group` filter). */
export async function listValues(ctx: SettingReadCtx<SettingListInput>, list: ListGroup | 'listSettings') {
  guardSingleton(ctx);
  const q = settingListQuery(list, ctx.request.body);
  const { items, total } = await ctx.documents.find<Record<string, unknown>>(SETTINGS_COLLECTION, q.filter, {
    sort: q.sort,
    skip: q.skip,
    limit: q.limit,
  });
  return pageOf(items, total, q);
}
