/**
 * The rules of the Setting singleton, as pure functions: new records,
 * updates, uniqueness within a group, status moves, look-ups, the active
 * configuration and the streamed documents. Rules that refuse throw a
 * Setting ActorError (settingError).
 */
import type { DeepReadonly, FieldError } from '../../runtime';
import type { Actor } from '../_platform/actor';
import { problemsText } from '../_platform/paging';
import { ownEntry } from '../_platform/records';
import { settingError } from './errors';
import {
  LIST_GROUPS,
  SETTING_GROUPS,
  TIER_GROUPS,
  type CompanyGroupValue,
  type ListGroup,
  type MemberSubTypeValue,
  type MemberTypeValue,
  type PaymentPeriod,
  type ProgramManagementConfig,
  type SettingGroup,
  type SettingGroups,
  type SettingState,
  type SettingStatus,
  type SettingValue,
  type TierTypeValue,
} from './types';

export interface GroupInfo {
  title: string;
  description: string;
  /** entity name used in messages */
  label: string;
  /** status of a new record: `pending` where spec 2.4 lists it, else `active` */
  initialStatus: SettingStatus;
}

export const GROUP_INFO: Record<SettingGroup, GroupInfo> = {
  companyGroups: {
    title: 'Company groups',
    description: 'Groups of companies, internal or external',
    label: 'company group',
    initialStatus: 'pending',
  },
  memberTypes: {
    title: 'Member types',
    description: 'Member types; systemIdentifier is matched against the HR employment type',
    label: 'member type',
    initialStatus: 'pending',
  },
  memberSubTypes: {
    title: 'Member sub types',
    description: 'Member sub types; hrmsMapping lists the HR relationship types they stand for',
    label: 'member sub type',
    initialStatus: 'pending',
  },
  tierTypes: {
    title: 'Tier types',
    description: 'Tier types and their tier group',
    label: 'tier type',
    initialStatus: 'active',
  },
  tierConfig: {
    title: 'Tier configuration',
    description: 'Payment periods offered by tiers',
    label: 'tier configuration',
    initialStatus: 'active',
  },
};

export const DEFAULT_PAYMENT_PERIODS: PaymentPeriod[] = [
  { key: 'monthly', label: 'Monthly' },
  { key: 'quarterly', label: 'Quarterly' },
  { key: 'yearly', label: 'Yearly' },
];

/** Statuses a status update may ask for (spec 2.4: "updatable statuses ... active and inactive only"). */
export const UPDATABLE_STATUSES: readonly SettingStatus[] = ['active', 'inactive'];

export function isSettingGroup(value: unknown): value is SettingGroup {
  return typeof value === 'string' && (SETTING_GROUPS as readonly string[]).includes(value);
}

/** getSetting's refusal of its input: a group that is none of the five (or none) is 400 10034, anything else 10028. */
export function invalidGroupLookup(errors: FieldError[]) {
  if (errors.some((e) => e.field === 'group'))
    return settingError('SETTING_UNKNOWN_GROUP', `group must be one of: ${Object.keys(GROUP_INFO).join(', ')}`, {
      errors,
    });
  return settingError('SETTING_INVALID_QUERY', `Invalid parameters: ${problemsText(errors)}`, { errors });
}

export function isListGroup(value: unknown): value is ListGroup {
  return typeof value === 'string' && (LIST_GROUPS as readonly string[]).includes(value);
}

export function defaultGroups(paymentPeriods: PaymentPeriod[] = DEFAULT_PAYMENT_PERIODS): SettingGroups {
  const g = <V>(group: SettingGroup, value: V) => ({
    title: GROUP_INFO[group].title,
    description: GROUP_INFO[group].description,
    value,
  });
  return {
    companyGroups: g('companyGroups', []),
    memberTypes: g('memberTypes', []),
    memberSubTypes: g('memberSubTypes', []),
    tierTypes: g('tierTypes', []),
    tierConfig: g('tierConfig', { paymentPeriods: paymentPeriods.map((p) => ({ ...p })) }),
  };
}

export function emptySettingState(paymentPeriods?: PaymentPeriod[]): SettingState {
  return { groups: defaultGroups(paymentPeriods), pendingApprovals: {} };
}

