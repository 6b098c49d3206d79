/** setPaymentPeriods: replaces the payment periods of the tier configuration (keys unique); `setting_update`, group `tierConfig`. */
import { logChange } from '../../_platform/audit-log';
import { refuseWhilePending, requestGatedChange } from '../../_platform/gated-change';
import { asEntity, checkPaymentPeriods, fromEntity, pendingKey } from '../rules';
import type { SetPaymentPeriodsInput } from '../../../schemas/Setting/inputs';
import type { TierConfig } from '../types';
import { APPROVAL_CALLBACK, pendingOf, SETTING_EVENTS, whilePending, writable, type SettingCtx } from './common';

const TIER_CONFIG = 'tierConfig';

export async function setPaymentPeriods(ctx: SettingCtx<SetPaymentPeriodsInput>) {
  const state = writable(ctx);
  const pendingApprovalId = pendingOf(state, TIER_CONFIG, TIER_CONFIG);
  // the waiting configuration is refused before the periods are judged
  refuseWhilePending(pendingApprovalId, whilePending(TIER_CONFIG, TIER_CONFIG));
  const paymentPeriods = checkPaymentPeriods(ctx.request.body.paymentPeriods);
  const old = state.groups.tierConfig.value;
  const change = await requestGatedChange(ctx, {
    event: SETTING_EVENTS.update,
    entityId: TIER_CONFIG,
    oldEntity: asEntity(TIER_CONFIG, old),
    newEntity: asEntity(TIER_CONFIG, { paymentPeriods }),
    pendingApprovalId,
    whilePending: whilePending(TIER_CONFIG, TIER_CONFIG),
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
    additionalData: { group: TIER_CONFIG },
  });
  if (change.applied) {
    state.groups.tierConfig.value = fromEntity<TierConfig>(change.entity);
    await logChange(ctx, {
      entityType: TIER_CONFIG,
      entityId: TIER_CONFIG,
      before: { ...old },
      after: { ...state.groups.tierConfig.value },
      additionalData: { group: TIER_CONFIG, approvalId: change.approvalRecord.id },
    });
  } else {
    state.pendingApprovals[pendingKey(TIER_CONFIG, TIER_CONFIG)] = change.approvalId;
  }
  return { paymentPeriods: state.groups.tierConfig.value.paymentPeriods, approval: change.approval };
}
