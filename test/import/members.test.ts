/**
 * Importing the member sheets (spec 2.9 member sheet and "the
 * service member sheet") over a real runtime seeded with examples/seed.json,
 * with examples/import/mapping.json, called as the CLI calls: the system
 * identity named after the run.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ExcelJS from 'exceljs';
import { importActorName } from '../../classes/_platform/import/import.cli';
import { loadMapping } from '../../classes/_platform/import/mapping';
import { runImport } from '../../classes/_platform/import/run';
import { SHEETS } from '../../classes/_platform/import/sheets';
import { projectRoot } from '../../runtime/config';
import type { TestRuntime } from '../support/harness';
import { auditOf, startSeededRuntime } from './support';

const root = projectRoot();
const sample = (name: string) => path.join(root, 'examples/import', name);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-members-'));
const errorLines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').slice(1) : [];
const mapping = loadMapping(sample('mapping.json'));
const HEADER = fs.readFileSync(sample('members.csv'), 'utf8').split('\n')[0]!;
const COLUMNS = HEADER.split(',');

/** a member sheet row from the columns it fills */
function memberRow(cells: Record<string, string>): string {
  return COLUMNS.map((c) => {
    const v = cells[c] ?? '';
    return /[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
  }).join(',');
}

function sheetFile(name: string, rows: string[], header = HEADER): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, `${[header, ...rows].join('\n')}\n`);
  return file;
}

type Profile = Record<string, any>;

