/**
 * What an HR record does to a member (spec 4.2, 4.3, 3.1), pure.
 *
 * The HR system sends the full record each time and the member is overwritten
 * with it; `updatedFields` names the member fields whose value changed, in a
 * fixed order. Nothing changes (not even `updatedAt`) when nothing differs, so
 * the same record twice writes nothing the second time.
 *
 * Member fields an employee record writes:
 *   staffId, previousStaffIds (staff-id migration), name, middleName, surname,
 *   email, phone, grade, memberType (the active member type whose
 *   systemIdentifier is employmentType), address, gender, maritalStatus,
 *   coreGrade, dependantsExists, lastDayOfService, company (by BG_ID),
 *   status, statusReason.
 * `birthdate` is verification only and never stored. `leavingReason` is
 * stored as `statusReason` when the employee is terminated or inactive.
 */
import type { Actor } from '../_platform/actor';
import { isStalePush, newerPush, type NormalizedDependant } from './hr-contract';
import { nextMemberStatus } from './status-machine';
import type { MemberProfile, MemberStatus } from './types';
import type { HrUpdateEmployeeInput } from '../../schemas/Member/inputs';

export interface EmployeeUpdateInput {
  record: HrUpdateEmployeeInput;
  /** the member type matched by employmentType */
  memberTypeId: string;
  /** the service company whose bgId is record.companyId */
  companyId: string;
  /** the member was found by record.oldStaffId (staff-id migration) */
  migrated: boolean;
}

export interface SyncResult {
  profile: MemberProfile;
  updatedFields: string[];
}

/** equal as JSON values, a missing value counting as null */
export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function assign(
  profile: MemberProfile,
  next: Partial<MemberProfile>,
  order: readonly (keyof MemberProfile)[],
): SyncResult {
  const updatedFields: string[] = [];
  const out: MemberProfile = { ...profile };
  for (const key of order) {
    if (!(key in next)) continue;
    const value = next[key];
    if (same(profile[key], value)) continue;
    (out as unknown as Record<string, unknown>)[key] = value;
    updatedFields.push(key);
  }
  return { profile: updatedFields.length ? out : profile, updatedFields };
}

export const EMPLOYEE_FIELDS: readonly (keyof MemberProfile)[] = [
  'staffId',
  'previousStaffIds',
  'name',
  'middleName',
  'surname',
  'email',
  'phone',
  'grade',
  'memberType',
  'address',
  'gender',
  'maritalStatus',
  'coreGrade',
  'dependantsExists',
  'lastDayOfService',
  'company',
  'status',
  'statusReason',
];

/** The status and statusReason an HR employee status gives (spec 3.1 rows "HR employee update"). */
export function employeeStatus(
  profile: Pick<MemberProfile, 'status' | 'statusReason'>,
  record: Pick<HrUpdateEmployeeInput, 'status' | 'leavingReason'>,
): { status: MemberStatus; statusReason: string | null } {
  const r = nextMemberStatus(profile.status, { type: 'hrEmployeeUpdate', hrStatus: record.status });
  const status = r.ok ? r.to : profile.status;
  if (record.status === 'terminated' || record.status === 'inactive') {
    return { status, statusReason: record.leavingReason ?? record.status };
  }
  // reactivation clears the reason; an employee that stays active keeps it
  return { status, statusReason: profile.status === 'inactive' && status === 'active' ? null : profile.statusReason };
}

/** Spec 4.2: the member after an employee record. */
export function applyEmployeeRecord(profile: MemberProfile, input: EmployeeUpdateInput, now: string): SyncResult {
  const rec = input.record;
  const next: Partial<MemberProfile> = {
    name: rec.name,
    middleName: rec.middleName ?? null,
    surname: rec.surname,
    email: rec.email,
    phone: rec.phone,
    grade: rec.grade,
    memberType: input.memberTypeId,
    address: { country: rec.address.country, address: rec.address.address },
    gender: rec.gender,
    maritalStatus: rec.maritalStatus,
    coreGrade: rec.coreGrade,
    dependantsExists: rec.dependantsExists,
    lastDayOfService: rec.lastDayOfService ?? null,
    company: { id: input.companyId },
    ...employeeStatus(profile, rec),
  };
  if (input.migrated && profile.staffId !== rec.employeeId)
    Object.assign(next, staffIdMigration(profile, rec.employeeId));
  const result = assign(profile, next, EMPLOYEE_FIELDS);
  if (result.updatedFields.length) result.profile.updatedAt = now;
  return result;
}

/** The member as an HR push's fast path reads it (hrEmployeeSnapshot, a READ). */
export interface EmployeeSnapshot {
  profile: MemberProfile;
  hrRecordedAt?: string;
  /** the quarantine holds a push of this member */
  held: boolean;
}

