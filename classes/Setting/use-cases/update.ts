/** update<Record>: name, description and the group's own updatable fields (setting_update). */
import { refuseWhilePending } from '../../_platform/gated-change';
import { applyValueUpdate, checkValue, requireValue, type ValueUpdateInput } from '../rules';
import type { ListGroup } from '../types';
import { changeValue } from './change';
import { now, pendingOf, SETTING_EVENTS, whilePending, writable, type SettingCtx } from './common';

export async function updateValue(ctx: SettingCtx<ValueUpdateInput>, group: ListGroup) {
  const state = writable(ctx);
  const input = ctx.request.body;
  const old = requireValue(state.groups, group, input.id);
  // a waiting record is refused before its input is judged (409 10025 whatever the update)
  refuseWhilePending(pendingOf(state, group, old.id), whilePending(group, old.id));
  const requested = applyValueUpdate(group, old, input, now());
  checkValue(state.groups, group, requested, { isNew: false });
  return changeValue(ctx, state, group, SETTING_EVENTS.update, old, requested);
}
