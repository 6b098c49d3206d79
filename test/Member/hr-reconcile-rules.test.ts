/**
 * The reconciliation's pure rules (classes/Member/hr-reconcile.ts): drift is
 * what a 4.2 push of the row would write, a member is missing in HR only when
 * it is an employee a termination would change, the deactivation built from
 * the member's own record changes its status and reason and nothing else,
 * sheet rows become 4.2 records, and 4.2's answers read as outcomes (202 is
 * held, not failed).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  activeHere,
  countDifference,
  emptySummary,
  employeeDrift,
  hasErrors,
  missingColumns,
  newerThanFile,
  NOT_IN_HR_REASON,
  POPULATION_COLUMNS,
  pushAnswerOutcome,
  pushErrorOutcome,
  recordDateProblems,
  recordOfRow,
  reportLine,
  terminationRecord,
  type ReconcileProfile,
} from '../../classes/Member/hr-reconcile';
import { projectRoot } from '../../runtime/config';
import { employeeRecord } from './support';
import type { HrUpdateEmployeeInput } from '../../schemas/Member/inputs';

const record = (o: Record<string, unknown> = {}) => employeeRecord('E1', o) as unknown as HrUpdateEmployeeInput;
const refs = { memberTypeId: 'mt-perm', companyId: 'c-1', migrated: false };

/** a member as a 4.2 push of record() leaves it */
function member(o: Partial<ReconcileProfile> = {}): ReconcileProfile {
  return {
    id: 'm-1',
    status: 'active',
    statusReason: null,
    staffId: 'E1',
    previousStaffIds: [],
    name: 'Ada',
    middleName: null,
    surname: 'Lovelace',
    email: 'e1@example.com',
    phone: '+100000',
    grade: 'G1',
    memberType: 'mt-perm',
    address: { country: 'AE', address: '1 Main Street' },
    gender: 'F',
    maritalStatus: 'single',
    coreGrade: 'C1',
    dependantsExists: 'N',
    lastDayOfService: null,
    company: { id: 'c-1' },
    primaryMemberId: null,
    ...o,
  };
}

describe('drift: what a 4.2 push of the row would write', () => {
  test('a member as the record left it: in sync; birthdate is never compared (never stored)', () => {
    expect(employeeDrift(member(), record(), refs)).toEqual([]);
    expect(employeeDrift(member(), record({ birthdate: '1970-01-01' }), refs)).toEqual([]);
  });

  test('each differing field once, in 4.2 order, with both values', () => {
    const drift = employeeDrift(member({ grade: 'G9', phone: '+1', gender: null }), record(), refs);
    expect(drift).toEqual([
      { field: 'phone', member: '+1', hr: '+100000' },
      { field: 'grade', member: 'G9', hr: 'G1' },
      { field: 'gender', member: null, hr: 'F' },
    ]);
  });

  test('references: another member type or company is drift; HR terminated is status and statusReason', () => {
    expect(
      employeeDrift(member(), record(), { ...refs, memberTypeId: 'mt-temp', companyId: 'c-2' }).map((d) => d.field),
    ).toEqual(['memberType', 'company']);
    expect(employeeDrift(member(), record({ status: 'terminated', leavingReason: 'Resigned' }), refs)).toEqual([
      { field: 'status', member: 'active', hr: 'inactive' },
      { field: 'statusReason', member: null, hr: 'Resigned' },
    ]);
    // HR active on a member still onboarding: 4.2 leaves the status alone, so no drift
    expect(employeeDrift(member({ status: 'pending_invite' }), record(), refs)).toEqual([]);
  });

  test('a staff-id migration (found by oldStaffId) drifts staffId and previousStaffIds', () => {
    const drift = employeeDrift(member({ staffId: 'E0' }), record({ oldStaffId: 'E0' }), { ...refs, migrated: true });
    expect(drift).toEqual([
      { field: 'staffId', member: 'E0', hr: 'E1' },
      { field: 'previousStaffIds', member: [], hr: ['E0'] },
    ]);
  });
});

