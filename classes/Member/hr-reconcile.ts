/**
 * Reconciliation of HR's population with the members (pure rules): what an
 * HR record would change on its member, which member is active here though
 * HR no longer lists it, the 4.2 record that deactivates such a member, the
 * rows of an HR population sheet as 4.2 records, and how an answer of 4.2
 * reads as an outcome.
 *
 * Drift is decided by the 4.2 rule itself (applyEmployeeRecord of hr-sync.ts):
 * a field drifts exactly when an HR push of the row would write it, so a
 * report that says "in sync" is one a push would leave untouched, and an
 * applied correction leaves nothing for the next run to report.
 */
import type { DeepReadonly } from '../../runtime';
import { HR_MESSAGES, isCalendarDate, isStalePush } from './hr-contract';
import { applyEmployeeRecord, EMPLOYEE_FIELDS } from './hr-sync';
import { nextMemberStatus } from './status-machine';
import type { MemberProfile } from './types';
import type { HrUpdateEmployeeInput } from '../../schemas/Member/inputs';

/** what the reconciliation reads of a member (hrReconcileView): the fields 4.2 writes and what tells an employee from a dependant */
export type ReconcileProfile = Pick<
  MemberProfile,
  | 'id'
  | 'status'
  | 'statusReason'
  | 'staffId'
  | 'previousStaffIds'
  | 'name'
  | 'middleName'
  | 'surname'
  | 'email'
  | 'phone'
  | 'grade'
  | 'memberType'
  | 'address'
  | 'gender'
  | 'maritalStatus'
  | 'coreGrade'
  | 'dependantsExists'
  | 'lastDayOfService'
  | 'company'
  | 'primaryMemberId'
>;

/** Pure: the view of a stored profile the reconciliation reads (no memberships, family or documents). */
export function reconcileProfile(p: DeepReadonly<MemberProfile>): ReconcileProfile {
  return {
    id: p.id,
    status: p.status,
    statusReason: p.statusReason ?? null,
    staffId: p.staffId ?? null,
    previousStaffIds: [...(p.previousStaffIds ?? [])],
    name: p.name,
    middleName: p.middleName ?? null,
    surname: p.surname,
    email: p.email ?? null,
    phone: p.phone ?? null,
    grade: p.grade ?? null,
    memberType: p.memberType ?? null,
    address: p.address ? { country: p.address.country, address: p.address.address } : null,
    gender: p.gender ?? null,
    maritalStatus: p.maritalStatus ?? null,
    coreGrade: p.coreGrade ?? null,
    dependantsExists: p.dependantsExists ?? null,
    lastDayOfService: p.lastDayOfService ?? null,
    company: { id: p.company?.id },
    primaryMemberId: p.primaryMemberId ?? null,
  };
}

/** one drifting field: what the member holds and what the HR record would write */
export interface FieldChange {
  field: string;
  member: unknown;
  hr: unknown;
}

/** the references of an HR record, resolved as 4.2 resolves them */
export interface RecordRefs {
  /** the active member type whose systemIdentifier is employmentType */
  memberTypeId: string;
  /** the service company whose bgId is companyId */
  companyId: string;
  /** the member was found by oldStaffId (a staff-id migration) */
  migrated: boolean;
}

/**
 * Pure: the fields an HR record would change on its member, in 4.2's order
 * (updatedFields), with both values. Empty: in sync.
 */
export function employeeDrift(
  profile: ReconcileProfile,
  record: HrUpdateEmployeeInput,
  refs: RecordRefs,
): FieldChange[] {
  // applyEmployeeRecord reads and copies a whole profile; the fields it does not write are irrelevant to it
  const full = profile as unknown as MemberProfile;
  const result = applyEmployeeRecord(
    full,
    { record, memberTypeId: refs.memberTypeId, companyId: refs.companyId, migrated: refs.migrated },
    '1970-01-01T00:00:00.000Z',
  );
  return result.updatedFields.map((field) => ({
    field,
    member: (full as unknown as Record<string, unknown>)[field] ?? null,
    hr: (result.profile as unknown as Record<string, unknown>)[field] ?? null,
  }));
}

/**
 * Pure: is the member one HR's population must list, so that its absence is
 * a difference? An employee (a staff id, no primary member) whose status a
 * 4.2 termination would change: `inactive` members are out of the program
 * already, and a `rejected` creation never entered it.
 */
export function activeHere(profile: Pick<ReconcileProfile, 'status' | 'staffId' | 'primaryMemberId'>): boolean {
  if (!profile.staffId || profile.primaryMemberId) return false;
  if (profile.status === 'rejected') return false;
  const r = nextMemberStatus(profile.status, { type: 'hrEmployeeUpdate', hrStatus: 'terminated' });
  return r.ok && r.to !== profile.status;
}

