/**
 * What Setting's use cases share: the singleton's instance and events, the
 * handlers' context types, the state to write or read, parameters, the
 * approval a record waits for and the refusal while it waits.
 */
import type { BaseCtx, Ctx, DeepReadonly, ReadCtx } from '../../../runtime';
import { openRecord, ownEntry } from '../../_platform/records';
import { settingError } from '../errors';
import { emptySettingState, GROUP_INFO, pendingKey, valuesOf } from '../rules';
import type { ListGroup, SettingClassState, SettingGroup, SettingState, SettingValue } from '../types';

export const SETTING_INSTANCE = 'default';
export const SETTING_EVENTS = {
  create: 'setting_create',
  update: 'setting_update',
  status: 'setting_status_update',
} as const;
/** the approval callback of every Setting event (approve and reject) */
export const APPROVAL_CALLBACK = 'approveSetting';

/** a Setting write's context: the singleton's state, and the method's body `I` */
export type SettingCtx<I = Record<string, never>> = Ctx<SettingClassState, I>;
/** a Setting READ's context */
export type SettingReadCtx<I = Record<string, never>> = ReadCtx<SettingClassState, I>;

export const now = () => new Date().toISOString();

export function guardSingleton(ctx: Pick<BaseCtx, 'instanceId'>): void {
  if (ctx.instanceId !== SETTING_INSTANCE) {
    throw settingError(
      'SETTING_SINGLETON_ONLY',
      `Setting is a singleton: call instance '${SETTING_INSTANCE}', not '${ctx.instanceId}'`,
    );
  }
}

/** The state to change (created with the defaults on first use: creating methods upsert the singleton). */
export function writable(ctx: SettingCtx<unknown>): SettingState {
  guardSingleton(ctx);
  const s = ctx.state.private;
  if (!s.groups) Object.assign(s, emptySettingState());
  // keyed by `${group}:${id}` from caller input: a null-prototype record, like every map keyed by input
  s.pendingApprovals = openRecord(s.pendingApprovals);
  return s;
}

/** The state to read (frozen; the defaults before the singleton has any). */
export function readable(ctx: SettingReadCtx<unknown>): DeepReadonly<SettingState> {
  guardSingleton(ctx);
  const s = ctx.state.private;
  return s.groups ? s : emptySettingState();
}

/** A parameter the schema leaves optional (a GET may leave it out) that the method needs: 400 10028 naming it when absent or blank. */
export function requiredString(v: string | undefined, name: string): string {
  if (v === undefined || v.trim().length === 0) {
    throw settingError('SETTING_INVALID_QUERY', `${name} is required (a string of 1 to 200 characters)`, {
      errors: [{ field: name, reason: 'is required' }],
    });
  }
  return v;
}

/** The approval a record (or the tier configuration, or the whole state for `all`) waits for. */
export function pendingOf(
  state: Pick<DeepReadonly<SettingState>, 'pendingApprovals'>,
  group: SettingGroup | 'all',
  entityId: string,
): string | undefined {
  return ownEntry(state.pendingApprovals, pendingKey(group, entityId));
}

/** The refusal of a change asked while a record (or the tier configuration) waits for an approval (409 10025). */
export function whilePending(group: SettingGroup, entityId: string) {
  return (approvalId: string) =>
    settingError(
      'SETTING_APPROVAL_PENDING',
      `${GROUP_INFO[group].label} '${entityId}' wait for approval ${approvalId}`,
      { group, id: entityId, approvalId },
    );
}

/** Stores a record of a list group in place (or appends a new one). */
export function replaceValue(state: SettingState, group: ListGroup, value: SettingValue): void {
  const list = valuesOf(state.groups, group);
  const i = list.findIndex((v) => v.id === value.id);
  if (i >= 0) list[i] = value;
  else list.push(value);
}