/** Comparison key of names and identifiers: trimmed, inner blanks collapsed, lower case. */
export function normalise(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

export function pendingKey(group: SettingGroup | 'all', entityId: string): string {
  return `${group}:${entityId}`;
}

/** The records of a list group: the draft's own list in a write, the read-only one in a READ. */
export function valuesOf(groups: SettingGroups, group: ListGroup): SettingValue[];
export function valuesOf(groups: DeepReadonly<SettingGroups>, group: ListGroup): readonly DeepReadonly<SettingValue>[];
export function valuesOf(groups: DeepReadonly<SettingGroups>, group: ListGroup): readonly DeepReadonly<SettingValue>[] {
  return groups[group].value;
}

export function findValue(groups: SettingGroups, group: ListGroup, id: string): SettingValue | undefined;
export function findValue(
  groups: DeepReadonly<SettingGroups>,
  group: ListGroup,
  id: string,
): DeepReadonly<SettingValue> | undefined;
export function findValue(
  groups: DeepReadonly<SettingGroups>,
  group: ListGroup,
  id: string,
): DeepReadonly<SettingValue> | undefined {
  return valuesOf(groups, group).find((v) => v.id === id);
}

export function requireValue(groups: SettingGroups, group: ListGroup, id: string): SettingValue;
export function requireValue(
  groups: DeepReadonly<SettingGroups>,
  group: ListGroup,
  id: string,
): DeepReadonly<SettingValue>;
export function requireValue(
  groups: DeepReadonly<SettingGroups>,
  group: ListGroup,
  id: string,
): DeepReadonly<SettingValue> {
  const found = findValue(groups, group, id);
  if (!found)
    throw settingError('SETTING_VALUE_NOT_FOUND', `No ${GROUP_INFO[group].label} with id '${id}'`, { group, id });
  return found;
}

// ---------------------------------------------------------------- new records and updates

export interface ValueInput {
  id?: string;
  name?: string;
  description?: string | null;
  type?: CompanyGroupValue['type'];
  systemIdentifier?: string;
  hrmsMapping?: string[];
  memberTypeId?: string | null;
  tierGroup?: TierTypeValue['tierGroup'];
}

/** update<Record>: the record's id and the fields to change */
export type ValueUpdateInput = ValueInput & { id: string };

/** the fields each group adds to the common ones, and whether an update may change them */
const GROUP_FIELDS: Record<ListGroup, { field: keyof ValueInput; updatable: boolean }[]> = {
  companyGroups: [{ field: 'type', updatable: true }],
  memberTypes: [{ field: 'systemIdentifier', updatable: true }],
  memberSubTypes: [
    { field: 'hrmsMapping', updatable: true },
    { field: 'memberTypeId', updatable: true },
  ],
  // tiers copy {id, group} of their tier type: the group of a tier type is fixed once created
  tierTypes: [{ field: 'tierGroup', updatable: false }],
};

/** HR relationship names: trimmed, blanks dropped, duplicates (case-insensitive) dropped, order kept. */
export function cleanMapping(values: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of values) {
    const v = raw.trim();
    if (!v || seen.has(normalise(v))) continue;
    seen.add(normalise(v));
    out.push(v);
  }
  return out;
}

function setGroupField(target: Record<string, unknown>, field: keyof ValueInput, value: unknown): void {
  if (value === undefined) return;
  if (value === null) {
    delete target[field];
    return;
  }
  if (field === 'hrmsMapping') target[field] = cleanMapping(value as string[]);
  else if (typeof value === 'string') target[field] = value.trim();
  else target[field] = value;
}

/** A new record of a group from the create body. */
export function buildValue(group: ListGroup, input: ValueInput, actor: Actor, now: string, id: string): SettingValue {
  const record: Record<string, unknown> = {
    id,
    name: (input.name ?? '').trim(),
    status: GROUP_INFO[group].initialStatus,
    createdBy: actor,
    createdAt: now,
    updatedAt: now,
  };
  if (typeof input.description === 'string') record.description = input.description.trim();
  for (const { field } of GROUP_FIELDS[group]) setGroupField(record, field, input[field]);
  if (group === 'memberSubTypes' && !record.hrmsMapping) record.hrmsMapping = [];
  return record as unknown as SettingValue;
}

/** The record after an update body ({id, name?, description?, group fields}); status is not changed here. */
export function applyValueUpdate(
  group: ListGroup,
  current: SettingValue,
  input: ValueInput,
  now: string,
): SettingValue {
  const next: Record<string, unknown> = { ...(current as unknown as Record<string, unknown>) };
  let touched = false;
  if (input.name !== undefined) {
    next.name = input.name.trim();
    touched = true;
  }
  if (input.description !== undefined) {
    if (input.description === null) delete next.description;
    else next.description = input.description.trim();
    touched = true;
  }
  for (const { field, updatable } of GROUP_FIELDS[group]) {
    if (input[field] === undefined) continue;
    if (!updatable) continue;
    setGroupField(next, field, input[field]);
    touched = true;
  }
  if (!touched)
    throw settingError(
      'SETTING_EMPTY_UPDATE',
      `The update of ${GROUP_INFO[group].label} '${current.id}' names no field to change`,
      { group, id: current.id },
    );
  next.updatedAt = now;
  return next as unknown as SettingValue;
}