/** the leaving reason of a deactivation the reconciliation pushes (the member's statusReason afterwards) */
export const NOT_IN_HR_REASON = 'Not in the HR population (reconciliation)';

/**
 * 4.2 requires a birthdate and the service never stores one (verification
 * only): a deactivation built from the member's own record carries this one,
 * which is checked as a calendar date and written nowhere.
 */
export const UNKNOWN_BIRTHDATE = '1900-01-01';

/** the member's references as a 4.2 record names them */
export interface MemberRefs {
  /** the systemIdentifier of the member's member type, when it is an active one */
  employmentType: string | null;
  /** the HR business group id (bgId) of the member's company */
  bgId: string | null;
}

/**
 * Pure: the 4.2 record that deactivates a member HR no longer lists, built
 * from the member's own record so that it changes its status and status
 * reason only; or the fields it cannot be built without (the member was
 * never updated by HR, or its member type or company has no HR name).
 */
export function terminationRecord(
  profile: ReconcileProfile,
  refs: MemberRefs,
): { record: HrUpdateEmployeeInput } | { missing: string[] } {
  const missing: string[] = [];
  const need = <T>(field: string, value: T | null | undefined): T => {
    if (value === null || value === undefined || (typeof value === 'string' && value.trim() === ''))
      missing.push(field);
    return value as T;
  };
  const address = profile.address;
  const record: HrUpdateEmployeeInput = {
    employeeId: need('staffId', profile.staffId),
    name: need('name', profile.name),
    middleName: profile.middleName && profile.middleName.trim() ? profile.middleName : null,
    surname: need('surname', profile.surname),
    email: need('email', profile.email),
    phone: need('phone', profile.phone),
    grade: need('grade', profile.grade),
    employmentType: need('memberType', refs.employmentType),
    status: 'terminated',
    address: { country: need('address.country', address?.country), address: need('address.address', address?.address) },
    birthdate: UNKNOWN_BIRTHDATE,
    gender: need('gender', profile.gender),
    maritalStatus: need('maritalStatus', profile.maritalStatus),
    coreGrade: need('coreGrade', profile.coreGrade),
    dependantsExists: need('dependantsExists', profile.dependantsExists) as 'Y' | 'N',
    oldStaffId: null,
    lastDayOfService: profile.lastDayOfService ?? null,
    leavingReason: NOT_IN_HR_REASON,
    companyId: need('company', refs.bgId),
  };
  if (record.dependantsExists && record.dependantsExists !== 'Y' && record.dependantsExists !== 'N')
    missing.push('dependantsExists');
  if (missing.length) return { missing };
  // a safety net: the record must change the status and its reason, nothing else of the member
  const drift = employeeDrift(profile, record, {
    memberTypeId: profile.memberType ?? '',
    companyId: profile.company.id,
    migrated: false,
  });
  const others = drift.map((d) => d.field).filter((f) => f !== 'status' && f !== 'statusReason');
  return others.length ? { missing: others } : { record };
}

/**
 * Pure: does the member hold an HR record newer than the population file
 * (`asOf`: when HR produced it)? Then HR has spoken since the export, and the
 * file is not the member's truth: not compared, not corrected, and never
 * missing in HR. Either time unknown: no.
 */
export function newerThanFile(hrRecordedAt: string | null | undefined, asOf: string | undefined): boolean {
  return isStalePush(hrRecordedAt ?? undefined, asOf);
}

/** The outcome of one correction pushed through 4.2. */
export type PushOutcome =
  | { outcome: 'applied'; updatedFields: string[] }
  | { outcome: 'held'; approvalId?: string }
  | { outcome: 'stale' }
  | { outcome: 'failed'; status: number; code?: unknown; reason: string };

/** Pure: a 4.2 answer (status and body) as an outcome; 202 is the quarantine holding a deactivation for review, not a failure. */
export function pushAnswerOutcome(status: number, body: unknown): PushOutcome {
  const b = (body ?? {}) as { body?: { updatedFields?: unknown; held?: unknown; approvalId?: unknown } };
  if (status === 202 || b.body?.held === true)
    return { outcome: 'held', ...(typeof b.body?.approvalId === 'string' ? { approvalId: b.body.approvalId } : {}) };
  if (status >= 200 && status < 300 && (body as { message?: unknown } | null)?.message === HR_MESSAGES.employeeStale)
    return { outcome: 'stale' };
  if (status >= 200 && status < 300)
    return {
      outcome: 'applied',
      updatedFields: Array.isArray(b.body?.updatedFields) ? (b.body.updatedFields as string[]) : [],
    };
  return { outcome: 'failed', status, reason: `answered ${status}` };
}

