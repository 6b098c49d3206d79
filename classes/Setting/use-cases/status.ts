/** update<Record>Status: active or inactive (setting_status_update; spec 2.4). */
import { refuseWhilePending } from '../../_platform/gated-change';
import { checkStatusMove, requireValue } from '../rules';
import type { UpdateStatusInput } from '../../../schemas/Setting/inputs';
import type { ListGroup, SettingValue } from '../types';
import { changeValue } from './change';
import { now, pendingOf, SETTING_EVENTS, whilePending, writable, type SettingCtx } from './common';

export async function updateValueStatus(ctx: SettingCtx<UpdateStatusInput>, group: ListGroup) {
  const state = writable(ctx);
  const { id, status } = ctx.request.body;
  const old = requireValue(state.groups, group, id);
  // a waiting record is refused before the status is judged (409 10025 whatever the target)
  refuseWhilePending(pendingOf(state, group, old.id), whilePending(group, old.id));
  const target = checkStatusMove(group, old.id, old.status, status);
  const requested: SettingValue = { ...old, status: target, updatedAt: now() };
  return changeValue(ctx, state, group, SETTING_EVENTS.status, old, requested);
}