// ---------------------------------------------------------------- uniqueness and references

/**
 * Refuses a record that clashes with another record of its group: same id
 * (new records), same name, same member-type systemIdentifier, an HR
 * relationship mapped by another member sub type (all case-insensitive), or a
 * member sub type naming an unknown member type.
 */
export function checkValue(
  groups: SettingGroups,
  group: ListGroup,
  candidate: SettingValue,
  opts: { isNew: boolean },
): void {
  const others = valuesOf(groups, group).filter((v) => v.id !== candidate.id);
  const label = GROUP_INFO[group].label;
  if (opts.isNew && findValue(groups, group, candidate.id)) {
    throw settingError('SETTING_ID_TAKEN', `A ${label} with id '${candidate.id}' already exists`, {
      group,
      id: candidate.id,
    });
  }
  const name = normalise(candidate.name);
  const sameName = others.find((v) => normalise(v.name) === name);
  if (sameName) {
    throw settingError('SETTING_NAME_TAKEN', `The ${label} '${sameName.name}' (${sameName.id}) already has this name`, {
      group,
      name: candidate.name,
      id: sameName.id,
    });
  }
  if (group === 'memberTypes') {
    const sid = normalise((candidate as MemberTypeValue).systemIdentifier);
    const clash = (others as MemberTypeValue[]).find((v) => normalise(v.systemIdentifier) === sid);
    if (clash) {
      throw settingError(
        'SETTING_SYSTEM_IDENTIFIER_TAKEN',
        `Member type '${clash.name}' (${clash.id}) already has systemIdentifier '${clash.systemIdentifier}'`,
        {
          group,
          systemIdentifier: (candidate as MemberTypeValue).systemIdentifier,
          id: clash.id,
        },
      );
    }
  }
  if (group === 'memberSubTypes') {
    const sub = candidate as MemberSubTypeValue;
    const mine = new Set(sub.hrmsMapping.map(normalise));
    for (const other of others as MemberSubTypeValue[]) {
      const shared = other.hrmsMapping.filter((m) => mine.has(normalise(m)));
      if (shared.length) {
        throw settingError(
          'SETTING_HRMS_MAPPING_TAKEN',
          `Member sub type '${other.name}' (${other.id}) already maps ${shared.join(', ')}`,
          {
            group,
            hrmsMapping: shared,
            id: other.id,
          },
        );
      }
    }
    if (sub.memberTypeId !== undefined && !findValue(groups, 'memberTypes', sub.memberTypeId)) {
      throw settingError('SETTING_INVALID_REFERENCE', `No member type with id '${sub.memberTypeId}'`, {
        errors: [{ field: 'memberTypeId', reason: `no member type with id '${sub.memberTypeId}'` }],
      });
    }
  }
}

// ---------------------------------------------------------------- status moves

/**
 * The status a status update may move a record to. Targets: `active` and
 * `inactive` only (spec 2.4); `pending` is a creation status, never a target.
 * Asking for the current status is refused (nothing would change).
 *
 *   from \ to   active    inactive   pending
 *   pending     ok        ok         400
 *   active      409       ok         400
 *   inactive    ok        409        400
 */
export function checkStatusMove(group: ListGroup, id: string, from: SettingStatus, to: unknown): SettingStatus {
  if (typeof to !== 'string' || !(UPDATABLE_STATUSES as readonly string[]).includes(to)) {
    throw settingError(
      'SETTING_INVALID_STATUS',
      `The status of a ${GROUP_INFO[group].label} can only be set to ${UPDATABLE_STATUSES.join(' or ')}`,
      {
        errors: [{ field: 'status', reason: `must be one of: ${UPDATABLE_STATUSES.join(', ')}` }],
      },
    );
  }
  if (to === from) {
    throw settingError('SETTING_STATUS_UNCHANGED', `${GROUP_INFO[group].label} '${id}' is already ${from}`, {
      group,
      id,
      status: from,
    });
  }
  return to as SettingStatus;
}

// ---------------------------------------------------------------- look-ups for other classes

/** The member type whose systemIdentifier equals the HR employmentType (case-insensitive); active only unless asked. */
export function findMemberTypeBySystemIdentifier<V extends DeepReadonly<MemberTypeValue>>(
  values: readonly V[],
  systemIdentifier: string,
  includeInactive = false,
): V | undefined {
  const key = normalise(systemIdentifier);
  return values.find((v) => normalise(v.systemIdentifier) === key && (includeInactive || v.status === 'active'));
}