/**
 * What an employee record would do to the member as last read, decided
 * without its write turn: `unchanged` (nothing differs, the record is not
 * newer than one applied, no move, no hold to supersede) and `stale` (older
 * than one applied, same company) are answered from the read; anything else
 * is `write`, decided again under the turn. A concurrent write between the
 * read and the answer is no different from one just after an answer.
 */
export function employeePushOutcome(
  snap: EmployeeSnapshot,
  input: {
    record: HrUpdateEmployeeInput;
    memberTypeId: string;
    companyId: string;
    foundBy: string;
    recordedAt?: string;
  },
): 'unchanged' | 'stale' | 'write' {
  const p = snap.profile;
  if (snap.held || p.staffId !== input.foundBy || p.company?.id !== input.companyId) return 'write';
  if (isStalePush(snap.hrRecordedAt, input.recordedAt)) return 'stale';
  if (newerPush(snap.hrRecordedAt, input.recordedAt) !== snap.hrRecordedAt) return 'write';
  const r = applyEmployeeRecord(
    p,
    { record: input.record, memberTypeId: input.memberTypeId, companyId: input.companyId, migrated: false },
    p.updatedAt,
  );
  return r.updatedFields.length === 0 ? 'unchanged' : 'write';
}

/** A staff-id migration (spec 4.2 oldStaffId): the member takes `staffId`, the one it had joins previousStaffIds. */
export function staffIdMigration(
  profile: { staffId: string | null; previousStaffIds?: readonly string[] },
  staffId: string,
): Pick<MemberProfile, 'staffId' | 'previousStaffIds'> {
  // the ids held before, oldest first: the id given up moves to the end, the id taken is no longer a previous one
  // (A→B→A→B reports previousStaffIds every time, and never lists the current staff id)
  const old = profile.staffId;
  const previous = (profile.previousStaffIds ?? []).filter((id) => id !== staffId && id !== old);
  return { staffId, previousStaffIds: old ? [...previous, old] : previous };
}

export const DEPENDANT_FIELDS: readonly (keyof MemberProfile)[] = [
  'name',
  'surname',
  'email',
  'phone',
  'relation',
  'memberSubType',
  'status',
];

export interface DependantInput {
  record: NormalizedDependant;
  /** the member sub type whose hrmsMapping matches record.type (null: unrecognised) */
  memberSubTypeId: string | null;
}

/** Spec 4.3 update: the dependant after a dependant record (phone undefined leaves it unchanged). */
export function applyDependantRecord(profile: MemberProfile, input: DependantInput, now: string): SyncResult {
  const rec = input.record;
  const r = nextMemberStatus(profile.status, { type: 'hrDependantUpdate', hrStatus: rec.status });
  const next: Partial<MemberProfile> = {
    name: rec.name,
    surname: rec.surname,
    email: rec.email,
    relation: rec.type,
    memberSubType: input.memberSubTypeId,
    status: r.ok ? r.to : profile.status,
  };
  if (rec.phone !== undefined) next.phone = rec.phone;
  const result = assign(profile, next, DEPENDANT_FIELDS);
  if (result.updatedFields.length) result.profile.updatedAt = now;
  return result;
}

export interface NewDependantInput extends DependantInput {
  primary: Pick<MemberProfile, 'id' | 'company' | 'memberType' | 'loginMethod'>;
  actor: Actor;
}

/** Spec 4.3 create: a new dependant member under the primary member. */
export function newDependantProfile(input: NewDependantInput, now: string): MemberProfile {
  const rec = input.record;
  const r = nextMemberStatus(null, { type: 'hrDependantUpdate', hrStatus: rec.status });
  return {
    id: rec.id,
    status: r.ok ? r.to : 'active',
    name: rec.name,
    middleName: null,
    surname: rec.surname,
    staffId: null,
    email: rec.email,
    phone: rec.phone ?? null,
    company: { id: input.primary.company.id },
    grade: null,
    idPhoto: null,
    loginMethod: input.primary.loginMethod,
    address: null,
    memberType: input.primary.memberType,
    memberSubType: input.memberSubTypeId,
    memberships: [],
    primaryMemberId: input.primary.id,
    relation: rec.type,
    familyMembers: [],
    createdBy: input.actor,
    note: null,
    permissions: { sms: false, email: false },
    previousStaffIds: [],
    statusReason: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The warning of an unrecognised dependant type (spec 4.3). */
export function unmappedTypeWarning(type: string): string {
  return `Dependant type '${type}' matches no member sub type mapping; the dependant was saved without a member sub type`;
}
