/** The singleton's creation (init) and the creation of a record of a list group (create<Record>). */
import { randomUUID } from 'node:crypto';
import { actorFromIdentity } from '../../_platform/actor';
import { logChange } from '../../_platform/audit-log';
import { requestGatedChange } from '../../_platform/gated-change';
import {
  asEntity,
  buildValue,
  checkPaymentPeriods,
  checkValue,
  emptySettingState,
  fromEntity,
  pendingKey,
  valueView,
  type ValueInput,
} from '../rules';
import type { InitInput } from '../../../schemas/Setting/inputs';
import type { ListGroup, SettingValue } from '../types';
import {
  APPROVAL_CALLBACK,
  now,
  replaceValue,
  SETTING_EVENTS,
  whilePending,
  writable,
  type SettingCtx,
} from './common';

/** Creates the singleton (instance `default`) with empty groups and the default payment periods (or the given ones). */
export function init(ctx: SettingCtx<InitInput>) {
  const { paymentPeriods } = ctx.request.body;
  Object.assign(ctx.state.private, emptySettingState(paymentPeriods ? checkPaymentPeriods(paymentPeriods) : undefined));
  return { id: ctx.instanceId, groups: ctx.state.private.groups };
}

/**
 * A new record, stored with its group's initial status (or as the workflow
 * approved it at once) and audit-logged either way.
 */
export async function createValue(ctx: SettingCtx<ValueInput>, group: ListGroup) {
  const state = writable(ctx);
  const input = ctx.request.body;
  const record = buildValue(group, input, actorFromIdentity(ctx.identity), now(), input.id ?? randomUUID());
  checkValue(state.groups, group, record, { isNew: true });
  const change = await requestGatedChange(ctx, {
    event: SETTING_EVENTS.create,
    entityId: record.id,
    oldEntity: null,
    newEntity: asEntity(group, record),
    // a new record waits for nothing yet
    pendingApprovalId: null,
    whilePending: whilePending(group, record.id),
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
    additionalData: { group },
  });
  const stored = change.applied ? fromEntity<SettingValue>(change.entity) : record;
  replaceValue(state, group, stored);
  if (!change.applied) state.pendingApprovals[pendingKey(group, record.id)] = change.approvalId;
  await logChange(ctx, {
    entityType: group,
    entityId: record.id,
    before: null,
    after: { ...stored },
    additionalData: { group, approvalId: change.approvalRecord.id },
  });
  ctx.response.status = 201;
  return { item: valueView(state, group, stored), approval: change.approval, newStatus: change.newStatus };
}