/** The member sub type whose hrmsMapping holds the HR relationship (case-insensitive); active only unless asked. */
export function findMemberSubTypeByRelation<V extends DeepReadonly<MemberSubTypeValue>>(
  values: readonly V[],
  relation: string,
  includeInactive = false,
): V | undefined {
  const key = normalise(relation);
  return values.find(
    (v) => v.hrmsMapping.some((m) => normalise(m) === key) && (includeInactive || v.status === 'active'),
  );
}

/** Active values of every group (getProgramManagementConfig): read from the frozen state, answered read-only. */
export function activeConfig(groups: DeepReadonly<SettingGroups>): DeepReadonly<ProgramManagementConfig> {
  const active = <V extends { readonly status: SettingStatus }>(values: readonly V[]) =>
    values.filter((v) => v.status === 'active');
  return {
    companyGroups: active(groups.companyGroups.value),
    memberTypes: active(groups.memberTypes.value),
    memberSubTypes: active(groups.memberSubTypes.value),
    tierTypes: active(groups.tierTypes.value),
    paymentPeriods: groups.tierConfig.value.paymentPeriods,
    tierGroups: [...TIER_GROUPS],
  };
}

// ---------------------------------------------------------------- tier configuration

export function checkPaymentPeriods(periods: PaymentPeriod[]): PaymentPeriod[] {
  const seen = new Map<string, number>();
  const errors: { field: string; reason: string }[] = [];
  const cleaned = periods.map((p, i) => {
    const key = p.key.trim();
    const norm = normalise(key);
    if (seen.has(norm))
      errors.push({ field: `paymentPeriods.${i}.key`, reason: `duplicates paymentPeriods.${seen.get(norm)}.key` });
    else seen.set(norm, i);
    return { key, label: p.label.trim() };
  });
  if (errors.length)
    throw settingError('SETTING_INVALID_PAYMENT_PERIODS', 'Payment period keys must be unique', { errors });
  return cleaned;
}

// ---------------------------------------------------------------- whole state (setState)

/** Problems of a whole set of groups: duplicate ids, names, identifiers, mappings, unknown references. */
export function stateProblems(groups: SettingGroups): { field: string; reason: string }[] {
  const problems: { field: string; reason: string }[] = [];
  for (const group of LIST_GROUPS) {
    const values = valuesOf(groups, group);
    const partial: SettingGroups = { ...groups, [group]: { ...groups[group], value: [] } };
    values.forEach((value, i) => {
      try {
        checkValue(partial, group, value, { isNew: true });
      } catch (err) {
        problems.push({ field: `groups.${group}.value.${i}`, reason: (err as Error).message });
      }
      (partial[group].value as SettingValue[]).push(value);
    });
  }
  try {
    checkPaymentPeriods(groups.tierConfig.value.paymentPeriods);
  } catch (err) {
    problems.push({ field: 'groups.tierConfig.value.paymentPeriods', reason: (err as Error).message });
  }
  return problems;
}

// ---------------------------------------------------------------- workflow entities

/** What the workflow sees: the record with its group (rule conditions may test `group`). */
export function asEntity<T extends object>(group: SettingGroup | 'all', value: T): T & { group: string } {
  return { ...value, group };
}

/** The stored record back from a workflow entity. */
export function fromEntity<T extends object>(entity: T & { group?: string }): T {
  const { group: _group, ...rest } = entity;
  return rest as T;
}

// ---------------------------------------------------------------- projection

export const SETTINGS_COLLECTION = 'settings';

export function documentId(group: ListGroup, id: string): string {
  return `${group}:${id}`;
}

/** One document per record of the four list groups, in collection `settings`. */
export function settingDocuments(state: Partial<SettingState> | undefined) {
  const groups = state?.groups;
  if (!groups) return [];
  const pending = state?.pendingApprovals ?? {};
  return LIST_GROUPS.flatMap((group) =>
    valuesOf(groups, group).map((value) => ({
      collection: SETTINGS_COLLECTION,
      id: documentId(group, value.id),
      doc: {
        ...value,
        group,
        nameKey: normalise(value.name),
        pendingApprovalId: ownEntry(pending, pendingKey(group, value.id)) ?? null,
      },
    })),
  );
}

/** A record as answered to callers: the stored fields plus the approval it waits for. */
export function valueView<V extends DeepReadonly<SettingValue>>(
  state: Pick<DeepReadonly<SettingState>, 'pendingApprovals'>,
  group: ListGroup,
  value: V,
): V & { pendingApprovalId: string | null } {
  return { ...value, pendingApprovalId: ownEntry(state.pendingApprovals, pendingKey(group, value.id)) ?? null };
}
