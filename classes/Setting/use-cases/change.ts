/**
 * A change of an existing record (setting_update, setting_status_update)
 * through the platform's approval-gated change: refused while the record
 * waits for an approval, applied now when the workflow approves it at once
 * (and audit-logged), otherwise held until approveSetting settles it.
 */
import { logChange } from '../../_platform/audit-log';
import { requestGatedChange } from '../../_platform/gated-change';
import { asEntity, fromEntity, pendingKey, valueView } from '../rules';
import type { ListGroup, SettingState, SettingValue } from '../types';
import { APPROVAL_CALLBACK, pendingOf, replaceValue, whilePending, type SettingCtx } from './common';

export async function changeValue(
  ctx: SettingCtx<unknown>,
  state: SettingState,
  group: ListGroup,
  event: string,
  old: SettingValue,
  requested: SettingValue,
) {
  const change = await requestGatedChange(ctx, {
    event,
    entityId: old.id,
    oldEntity: asEntity(group, old),
    newEntity: asEntity(group, requested),
    pendingApprovalId: pendingOf(state, group, old.id),
    whilePending: whilePending(group, old.id),
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
    additionalData: { group },
  });
  let current = old;
  if (change.applied) {
    current = fromEntity<SettingValue>(change.entity);
    replaceValue(state, group, current);
    await logChange(ctx, {
      entityType: group,
      entityId: old.id,
      before: { ...old },
      after: { ...current },
      additionalData: { group, approvalId: change.approvalRecord.id },
    });
  } else {
    state.pendingApprovals[pendingKey(group, old.id)] = change.approvalId;
  }
  return { item: valueView(state, group, current), approval: change.approval, newStatus: change.newStatus };
}
