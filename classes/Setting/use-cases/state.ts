/**
 * setState: replaces whole groups (migration, restore), checked like single
 * changes (unique ids, names, identifiers, mappings, references), refused
 * while any approval is pending, through the approval-gated change
 * (`setting_update`, group `all`). For the system identity and developers only.
 */
import { actorFromIdentity } from '../../_platform/actor';
import { logChange } from '../../_platform/audit-log';
import { refuseWhilePending, requestGatedChange } from '../../_platform/gated-change';
import { assertDeveloperOrSystem } from '../../_platform/privileged';
import { settingError } from '../errors';
import { asEntity, fromEntity, pendingKey, stateProblems } from '../rules';
import { LIST_GROUPS, type SetStateInput, type SettingGroups } from '../types';
import { APPROVAL_CALLBACK, now, SETTING_EVENTS, SETTING_INSTANCE, writable, type SettingCtx } from './common';

export async function setState(ctx: SettingCtx<SetStateInput>) {
  assertDeveloperOrSystem(ctx, 'Setting.setState', (message, details) =>
    settingError('SETTING_DEVELOPER_ONLY', message, details),
  );
  const state = writable(ctx);
  const waiting = Object.entries(state.pendingApprovals);
  // the whole state waits while any of its records (or itself) waits for an approval
  const whileAnyPending = () =>
    settingError('SETTING_APPROVAL_PENDING', `${waiting.length} setting change(s) wait for approval`, {
      pending: Object.fromEntries(waiting),
    });
  const pendingApprovalId = waiting[0]?.[1];
  refuseWhilePending(pendingApprovalId, whileAnyPending);

  const { groups: given } = ctx.request.body;
  const at = now();
  const actor = actorFromIdentity(ctx.identity);
  const next = JSON.parse(JSON.stringify(state.groups)) as SettingGroups;
  for (const group of LIST_GROUPS) {
    const g = given[group];
    if (!g) continue;
    const value = g.value.map((v) => ({
      ...v,
      createdBy: v.createdBy ?? actor,
      createdAt: v.createdAt ?? at,
      updatedAt: v.updatedAt ?? at,
    }));
    // records from input, checked as a whole by stateProblems below before anything is stored
    (next as unknown as Record<string, unknown>)[group] = {
      title: g.title ?? next[group].title,
      description: g.description ?? next[group].description,
      value,
    };
  }
  if (given.tierConfig) {
    const g = given.tierConfig;
    next.tierConfig = {
      title: g.title ?? next.tierConfig.title,
      description: g.description ?? next.tierConfig.description,
      value: g.value,
    };
  }
  const problems = stateProblems(next);
  if (problems.length)
    throw settingError('SETTING_INVALID_STATE', `The settings break ${problems.length} rule(s)`, { errors: problems });

  const change = await requestGatedChange(ctx, {
    event: SETTING_EVENTS.update,
    entityId: SETTING_INSTANCE,
    oldEntity: asEntity('all', { groups: state.groups }),
    newEntity: asEntity('all', { groups: next }),
    pendingApprovalId,
    whilePending: whileAnyPending,
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
    additionalData: { group: 'all' },
  });
  if (change.applied) {
    const before = state.groups;
    state.groups = fromEntity<{ groups: SettingGroups }>(change.entity).groups;
    await logChange(ctx, {
      entityType: 'settings',
      entityId: SETTING_INSTANCE,
      before: { ...before },
      after: { ...state.groups },
      additionalData: { group: 'all', approvalId: change.approvalRecord.id },
    });
  } else {
    state.pendingApprovals[pendingKey('all', SETTING_INSTANCE)] = change.approvalId;
  }
  return { groups: state.groups, approval: change.approval };
}