describe('missing in HR', () => {
  test('only employees a termination would change count', () => {
    expect(activeHere(member())).toBe(true);
    expect(activeHere(member({ status: 'pending_invite' }))).toBe(true);
    expect(activeHere(member({ status: 'suspended' }))).toBe(true);
    expect(activeHere(member({ status: 'inactive' }))).toBe(false);
    expect(activeHere(member({ status: 'rejected' }))).toBe(false);
    // a dependant, or a member without a staff id, is no employee HR lists
    expect(activeHere(member({ primaryMemberId: 'm-0' }))).toBe(false);
    expect(activeHere(member({ staffId: null }))).toBe(false);
  });

  test("the deactivation is the member's own record with status terminated: it changes status and statusReason only", () => {
    const built = terminationRecord(member({ middleName: 'B', lastDayOfService: '2026-01-31' }), {
      employmentType: 'Permanent',
      bgId: 'BG1',
    });
    if (!('record' in built)) throw new Error(`not built: ${built.missing}`);
    expect(built.record).toMatchObject({
      employeeId: 'E1',
      status: 'terminated',
      leavingReason: NOT_IN_HR_REASON,
      companyId: 'BG1',
      employmentType: 'Permanent',
      middleName: 'B',
      lastDayOfService: '2026-01-31',
      oldStaffId: null,
    });
    expect(recordDateProblems(built.record)).toEqual({});
    const drift = employeeDrift(member({ middleName: 'B', lastDayOfService: '2026-01-31' }), built.record, refs);
    expect(drift).toEqual([
      { field: 'status', member: 'active', hr: 'inactive' },
      { field: 'statusReason', member: null, hr: NOT_IN_HR_REASON },
    ]);
  });

  test('a member never updated by HR (no gender, ...) or whose member type has no active HR name cannot be deactivated by a push', () => {
    expect(
      terminationRecord(member({ gender: null, coreGrade: '' }), { employmentType: 'Permanent', bgId: 'BG1' }),
    ).toEqual({ missing: ['gender', 'coreGrade'] });
    expect(terminationRecord(member({ address: null }), { employmentType: null, bgId: null })).toEqual({
      missing: ['memberType', 'address.country', 'address.address', 'company'],
    });
  });
});

test("a member holding an HR record newer than the file is the file's no longer; unknown times compare as nothing", () => {
  expect(newerThanFile('2026-11-29T08:00:00.000Z', '2026-11-29T06:00:00.000Z')).toBe(true);
  expect(newerThanFile('2026-11-29T06:00:00.000Z', '2026-11-29T06:00:00.000Z')).toBe(false);
  expect(newerThanFile('2026-11-29T05:00:00.000Z', '2026-11-29T06:00:00.000Z')).toBe(false);
  expect(newerThanFile(null, '2026-11-29T06:00:00.000Z')).toBe(false);
  expect(newerThanFile('2026-11-29T08:00:00.000Z', undefined)).toBe(false);
});

describe('the HR population sheet', () => {
  test('a row of cells becomes the 4.2 record; empty optional cells are null, absent required ones are named', () => {
    const values: Record<string, string> = {
      employeeId: 'E1',
      name: 'Ada',
      surname: 'Lovelace',
      email: 'e1@example.com',
      phone: '+100000',
      grade: 'G1',
      employmentType: 'Permanent',
      status: 'active',
      addressCountry: 'AE',
      address: '1 Main Street',
      birthdate: '1990-05-01',
      gender: 'F',
      maritalStatus: 'single',
      coreGrade: 'C1',
      dependantsExists: 'N',
      companyId: 'BG1',
    };
    const { record: rec, missing } = recordOfRow(values);
    expect(missing).toEqual([]);
    expect(rec).toEqual(employeeRecord('E1', { email: 'e1@example.com' }));
    const { email: _e, grade: _g, ...without } = values;
    expect(recordOfRow(without).missing).toEqual(['email', 'grade']);
  });

  test('a header without a required column is named; the optional ones may be left out', () => {
    expect(missingColumns(POPULATION_COLUMNS.filter((c) => c !== 'coreGrade' && c !== 'middleName'))).toEqual([
      'coreGrade',
    ]);
    expect(missingColumns([...POPULATION_COLUMNS])).toEqual([]);
  });

  test('calendar dates as 4.2 checks them', () => {
    expect(recordDateProblems({ birthdate: '2026-02-30', lastDayOfService: '2026-13-01' })).toEqual({
      birthdate: ['is not a valid calendar date'],
      lastDayOfService: ['is not a valid calendar date'],
    });
  });

  test("the back-office method's rows are the 4.2 record: its schema's items are hrUpdateEmployee.json's rules", () => {
    const read = (name: string) =>
      JSON.parse(fs.readFileSync(path.join(projectRoot(), 'schemas/Member', name), 'utf8'));
    const hr = read('hrUpdateEmployee.json');
    const items = read('reconcileHrPopulation.json').properties.rows.items;
    expect(items.required).toEqual(hr.required);
    expect(items.properties).toEqual(hr.properties);
  });
});

