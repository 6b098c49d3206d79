/**
 * approveSetting, the approval callback (approve and reject) of every
 * Setting event, settled by the platform's settleGatedChange. Approve: the
 * approved patch is applied to the record (or the tier configuration, or all
 * groups for setState). Reject: nothing changes, except that a record whose
 * creation is rejected becomes `inactive`. An approved change that no longer
 * fits (patch conflict, a name taken meanwhile, a whole state that breaks a
 * rule) is not applied; the record stops waiting and the result says why
 * (code 10027).
 */
import { ActorError } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { settleGatedChange, type SettledChange, type SettleOptions } from '../../_platform/gated-change';
import { PatchConflictError, type ApprovalCallbackBody } from '../../_platform/workflow';
import { SETTING_PATCH_CONFLICT, settingError } from '../errors';
import {
  asEntity,
  checkValue,
  findValue,
  fromEntity,
  GROUP_INFO,
  isSettingGroup,
  pendingKey,
  stateProblems,
  valueView,
} from '../rules';
import type { SettingGroup, SettingGroups, SettingValue, TierConfig } from '../types';
import { now, pendingOf, replaceValue, SETTING_EVENTS, writable, type SettingCtx } from './common';

/** The group a callback names (additionalData.group, as the change put it there), or undefined for anything else. */
function groupOf(value: unknown): SettingGroup | 'all' | undefined {
  return value === 'all' || isSettingGroup(value) ? value : undefined;
}

export async function approveSetting(ctx: SettingCtx<ApprovalCallbackBody>) {
  const state = writable(ctx);
  const body = ctx.request.body;
  const group = groupOf(body.additionalData?.group);
  const key = `${String(body.additionalData?.group)}:${body.entityId}`;
  const mismatch = (waiting: string | null) =>
    settingError('SETTING_APPROVAL_MISMATCH', `Approval ${body.approvalId} is not the one ${key} waits for`, {
      waiting,
    });
  // a callback naming no group of Setting's is not one anything waits for
  if (!group) throw mismatch(null);
  const options: SettleOptions = { pendingApprovalId: pendingOf(state, group, body.entityId), mismatch };

  /** Settles the wait (refusing a callback that is not the awaited one) and ends it. */
  const settle = <T>(entity: T): Exclude<SettledChange<T>, { kind: 'settled' }> => {
    const outcome = settleGatedChange(entity, body, options);
    // Setting keeps no lastSettledApprovalId, so a callback is never 'settled': a second one is a mismatch
    if (outcome.kind === 'settled') throw mismatch(options.pendingApprovalId ?? null);
    delete state.pendingApprovals[pendingKey(group, body.entityId)];
    return outcome;
  };
  const conflict = (reason: string) => {
    ctx.log.warn({ approvalId: body.approvalId, key, reason }, 'approved setting change not applied');
    return { applied: false, action: body.action, code: SETTING_PATCH_CONFLICT, reason };
  };
  const logged = (entityType: string, before: object, after: object) =>
    logChange(ctx, {
      entityType,
      entityId: body.entityId,
      before: { ...before },
      after: { ...after },
      additionalData: { group, approvalId: body.approvalId, action: body.action },
    });
  const unchanged = { applied: false, action: body.action };

  if (group === 'all') {
    const outcome = settle(asEntity('all', { groups: state.groups }));
    if (outcome.kind === 'rejected') return unchanged;
    if (outcome.kind === 'conflict') return conflict(conflictReason(outcome.problems));
    const next = fromEntity<{ groups: SettingGroups }>(outcome.entity).groups;
    const problems = stateProblems(next);
    if (problems.length) return conflict(problems.map((p) => p.reason).join('; '));
    const before = state.groups;
    state.groups = next;
    await logged('settings', before, next);
    return { applied: true, action: body.action };
  }

  if (group === 'tierConfig') {
    const outcome = settle(asEntity('tierConfig', state.groups.tierConfig.value));
    if (outcome.kind === 'rejected') return unchanged;
    if (outcome.kind === 'conflict') return conflict(conflictReason(outcome.problems));
    const before = state.groups.tierConfig.value;
    state.groups.tierConfig.value = fromEntity<TierConfig>(outcome.entity);
    await logged('tierConfig', before, state.groups.tierConfig.value);
    return { applied: true, action: body.action };
  }

  const record = findValue(state.groups, group, body.entityId);
  if (!record) {
    // gone since the change was asked (setState replaced its group): only the wait ends (settled as a
    // reject, which applies nothing; a callback that is not the awaited one is refused like any other)
    settleGatedChange(null, { ...body, action: 'reject' }, options);
    delete state.pendingApprovals[pendingKey(group, body.entityId)];
    return conflict(`${GROUP_INFO[group].label} '${body.entityId}' no longer exists`);
  }
  const outcome = settle(asEntity(group, record));
  let next: SettingValue;
  if (outcome.kind === 'conflict') return conflict(conflictReason(outcome.problems));
  if (outcome.kind === 'approved') {
    next = fromEntity<SettingValue>(outcome.entity);
    try {
      checkValue(state.groups, group, next, { isNew: false });
    } catch (err) {
      if (err instanceof ActorError) return conflict(err.message);
      throw err;
    }
  } else if (body.event === SETTING_EVENTS.create && record.status === 'pending') {
    next = { ...record, status: 'inactive', updatedAt: now() };
  } else {
    return { ...unchanged, item: valueView(state, group, record) };
  }
  replaceValue(state, group, next);
  await logged(group, record, next);
  return { applied: true, action: body.action, item: valueView(state, group, next) };
}

/** The reason an approved patch that no longer applies reports (the platform's PatchConflictError message). */
function conflictReason(problems: string[]): string {
  return new PatchConflictError(problems).message;
}
