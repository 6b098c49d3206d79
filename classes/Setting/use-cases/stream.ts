/** stream<Record>: manual stream; a committed change of the instance re-projects every record. */
import { requireValue, SETTINGS_COLLECTION } from '../rules';
import type { StreamValueInput } from '../../../schemas/Setting/inputs';
import type { ListGroup } from '../types';
import { now, writable, type SettingCtx } from './common';

export function streamValue(ctx: SettingCtx<StreamValueInput>, group: ListGroup) {
  const state = writable(ctx);
  const { id } = ctx.request.body;
  requireValue(state.groups, group, id);
  state.lastStreamed = { group, id, at: now() };
  return { streamed: true, group, id, collection: SETTINGS_COLLECTION, documentId: `${group}:${id}` };
}
