/**
 * The reads of the singleton's state: one group, one record by id, the HR
 * look-ups (member type by systemIdentifier, member sub type by relation),
 * the payment periods and the active configuration. Parameters come from
 * the body or the query string, as the method's schema validated them.
 */
import type { DeepReadonly } from '../../../runtime';
import { settingError } from '../errors';
import {
  activeConfig,
  findMemberSubTypeByRelation,
  // the rule; the handler below has the method's name
  findMemberTypeBySystemIdentifier as memberTypeBySystemIdentifier,
  GROUP_INFO,
  invalidGroupLookup,
  isSettingGroup,
  requireValue,
  valueView,
} from '../rules';
import type {
  ByIdInput,
  FindMemberSubTypeByHrmsMappingInput,
  FindMemberTypeBySystemIdentifierInput,
  GetPaymentPeriodsInput,
  GetProgramManagementConfigInput,
  GetSettingInput,
} from '../../../schemas/Setting/inputs';
import type { ListGroup, SettingGroups } from '../types';
import { readable, requiredString, type SettingReadCtx } from './common';

/** a record of a list group, as the get and find methods answer it (their typed clients' answer) */
export type ValueView<G extends ListGroup> = SettingGroups[G]['value'][number] & { pendingApprovalId: string | null };

/** One group {group, title, description, value}. */
export function getSetting(ctx: SettingReadCtx<GetSettingInput>) {
  const state = readable(ctx);
  const { group } = ctx.request.body;
  if (!isSettingGroup(group)) {
    throw invalidGroupLookup([{ field: 'group', reason: `must be one of: ${Object.keys(GROUP_INFO).join(', ')}` }]);
  }
  return { group, ...state.groups[group] };
}

/** One record of `group` by id; 404 10020 when absent. */
export function getValue<G extends ListGroup>(ctx: SettingReadCtx<ByIdInput>, group: G): DeepReadonly<ValueView<G>> {
  const state = readable(ctx);
  // requireValue finds the record in `group`'s own list, so it is that group's record type
  return valueView(
    state,
    group,
    requireValue(state.groups, group, requiredString(ctx.request.body.id, 'id')),
  ) as DeepReadonly<ValueView<G>>;
}

/** The member type for an HR employmentType (case-insensitive); active only unless includeInactive; 404 when none. */
export function findMemberTypeBySystemIdentifier(ctx: SettingReadCtx<FindMemberTypeBySystemIdentifierInput>) {
  const state = readable(ctx);
  const systemIdentifier = requiredString(ctx.request.body.systemIdentifier, 'systemIdentifier');
  const inactiveToo = ctx.request.body.includeInactive === true;
  const found = memberTypeBySystemIdentifier(state.groups.memberTypes.value, systemIdentifier, inactiveToo);
  if (!found) {
    throw settingError(
      'SETTING_VALUE_NOT_FOUND',
      `No ${inactiveToo ? '' : 'active '}member type with systemIdentifier '${systemIdentifier}'`,
      {
        group: 'memberTypes',
        systemIdentifier,
      },
    );
  }
  return valueView(state, 'memberTypes', found);
}

/** The member sub type mapping an HR relationship type (case-insensitive); active only unless includeInactive; 404 when none. */
export function findMemberSubTypeByHrmsMapping(ctx: SettingReadCtx<FindMemberSubTypeByHrmsMappingInput>) {
  const state = readable(ctx);
  const relation = requiredString(ctx.request.body.relation, 'relation');
  const inactiveToo = ctx.request.body.includeInactive === true;
  const found = findMemberSubTypeByRelation(state.groups.memberSubTypes.value, relation, inactiveToo);
  if (!found) {
    throw settingError(
      'SETTING_VALUE_NOT_FOUND',
      `No ${inactiveToo ? '' : 'active '}member sub type maps the relation '${relation}'`,
      {
        group: 'memberSubTypes',
        relation,
      },
    );
  }
  return valueView(state, 'memberSubTypes', found);
}

export function getPaymentPeriods(ctx: SettingReadCtx<GetPaymentPeriodsInput>) {
  return { paymentPeriods: readable(ctx).groups.tierConfig.value.paymentPeriods };
}

/** Active values of every group, payment periods and tier groups (back office forms; Company's reference checks). */
export function getProgramManagementConfig(ctx: SettingReadCtx<GetProgramManagementConfigInput>) {
  return activeConfig(readable(ctx).groups);
}