describe('outcomes and the report', () => {
  test("4.2's answers: 200 applied, 202 (the quarantine) held, a refusal failed with its fields", () => {
    expect(pushAnswerOutcome(200, { success: true, body: { updatedFields: ['grade'] } })).toEqual({
      outcome: 'applied',
      updatedFields: ['grade'],
    });
    expect(pushAnswerOutcome(202, { success: true, code: 10076, body: { held: true, approvalId: 'a-1' } })).toEqual({
      outcome: 'held',
      approvalId: 'a-1',
    });
    const refused = pushErrorOutcome(
      Object.assign(new Error('Validation failed'), {
        status: 400,
        code: 10001,
        details: { errors: { email: ['is already used by another member'] } },
      }),
    );
    expect(refused).toEqual({
      outcome: 'failed',
      status: 400,
      code: 10001,
      reason: 'Validation failed: email is already used by another member',
    });
    // 4.2 found a newer record than the file's (its X-HR-Timestamp): nothing applied, not a failure
    expect(
      pushAnswerOutcome(200, {
        success: true,
        message: 'A newer record of this employee was already applied; this one was not',
        body: { updatedFields: [] },
      }),
    ).toEqual({ outcome: 'stale' });
    expect(
      pushErrorOutcome(
        Object.assign(new Error('bad'), { status: 400, details: { errors: [{ field: 'rows.0.email', reason: 'x' }] } }),
      ),
    ).toMatchObject({ reason: 'bad: rows.0.email x' });
  });

  test('the summary counts kinds and outcomes; errors are failures and invalid rows, not held or manual ones', () => {
    const s = emptySummary(true);
    countDifference(s, { kind: 'drift', employeeId: 'E1', outcome: 'applied' });
    countDifference(s, { kind: 'missing_in_hr', employeeId: 'E2', outcome: 'held' });
    countDifference(s, { kind: 'missing_in_program', employeeId: 'E3', outcome: 'manual' });
    expect(s).toMatchObject({
      drift: 1,
      missingInHr: 1,
      missingInProgram: 1,
      applied: 1,
      held: 1,
      manual: 1,
      failed: 0,
    });
    expect(hasErrors(s)).toBe(false);
    countDifference(s, { kind: 'invalid_row', employeeId: 'E4', outcome: 'reported' });
    expect(hasErrors(s)).toBe(true);
  });

  test('a report line: CSV cells quoted where needed, formulas neutralised, changes as member → hr', () => {
    const line = reportLine({
      kind: 'drift',
      row: 7,
      employeeId: 'E1',
      memberId: 'm-1',
      changes: [
        { field: 'grade', member: 'G9', hr: 'G1' },
        { field: 'name', member: 'A, B', hr: '=1+1' },
      ],
      outcome: 'reported',
    });
    expect(line).toBe('drift,7,E1,m-1,grade name,reported,,,"grade: ""G9"" → ""G1""; name: ""A, B"" → ""=1+1"""\n');
    expect(reportLine({ kind: 'invalid_row', row: 3, employeeId: '=cmd', outcome: 'reported', reason: 'x' })).toBe(
      `invalid_row,3,"'=cmd",,,reported,,x,\n`,
    );
  });
});