describe('importing the member sheets', () => {
  let t: TestRuntime;
  let n = 0;
  const run = (sheet: string, file: string, opts: { dryRun?: boolean; errorsFile?: string } = {}) => {
    const identity = { type: 'system' as const, userId: 'import', claims: { name: importActorName(sheet, file) } };
    return runImport(SHEETS[sheet]!, file, (c, m, i, b) => t.rt.call(c, m, i, b, { identity }), {
      errorsFile: path.join(tmp, `${sheet}-${++n}.errors.csv`),
      mapping,
      ...opts,
    });
  };
  const byStaffId = async (staffId: string): Promise<Profile> => {
    const id = await t.rt.store.resolveLookup('Member', 'staffId', staffId);
    if (!id) throw new Error(`no member with staff id ${staffId}`);
    return profile(id);
  };
  const profile = async (id: string): Promise<Profile> => {
    const s = await t.rt.store.read('Member', id);
    if (!s) throw new Error(`no member ${id}`);
    return JSON.parse(s.stateJson).private.profile as Profile;
  };
  beforeAll(async () => {
    t = await startSeededRuntime();
  });
  afterAll(() => t.stop());

  test('the member sample: a dry run predicts the counts and writes nothing; the import creates employees, dependants (one before its employee) and memberships; a re-run changes nothing', async () => {
    const dryErrors = path.join(tmp, 'members-dry.errors.csv');
    expect(await run('members', sample('members.csv'), { dryRun: true, errorsFile: dryErrors })).toMatchObject({
      rows: 5,
      created: 4,
      updated: 1,
      unchanged: 0,
      failed: 0,
      dryRun: true,
    });
    expect(errorLines(dryErrors)).toEqual([]);
    expect(await t.rt.store.resolveLookup('Member', 'staffId', 'E2001')).toBeFalsy();
    expect((await byStaffId('E1001')).memberships).toEqual([]);

    const errorsFile = path.join(tmp, 'members.errors.csv');
    expect(await run('members', sample('members.csv'), { errorsFile })).toMatchObject({
      rows: 5,
      created: 4,
      updated: 1,
      unchanged: 0,
      failed: 0,
    });
    expect(errorLines(errorsFile)).toEqual([]);

    const samir = await byStaffId('E2001');
    expect(samir).toMatchObject({
      name: 'Samir',
      middleName: 'Ali',
      surname: 'Khan',
      email: 'samir.khan@acme.example',
      grade: 'G5',
      isCabinCrew: true,
      company: { id: 'acme' },
      memberType: 'mt-permanent',
      address: { country: 'AE', address: '12 Palm Street, Dubai' },
      status: 'pending_invite',
      primaryMemberId: null,
      createdBy: { id: 'import', type: 'system', name: 'system: import members members.csv' },
    });
    expect(samir.memberships).toHaveLength(1);
    expect(samir.memberships[0]).toMatchObject({
      tierId: 'tier-base-2026',
      status: 'active',
      paymentType: 'dds',
      paymentPeriod: 'monthly',
      startDate: '2026-02-01T00:00:00.000Z',
      endDate: '2027-01-31T00:00:00.000Z',
      lastRenewal: '2026-02-01T00:00:00.000Z',
    });
    expect(samir.memberships[0].paymentSchedule).toHaveLength(12);
    expect(samir.memberships[0].paymentSchedule[1]).toEqual({ dueDate: '2026-03-01T00:00:00.000Z', amount: 0 });

    // the dependant row stood before its employee's: imported after it, listed in its family
    const layla = await profile('D-3001');
    expect(layla).toMatchObject({
      name: 'Layla',
      surname: 'Khan',
      primaryMemberId: samir.id,
      relation: 'spouse',
      memberSubType: 'mst-spouse',
      company: { id: 'acme' },
      memberType: 'mt-permanent',
      status: 'active',
    });
    expect(layla.memberships[0]).toMatchObject({
      tierId: 'tier-base-2026',
      paymentType: 'company_paid',
      paymentSchedule: [],
    });
    expect(samir.familyMembers).toEqual([
      expect.objectContaining({ id: 'D-3001', relation: 'spouse', memberSubType: 'mst-spouse' }),
    ]);

    const amal = await byStaffId('E1001');
    expect(amal).toMatchObject({ isCabinCrew: false, status: 'active', loginMethod: 'sso' });
    expect(amal.memberships[0]).toMatchObject({ paymentType: 'company_paid', startDate: '2026-01-01T00:00:00.000Z' });
    expect(amal.familyMembers.map((f: Profile) => f.id)).toEqual(['D-3002']);
    expect(await byStaffId('E2002')).toMatchObject({ memberType: 'mt-temporary', memberships: [] });

    // audited under the import's actor, nothing waiting for approval
    const entries = await auditOf(t, samir.id);
    const importActor = { id: 'import', type: 'system', name: 'system: import members members.csv' };
    // its creation, and the family link its dependant made
    expect(entries.find((e) => e.additionalData?.source === 'import')).toMatchObject({ actor: importActor });
    expect(entries.find((e) => e.additionalData?.source === 'family_member_link')).toMatchObject({
      actor: importActor,
      additionalData: { familyMemberId: 'D-3001' },
    });
    expect(entries).toHaveLength(2);
    const amalEntries = await auditOf(t, amal.id);
    expect(
      amalEntries.some(
        (e) =>
          e.actor?.name === 'system: import members members.csv' &&
          e.additionalData?.updatedFields?.includes('memberships'),
      ),
    ).toBe(true);
    expect(JSON.parse((await t.rt.store.read('Member', amal.id))!.stateJson).private.pendingChange ?? null).toBeNull();

    expect(await run('members', sample('members.csv'))).toMatchObject({
      rows: 5,
      created: 0,
      updated: 0,
      unchanged: 5,
      failed: 0,
    });
    expect(await run('members', sample('members.csv'), { dryRun: true })).toMatchObject({
      rows: 5,
      created: 0,
      updated: 0,
      unchanged: 5,
      failed: 0,
    });
  });

  test('the dependants sample adds dependants to an existing employee, one keyed without dependantId, and re-imports unchanged', async () => {
    const errorsFile = path.join(tmp, 'dependants.errors.csv');
    expect(await run('dependants', sample('dependants.csv'), { dryRun: true })).toMatchObject({
      rows: 2,
      created: 2,
      failed: 0,
    });
    expect(await run('dependants', sample('dependants.csv'), { errorsFile })).toMatchObject({
      rows: 2,
      created: 2,
      updated: 0,
      unchanged: 0,
      failed: 0,
    });
    expect(errorLines(errorsFile)).toEqual([]);
    const amal = await byStaffId('E1001');
    const spouse = amal.familyMembers.find((f: Profile) => f.relation === 'spouse');
    expect(spouse).toMatchObject({ name: 'Karim', surname: 'Haddad', memberSubType: 'mst-spouse' });
    expect(await profile(spouse.id)).toMatchObject({
      middleName: 'Omar',
      email: 'karim.haddad@example.com',
      phone: '+971500000401',
      primaryMemberId: amal.id,
    });
    expect(await profile('D-3101')).toMatchObject({
      name: 'Rami',
      relation: 'child',
      memberSubType: 'mst-child',
      primaryMemberId: amal.id,
    });
    expect(await run('dependants', sample('dependants.csv'))).toMatchObject({
      rows: 2,
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
    });

    // a changed cell updates the dependant and its entry in the family
    const file = sheetFile(
      'dependants-changed.csv',
      ['E1001,D-3101,child,Ramy,,Haddad,+971500000402,,2018-03-14'],
      'employeeId,dependantId,relation,name,middleName,surname,phone,email,birthdate',
    );
    expect(await run('dependants', file)).toMatchObject({ rows: 1, updated: 1 });
    expect(await profile('D-3101')).toMatchObject({ name: 'Ramy', phone: '+971500000402' });
    expect((await byStaffId('E1001')).familyMembers.find((f: Profile) => f.id === 'D-3101')).toMatchObject({
      name: 'Ramy',
    });
  });

  test("a dry run reads a dependant that exists but is not listed by the row's employee, and predicts what the import then does", async () => {
    // D-3101 is Amal's (E1001) child since the dependants sample; this row names Samir (E2001) as its employee
    const file = sheetFile(
      'dependant-elsewhere.csv',
      ['E2001,D-3101,child,Rami,,Haddad,,,2018-03-14'],
      'employeeId,dependantId,relation,name,middleName,surname,phone,email,birthdate',
    );
    const dryErrors = path.join(tmp, 'dependant-elsewhere-dry.errors.csv');
    const errorsFile = path.join(tmp, 'dependant-elsewhere.errors.csv');
    const dry = await run('dependants', file, { dryRun: true, errorsFile: dryErrors });
    const real = await run('dependants', file, { errorsFile });
    const counts = ({ created, updated, unchanged, failed }: typeof dry) => ({ created, updated, unchanged, failed });
    expect(counts(dry)).toEqual(counts(real));
    expect(dry.created).toBe(0);
    expect(errorLines(dryErrors)).toEqual(errorLines(errorsFile));
  });

  test("a dependant id is admitted up to the HR dependant contract's 128 characters, and refused past it naming dependantId", async () => {
    const header = 'employeeId,dependantId,relation,name,middleName,surname,phone,email,birthdate';
    const longest = `D${'7'.repeat(127)}`;
    const file = sheetFile(
      'dependant-id-length.csv',
      [`E1001,${longest},child,Sara,,Haddad,,,2019-07-01`, `E1001,${longest}8,child,Sami,,Haddad,,,2019-07-02`],
      header,
    );
    const errorsFile = path.join(tmp, 'dependant-id-length.errors.csv');
    expect(await run('dependants', file, { errorsFile })).toMatchObject({ rows: 2, created: 1, failed: 1 });
    expect(await profile(longest)).toMatchObject({ name: 'Sara', primaryMemberId: (await byStaffId('E1001')).id });
    expect(errorLines(errorsFile)).toEqual([expect.stringMatching(/^3,dependantId,D7+8,.*at most 128/)]);
  });

  test('oldEmployeeId moves a member to its new staff id, keeping the old one; a re-run changes nothing', async () => {
    const noura = await byStaffId('E2002');
    const row = memberRow({
      employeeId: 'E2102',
      oldEmployeeId: 'E2002',
      email: 'noura.saeed@acme.example',
      name: 'Noura',
      surname: 'Saeed',
      phone: '+971500000303',
      grade: 'G3',
      isCabinCrew: 'false',
      employmentType: 'Temporary',
      companyId: 'BG-100',
      addressCountry: 'AE',
      address: '4 Creek Road, Dubai',
    });
    const file = sheetFile('migration.csv', [row]);
    expect(await run('members', file, { dryRun: true })).toMatchObject({ rows: 1, updated: 1 });
    expect(await run('members', file)).toMatchObject({ rows: 1, created: 0, updated: 1, failed: 0 });
    expect(await byStaffId('E2102')).toMatchObject({ id: noura.id, staffId: 'E2102', previousStaffIds: ['E2002'] });
    expect(await t.rt.store.resolveLookup('Member', 'staffId', 'E2002')).toBeFalsy();
    expect(await run('members', file)).toMatchObject({ rows: 1, unchanged: 1 });

    // the old file again: its staff id is free now, but the member imported for it holds the new one; refused, nothing created
    const oldRow = sheetFile('migration-old.csv', [row.replace('E2102,E2002,', 'E2002,,')]);
    const errorsFile = path.join(tmp, 'migration-old.errors.csv');
    const dryErrors = path.join(tmp, 'migration-old-dry.errors.csv');
    expect(await run('members', oldRow, { errorsFile: dryErrors, dryRun: true })).toMatchObject({
      rows: 1,
      created: 0,
      updated: 0,
      failed: 1,
    });
    expect(await run('members', oldRow, { errorsFile })).toMatchObject({ rows: 1, created: 0, updated: 0, failed: 1 });
    expect(errorLines(errorsFile)).toEqual([
      `2,employeeId,E2002,"Member '${noura.id}', imported for staff id 'E2002', now holds staff id 'E2102'"`,
    ]);
    expect(errorLines(dryErrors)).toEqual(errorLines(errorsFile));
    expect(await byStaffId('E2102')).toMatchObject({ id: noura.id, previousStaffIds: ['E2002'] });
  });

  test('every column type error, unknown reference and duplicate goes to the error file with row, column, value and reason, the same in a dry run', async () => {
    const ok = { email: '', name: 'Test', surname: 'Row', employmentType: 'Permanent', companyId: 'ACME' };
    const file = sheetFile('members-bad.csv', [
      memberRow({ ...ok, employeeId: 'X1', birthdate: '12/05/1990' }),
      memberRow({ ...ok, employeeId: 'X2', isCabinCrew: 'maybe' }),
      memberRow({ ...ok, employeeId: 'X3', employmentType: 'Contractor' }),
      memberRow({ ...ok, employeeId: 'X4', companyId: 'NOPE' }),
      memberRow({ ...ok, employeeId: 'X5', primaryMemberType: 'Gold', membershipPaymentType: 'DDS' }),
      memberRow({ ...ok, employeeId: 'X6', employmentType: 'Retire' }),
      memberRow({ ...ok, employeeId: 'X7', primaryMemberType: 'Regular', membershipPaymentType: 'Cash' }),
      memberRow({
        ...ok,
        employeeId: 'X8',
        primaryMemberType: 'Regular',
        membershipPaymentType: 'DDS',
        membershipStatus: 'paused',
      }),
      memberRow({
        ...ok,
        employeeId: 'X9',
        primaryMemberType: 'Regular',
        membershipPaymentType: 'DDS',
        membershipStart: '2026-13-01',
      }),
      memberRow({ ...ok, employeeId: 'X10', dependantType: 'cousin' }),
      memberRow({ ...ok, employeeId: 'X11', employmentType: 'Dependant', dependantType: 'child' }),
      memberRow({ ...ok, employeeId: 'X12', name: '' }),
      memberRow({
        ...ok,
        employeeId: 'X13',
        employmentType: 'Temporary',
        primaryMemberType: 'Regular',
        membershipPaymentType: 'DDS',
      }),
      memberRow({
        ...ok,
        employeeId: 'X14',
        primaryMemberType: 'Regular',
        membershipPaymentType: 'DDS',
        membershipStart: '2025-06-01',
      }),
      memberRow({ ...ok, employeeId: 'X15', email: 'amal.haddad@acme.example' }),
      memberRow({ ...ok, employeeId: 'X16', dependantId: 'D-9', employmentType: 'Dependant', dependantType: 'child' }),
      memberRow({ ...ok, employeeId: 'X17', updatedAt: 'yesterday' }),
      memberRow({ ...ok, employeeId: 'X18', membershipPaymentType: 'DDS' }),
      memberRow({ ...ok, employeeId: 'X19', address: '1 Road' }),
      memberRow({ ...ok, employeeId: 'X20', name: 'First' }),
      memberRow({ ...ok, employeeId: 'X20', name: 'Second' }),
    ]);
    const dryErrors = path.join(tmp, 'members-bad-dry.errors.csv');
    const realErrors = path.join(tmp, 'members-bad-real.errors.csv');
    expect(await run('members', file, { dryRun: true, errorsFile: dryErrors })).toMatchObject({
      rows: 21,
      created: 1,
      failed: 20,
    });
    expect(await run('members', file, { errorsFile: realErrors })).toMatchObject({ rows: 21, created: 1, failed: 20 });
    const lines = errorLines(realErrors).sort();
    const expected = [
      '2,birthdate,12/05/1990,not an ISO 8601 date',
      '3,isCabinCrew,maybe,not a boolean (true/false)',
      '4,employmentType,Contractor,"not one of Permanent, Temporary, Retire, Dependant, Associated Company"',
      "5,companyId,NOPE,no company with HR business group id 'NOPE' (mapping companies)",
      "6,primaryMemberType,Gold,no tier 'Gold' (mapping tiers)",
      "7,employmentType,Retire,no active member type with system identifier 'Retire' (mapping memberTypes)",
      '8,membershipPaymentType,Cash,"not one of DDS, Credit Card, Company Paid"',
      '9,membershipStatus,paused,"not one of active, inactive"',
      '10,membershipStart,2026-13-01,not an ISO 8601 date',
      '11,dependantType,cousin,"not one of spouse, child, sibling, in-law, parent"',
      '12,dependantId,,required for a Dependant row',
      '13,name,,required',
      '18,updatedAt,yesterday,not an ISO 8601 date',
      '19,membershipPaymentType,DDS,a membership needs primaryMemberType (its tier)',
      '20,addressCountry,,address and addressCountry go together',
      '22,employeeId,X20,duplicate of row 21',
    ];
    for (const line of expected) expect(lines).toContain(line);
    // refusals of Member's own rules name the column, with Member's reason
    expect(lines.find((l) => l.startsWith('14,'))).toMatch(
      /^14,primaryMemberType,Regular,The member satisfies no active eligibility rule of tier 'tier-base-2026'/,
    );
    expect(lines.find((l) => l.startsWith('15,'))).toMatch(
      /^15,membershipStart,2025-06-01,startDate is before tier 'tier-base-2026' starts/,
    );
    expect(lines.find((l) => l.startsWith('16,'))).toMatch(
      /^16,email,amal.haddad@acme.example,Email 'amal.haddad@acme.example' belongs to another member/,
    );
    expect(lines.find((l) => l.startsWith('17,'))).toMatch(/^17,employeeId,X16,No member with staff id 'X16'/);
    expect(lines).toHaveLength(20);
    expect(errorLines(dryErrors).sort()).toEqual(lines);
    // the one good row (X20, first) was created; the refused ones were not
    expect(await byStaffId('X20')).toMatchObject({ name: 'First' });
    expect(await t.rt.store.resolveLookup('Member', 'staffId', 'X4')).toBeFalsy();
  });

  test('an XLSX member sheet imports like its CSV, and a dependant row of a dry run counts on the employee the same file creates', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('members');
    ws.addRow(COLUMNS);
    const rowOf = (cells: Record<string, unknown>) => COLUMNS.map((c) => cells[c] ?? null);
    ws.addRow(
      rowOf({
        employeeId: 'E4001',
        dependantId: 'D-4001',
        name: 'Hala',
        surname: 'Nasser',
        employmentType: 'Dependant',
        dependantType: 'child',
        birthdate: new Date('2016-07-01T00:00:00Z'),
      }),
    );
    ws.addRow(
      rowOf({
        employeeId: 'E4001',
        email: 'tariq.nasser@acme.example',
        name: 'Tariq',
        surname: 'Nasser',
        isCabinCrew: true,
        employmentType: 'Permanent',
        companyId: 'ACME',
        birthdate: new Date('1980-02-02T00:00:00Z'),
        primaryMemberType: 'Regular',
        membershipPaymentType: 'DDS',
        membershipStart: new Date('2026-03-01T00:00:00Z'),
      }),
    );
    const file = path.join(tmp, 'members.xlsx');
    await wb.xlsx.writeFile(file);
    expect(await run('members', file, { dryRun: true })).toMatchObject({ rows: 2, created: 2, failed: 0 });
    expect(await run('members', file)).toMatchObject({ rows: 2, created: 2, failed: 0 });
    const tariq = await byStaffId('E4001');
    expect(tariq).toMatchObject({ isCabinCrew: true, familyMembers: [expect.objectContaining({ id: 'D-4001' })] });
    expect(tariq.memberships[0]).toMatchObject({
      startDate: '2026-03-01T00:00:00.000Z',
      paymentPeriod: 'monthly',
      endDate: '2027-03-01T00:00:00.000Z',
    });
    expect(await run('members', file)).toMatchObject({ rows: 2, unchanged: 2 });
  });
});
