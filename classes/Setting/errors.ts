/**
 * Setting error codes (spec 7.1: 10000-10099). 10001, 10005, 10018 and
 * 10072-10075 are the HR integration's codes (spec 7.2, 4.1) and 10000 its
 * internal error: Setting's own codes start at 10020.
 */
import { errorFactory } from '../../runtime';

export const SettingErrors = {
  /** no record with this id in the group (or no record matches the lookup) */
  SETTING_VALUE_NOT_FOUND: { code: 10020, status: 404 },
  /** another record of the group has this name (case-insensitive) */
  SETTING_NAME_TAKEN: { code: 10021, status: 409 },
  /** another record of the group has this id */
  SETTING_ID_TAKEN: { code: 10022, status: 409 },
  /** a status update asked for a status other than active/inactive */
  SETTING_INVALID_STATUS: { code: 10023, status: 400 },
  /** a status update asked for the status the record already has */
  SETTING_STATUS_UNCHANGED: { code: 10024, status: 409 },
  /** the record waits for an approval: no other change until it is reviewed */
  SETTING_APPROVAL_PENDING: { code: 10025, status: 409 },
  /** an approval callback for an approval the record does not wait for */
  SETTING_APPROVAL_MISMATCH: { code: 10026, status: 409 },
  /** list parameters (page, limit, status, ...) are malformed */
  SETTING_INVALID_QUERY: { code: 10028, status: 400 },
  /** another member type has this systemIdentifier (case-insensitive) */
  SETTING_SYSTEM_IDENTIFIER_TAKEN: { code: 10029, status: 409 },
  /** another member sub type maps this HR relationship (case-insensitive) */
  SETTING_HRMS_MAPPING_TAKEN: { code: 10030, status: 409 },
  /** a member sub type names a member type that does not exist */
  SETTING_INVALID_REFERENCE: { code: 10031, status: 400 },
  /** payment periods with duplicate keys */
  SETTING_INVALID_PAYMENT_PERIODS: { code: 10032, status: 400 },
  /** Setting is a singleton: every call goes to instance `default` */
  SETTING_SINGLETON_ONLY: { code: 10033, status: 400 },
  /** a group name that is not one of the five */
  SETTING_UNKNOWN_GROUP: { code: 10034, status: 400 },
  /** setState: the state breaks a rule (duplicates, references) or an approval is pending */
  SETTING_INVALID_STATE: { code: 10035, status: 400 },
  /** an update that changes nothing (no updatable field given) */
  SETTING_EMPTY_UPDATE: { code: 10036, status: 400 },
  /** setState by anyone but the system identity or a developer */
  SETTING_DEVELOPER_ONLY: { code: 10037, status: 403 },
} as const;

export type SettingErrorName = keyof typeof SettingErrors;

/** The code of an approved change that could not be applied any more (reported in the callback's result, not thrown). */
export const SETTING_PATCH_CONFLICT = 10027;

export const settingError = errorFactory('Setting', SettingErrors);