/** Pure: a refused 4.2 push (an ActorError of the contract, or anything thrown) as a failed outcome naming the fields at fault. */
export function pushErrorOutcome(err: unknown): PushOutcome {
  const e = err as { status?: number; code?: unknown; message?: string; details?: { errors?: unknown } } | null;
  const listed = e?.details?.errors;
  let detail = '';
  // the contract's map (field → messages) or the runtime's list ([{field, reason}])
  if (Array.isArray(listed))
    detail = listed
      .map((f: { field?: unknown; reason?: unknown }) => `${String(f?.field)} ${String(f?.reason)}`)
      .join('; ');
  else if (listed && typeof listed === 'object')
    detail = Object.entries(listed as Record<string, unknown>)
      .map(([f, m]) => `${f} ${[m].flat().join(', ')}`)
      .join('; ');
  return {
    outcome: 'failed',
    status: typeof e?.status === 'number' ? e.status : 500,
    ...(e?.code !== undefined ? { code: e.code } : {}),
    reason: `${e?.message ?? String(err)}${detail ? `: ${detail}` : ''}`,
  };
}

// ---------------------------------------------------------------- the HR population sheet

/**
 * The columns of an HR population sheet (CSV or XLSX, read as the importer
 * reads its sheets): the 4.2 record's fields by name, the address as two
 * columns as in spec 2.9 (addressCountry, address). An empty cell is a
 * field without value (null for the optional ones; a required one is then
 * missing).
 */
export const POPULATION_COLUMNS = [
  'employeeId',
  'name',
  'middleName',
  'surname',
  'email',
  'phone',
  'grade',
  'employmentType',
  'status',
  'addressCountry',
  'address',
  'birthdate',
  'gender',
  'maritalStatus',
  'coreGrade',
  'dependantsExists',
  'oldStaffId',
  'lastDayOfService',
  'leavingReason',
  'companyId',
] as const;

const REQUIRED_COLUMNS = [
  'employeeId',
  'name',
  'surname',
  'email',
  'phone',
  'grade',
  'employmentType',
  'status',
  'addressCountry',
  'address',
  'birthdate',
  'gender',
  'maritalStatus',
  'coreGrade',
  'dependantsExists',
  'companyId',
] as const;
type OptionalColumn = 'middleName' | 'oldStaffId' | 'lastDayOfService' | 'leavingReason';

/** Pure: the required columns a sheet's header lacks. */
export function missingColumns(header: readonly string[]): string[] {
  return REQUIRED_COLUMNS.filter((c) => !header.includes(c));
}

/**
 * Pure: a sheet row (cells as text, empty ones left out) as a 4.2 record.
 * Nothing is checked here but presence: the record then goes through 4.2's
 * own schema and checks (`checkRecord`).
 */
export function recordOfRow(values: Readonly<Record<string, string>>): {
  record: HrUpdateEmployeeInput;
  missing: string[];
} {
  const missing = REQUIRED_COLUMNS.filter((c) => values[c] === undefined || values[c] === '');
  const opt = (c: OptionalColumn) => values[c] ?? null;
  const record = {
    employeeId: values.employeeId ?? '',
    name: values.name ?? '',
    middleName: opt('middleName'),
    surname: values.surname ?? '',
    email: values.email ?? '',
    phone: values.phone ?? '',
    grade: values.grade ?? '',
    employmentType: values.employmentType ?? '',
    status: (values.status ?? '') as HrUpdateEmployeeInput['status'],
    address: { country: values.addressCountry ?? '', address: values.address ?? '' },
    birthdate: values.birthdate ?? '',
    gender: values.gender ?? '',
    maritalStatus: values.maritalStatus ?? '',
    coreGrade: values.coreGrade ?? '',
    dependantsExists: (values.dependantsExists ?? '') as HrUpdateEmployeeInput['dependantsExists'],
    oldStaffId: opt('oldStaffId'),
    lastDayOfService: opt('lastDayOfService'),
    leavingReason: opt('leavingReason'),
    companyId: values.companyId ?? '',
  };
  return { record, missing };
}

