/** Setting records (spec 2.4): five groups, each {title, description, value}; the singleton's state and the bodies of its methods. */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';

/** The four groups whose value is a list of records, plus the tier configuration. */
export type ListGroup = 'companyGroups' | 'memberTypes' | 'memberSubTypes' | 'tierTypes';
export type SettingGroup = ListGroup | 'tierConfig';

export const LIST_GROUPS: readonly ListGroup[] = ['companyGroups', 'memberTypes', 'memberSubTypes', 'tierTypes'];
export const SETTING_GROUPS: readonly SettingGroup[] = [...LIST_GROUPS, 'tierConfig'];

export type SettingStatus = 'pending' | 'active' | 'inactive';
export type CompanyGroupType = 'internal' | 'external';
import type { TierGroup } from '../_platform/vocabulary';

export { TIER_GROUPS, type TierGroup } from '../_platform/vocabulary';

export interface SettingValueBase {
  id: string;
  name: string;
  description?: string;
  status: SettingStatus;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
}

export interface CompanyGroupValue extends SettingValueBase {
  type: CompanyGroupType;
}

export interface MemberTypeValue extends SettingValueBase {
  /** matched (case-insensitively) against the HR employmentType */
  systemIdentifier: string;
}

export interface MemberSubTypeValue extends SettingValueBase {
  /** HR relationship names (spec 4.3 `type`), matched case-insensitively */
  hrmsMapping: string[];
  /** the member type this sub type belongs to, when it belongs to one */
  memberTypeId?: string;
}

export interface TierTypeValue extends SettingValueBase {
  tierGroup: TierGroup;
}

export type SettingValue = CompanyGroupValue | MemberTypeValue | MemberSubTypeValue | TierTypeValue;

export interface PaymentPeriod {
  key: string;
  label: string;
}

export interface TierConfig {
  paymentPeriods: PaymentPeriod[];
}

export interface GroupOf<V> {
  title: string;
  description: string;
  value: V;
}

export interface SettingGroups {
  companyGroups: GroupOf<CompanyGroupValue[]>;
  memberTypes: GroupOf<MemberTypeValue[]>;
  memberSubTypes: GroupOf<MemberSubTypeValue[]>;
  tierTypes: GroupOf<TierTypeValue[]>;
  tierConfig: GroupOf<TierConfig>;
}

/** ctx.state.private of the Setting singleton */
export interface SettingState {
  groups: SettingGroups;
  /** approval waited for, by `${group}:${entityId}` (entity = record id, `tierConfig`, or `default` for setState) */
  pendingApprovals: Record<string, string>;
  /** last manual stream request (stream* methods change this so that the commit re-projects) */
  lastStreamed?: { group: string; id: string; at: string };
}

/** The Setting class's state (`@ActorClass<SettingClassState>`): private holds SettingState. */
export type SettingClassState = StateOf<SettingState>;

/** Active values of every group (getProgramManagementConfig). */
export interface ProgramManagementConfig {
  companyGroups: CompanyGroupValue[];
  memberTypes: MemberTypeValue[];
  memberSubTypes: MemberSubTypeValue[];
  tierTypes: TierTypeValue[];
  paymentPeriods: PaymentPeriod[];
  tierGroups: TierGroup[];
}

// ---------------------------------------------------------------- setState's body (schemas/Setting/setState.json)

/** one group replaced by setState; its records are checked by the whole-state rules (stateProblems) */
export type GroupReplacement<V> = { title?: string; description?: string; value: V };

/** setState: the groups to replace (the records may leave out createdBy, createdAt, updatedAt) */
export type SetStateInput = {
  groups: { [G in ListGroup]?: GroupReplacement<Partial<SettingValue>[]> } & {
    tierConfig?: GroupReplacement<TierConfig>;
  };
};