/** Pure: 4.2's checks beyond its schema that need no other class (calendar dates). */
export function recordDateProblems(
  record: Pick<HrUpdateEmployeeInput, 'birthdate' | 'lastDayOfService'>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!isCalendarDate(record.birthdate)) out.birthdate = ['is not a valid calendar date'];
  if (record.lastDayOfService && !isCalendarDate(record.lastDayOfService))
    out.lastDayOfService = ['is not a valid calendar date'];
  return out;
}

// ---------------------------------------------------------------- the report

export type DifferenceKind = 'drift' | 'missing_in_program' | 'missing_in_hr' | 'invalid_row';

/**
 * What a difference came to: `reported` (a dry run, or nothing to push),
 * `applied`, `held` (the quarantine holds the deactivation for review),
 * `stale` (4.2 found a record of the employee newer than the file's, pushed
 * since the check, and applied nothing),
 * `failed` (4.2 refused it), `manual` (no 4.2 push can correct it: the
 * operator acts; `reason` says how).
 */
export type DifferenceOutcome = 'reported' | 'applied' | 'held' | 'stale' | 'failed' | 'manual';

export interface Difference {
  kind: DifferenceKind;
  /** the sheet's row (the header is row 1) or the index in `rows` (from 0); absent for a member HR does not list */
  row?: number;
  employeeId: string | null;
  memberId?: string;
  /** drift: the fields, with the member's and HR's values */
  changes?: FieldChange[];
  outcome: DifferenceOutcome;
  status?: number;
  code?: unknown;
  reason?: string;
}

export interface ReconcileSummary {
  apply: boolean;
  /** rows read from HR's population */
  rows: number;
  /** rows whose employee is a member and matches it */
  inSync: number;
  drift: number;
  missingInProgram: number;
  missingInHr: number;
  /** rows 4.2 would refuse (schema, dates, employment type, BG_ID, a staff id twice) */
  invalid: number;
  /** rows of employees HR lists as inactive or terminated who are not members: nothing to do */
  ignored: number;
  /** members holding an HR record newer than the file (`asOf`): neither compared nor missing in HR */
  newerInService: number;
  /** members checked as candidates for "missing in HR" (read from their state) */
  candidatesChecked: number;
  applied: number;
  held: number;
  stale: number;
  failed: number;
  manual: number;
  seconds: number;
}

export function emptySummary(apply: boolean): ReconcileSummary {
  return {
    apply,
    rows: 0,
    inSync: 0,
    drift: 0,
    missingInProgram: 0,
    missingInHr: 0,
    invalid: 0,
    ignored: 0,
    newerInService: 0,
    candidatesChecked: 0,
    applied: 0,
    held: 0,
    stale: 0,
    failed: 0,
    manual: 0,
    seconds: 0,
  };
}

/** Pure: the summary counting one more difference. */
export function countDifference(summary: ReconcileSummary, d: Difference): void {
  if (d.kind === 'drift') summary.drift++;
  else if (d.kind === 'missing_in_program') summary.missingInProgram++;
  else if (d.kind === 'missing_in_hr') summary.missingInHr++;
  else summary.invalid++;
  if (d.outcome === 'applied') summary.applied++;
  else if (d.outcome === 'held') summary.held++;
  else if (d.outcome === 'stale') summary.stale++;
  else if (d.outcome === 'failed') summary.failed++;
  else if (d.outcome === 'manual') summary.manual++;
}

/** Pure: does the run leave something the operator must look at (a failure or a row 4.2 would refuse)? */
export function hasErrors(summary: ReconcileSummary): boolean {
  return summary.failed > 0 || summary.invalid > 0;
}

export const REPORT_HEADER = 'kind,row,employeeId,memberId,fields,outcome,code,reason,changes';

function csvCell(v: unknown): string {
  const s = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(s) || /^[=+\-@]/.test(s) ? `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"` : s;
}

/**
 * Pure: a difference as a line of the CSV report. `changes` holds
 * `field: member → hr` pairs. A cell a spreadsheet would run as a formula
 * (=, +, -, @ first) is quoted with a leading apostrophe.
 */
export function reportLine(d: Difference): string {
  const changes = (d.changes ?? [])
    .map((c) => `${c.field}: ${JSON.stringify(c.member)} → ${JSON.stringify(c.hr)}`)
    .join('; ');
  const cells = [
    d.kind,
    d.row,
    d.employeeId,
    d.memberId,
    (d.changes ?? []).map((c) => c.field).join(' '),
    d.outcome,
    d.code,
    d.reason,
    changes,
  ];
  return `${cells.map(csvCell).join(',')}\n`;
}

/** the 4.2 fields a difference may name, in 4.2's order (for documentation and tests) */
export const DRIFT_FIELDS: readonly string[] = EMPLOYEE_FIELDS;
