/**
 * `hr:reconcile` on a 10,000-employee population against a seeded program:
 * the command itself (classes/Member/hr-reconcile.cli.ts, its commander
 * action) run in this process on the test runtime, over real Redis, the real
 * classes and 4.2 itself.
 *
 *  1. a dry run reports exactly the differences the program was seeded with
 *     (drift of each kind, staff-id migrations, company moves, HR
 *     terminations, missing in the program, missing in HR, members that
 *     cannot be deactivated by a push) and writes nothing;
 *  2. --apply corrects every drift and every member missing in HR through
 *     4.2 (audited under the run's name);
 *  3. the operator does what no push can (imports the employees missing in
 *     the program with the importer, deactivates the members HR never
 *     updated), and --apply fills the imported members' HR fields;
 *  4. the next run reports nothing.
 *
 * The 10,000 members are written as the state a 4.2 push leaves (under each
 * instance's lease, version-checked, streamed, with their lookup keys) rather
 * than created one by one through seedMember and a push: that path takes
 * about 6 ms a member on two cores, a minute for the program alone.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { registerCommands } from '../../classes/Member/hr-reconcile.cli';
import { POPULATION_COLUMNS, type ReconcileSummary } from '../../classes/Member/hr-reconcile';
import { runImport } from '../../classes/_platform/import/run';
import { SHEETS } from '../../classes/_platform/import/sheets';
import { serializeState } from '../../runtime/actor/state-store';
import type { TestRuntime } from '../support/harness';
import { employeeRecord, memberLogs, memberState, seedProgram, startMemberRuntime } from './support';

const N = 10_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hr-reconcile-'));

/** what the program was seeded with, by HR row index i */
const kindOf = (i: number) => {
  if (i % 100 === 1) return 'grade';
  if (i % 100 === 2) return 'nameAndPhone';
  if (i % 500 === 3) return 'terminated';
  if (i % 1000 === 4) return 'migration';
  if (i % 1000 === 5) return 'missingInProgram';
  if (i % 1000 === 6) return 'notMemberTerminated';
  if (i % 1000 === 8) return 'companyMove';
  return 'inSync';
};
const staffId = (i: number) => `R${i}`;

/** HR's record of employee i (the 4.2 record) */
function hrRecord(i: number): Record<string, unknown> {
  const kind = kindOf(i);
  return employeeRecord(staffId(i), {
    name: `Name${i}`,
    email: `r${i}@example.com`,
    phone: `+9715${String(i).padStart(8, '0')}`,
    ...(kind === 'terminated' || kind === 'notMemberTerminated'
      ? { status: 'terminated', leavingReason: 'Resigned', lastDayOfService: '2026-10-31' }
      : {}),
    ...(kind === 'migration' ? { oldStaffId: `O${i}` } : {}),
    ...(kind === 'companyMove' ? { companyId: 'BG2' } : {}),
  });
}

const CSV_COLUMNS = [...POPULATION_COLUMNS];
function csvRow(rec: Record<string, any>): string {
  const cells: Record<string, unknown> = { ...rec, addressCountry: rec.address.country, address: rec.address.address };
  return CSV_COLUMNS.map((c) => {
    const v = cells[c];
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  }).join(',');
}

/** a member as a 4.2 push of `rec` leaves it */
function profileFrom(id: string, rec: Record<string, any>, o: Record<string, unknown> = {}) {
  const now = new Date().toISOString();
  return {
    id,
    status: 'active',
    name: rec.name,
    middleName: rec.middleName ?? null,
    surname: rec.surname,
    staffId: rec.employeeId,
    email: rec.email,
    phone: rec.phone,
    company: { id: 'c-1' },
    grade: rec.grade,
    idPhoto: null,
    loginMethod: 'sso',
    address: rec.address,
    memberType: 'mt-perm',
    memberSubType: null,
    memberships: [],
    primaryMemberId: null,
    relation: null,
    familyMembers: [],
    createdBy: { id: 'seed', type: 'system' },
    note: null,
    permissions: { sms: false, email: false },
    previousStaffIds: [],
    statusReason: null,
    gender: rec.gender,
    maritalStatus: rec.maritalStatus,
    coreGrade: rec.coreGrade,
    dependantsExists: rec.dependantsExists,
    lastDayOfService: rec.lastDayOfService ?? null,
    createdAt: now,
    updatedAt: now,
    ...o,
  } as Record<string, any>;
}

/** writes a member's state as any runtime process commits it: under its lease, version-checked, streamed, with its lookup keys */
async function storeMember(t: TestRuntime, profile: Record<string, any>): Promise<void> {
  const store = t.rt.store;
  const token = `seed-${profile.id}`;
  const acquired = await store.acquire('Member', profile.id, token, 10_000, 'init');
  if (acquired.kind !== 'acquired') throw new Error(`no lease on ${profile.id}: ${acquired.kind}`);
  const lookupAdds = [
    ...(profile.staffId ? [{ name: 'staffId', value: profile.staffId as string }] : []),
    ...(profile.email ? [{ name: 'email', value: String(profile.email).toLowerCase() }] : []),
  ];
  const commit = await store.commit({
    classId: 'Member',
    instanceId: profile.id,
    token,
    expectedVersion: 0,
    changed: true,
    stateJson: serializeState({ public: {}, private: { profile, documents: [] }, user: {}, role: {} }),
    lookups: Object.fromEntries(lookupAdds.map((l) => [l.name, l.value])),
    lookupAdds,
    lookupRemoves: [],
  });
  if (commit.kind !== 'committed') throw new Error(`could not store ${profile.id}: ${commit.kind}`);
}

async function inPool<T>(items: readonly T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

describe('hr:reconcile: a 10,000-employee population against a seeded program', () => {
  let t: TestRuntime;
  const file = path.join(tmp, 'population.csv');
  const timings: Record<string, number> = {};
  /** members HR does not list: active (deactivated by apply), never updated by HR (manual), inactive, dependants */
  const notInHr = { active: 30, noHrFields: 5, inactive: 10, dependants: 10 };

  /** the command as an operator runs it, in this process on the test runtime; answers its JSON summary and report */
  async function reconcile(
    ...args: string[]
  ): Promise<{ summary: ReconcileSummary & { report: string }; report: string[][]; exitCode: number }> {
    const program = new Command('cli').exitOverride();
    registerCommands(program, (fn) => fn(t.rt));
    const json = path.join(tmp, `summary-${Date.now()}.json`);
    const out = path.join(tmp, `report-${Date.now()}.csv`);
    const before = process.exitCode;
    process.exitCode = 0;
    // stdout carries the summary line; the test reads the --json file instead
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const started = Date.now();
    try {
      await program.parseAsync([
        'node',
        'cli',
        'hr:reconcile',
        file,
        '--out',
        out,
        '--json',
        json,
        '--concurrency',
        '32',
        ...args,
      ]);
    } finally {
      write.mockRestore();
    }
    const exitCode = Number(process.exitCode ?? 0);
    process.exitCode = before;
    timings[`run ${Object.keys(timings).length}`] = Date.now() - started;
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('kind,row,employeeId,memberId,fields,outcome,code,reason,changes');
    return {
      summary: JSON.parse(fs.readFileSync(json, 'utf8')),
      report: lines.slice(1).map((l) => l.split(',')),
      exitCode,
    };
  }

  beforeAll(async () => {
    // the quarantine of mass deactivations would hold most of the 50 deactivations; its own tests cover holding
    t = await startMemberRuntime({ HR_QUARANTINE_COUNT: '0', HR_QUARANTINE_PERCENT: '0' });
    await seedProgram(t);
    const started = Date.now();
    const lines = [CSV_COLUMNS.join(',')];
    const profiles: Record<string, any>[] = [];
    for (let i = 0; i < N; i++) {
      const rec = hrRecord(i);
      lines.push(csvRow(rec));
      const kind = kindOf(i);
      if (kind === 'missingInProgram' || kind === 'notMemberTerminated') continue;
      // a member HR terminates is still active here, with its record otherwise as HR has it
      const p = profileFrom(`m-${i}`, hrRecord(i));
      if (kind === 'grade') p.grade = 'G0';
      if (kind === 'nameAndPhone') Object.assign(p, { name: 'Old', phone: '+1' });
      if (kind === 'migration') p.staffId = `O${i}`;
      profiles.push(p);
    }
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const extra = (prefix: string, n: number, o: Record<string, unknown> = {}) =>
      Array.from({ length: n }, (_, j) =>
        profileFrom(
          `${prefix.toLowerCase()}-${j}`,
          employeeRecord(`${prefix}${j}`, { email: `${prefix.toLowerCase()}${j}@example.com` }),
          o,
        ),
      );
    profiles.push(...extra('X', notInHr.active));
    profiles.push(...extra('Y', notInHr.noHrFields, { gender: null, coreGrade: null }));
    profiles.push(...extra('Z', notInHr.inactive, { status: 'inactive', statusReason: 'left' }));
    profiles.push(
      ...Array.from({ length: notInHr.dependants }, (_, j) =>
        profileFrom(`dep-${j}`, employeeRecord('none', { email: `dep${j}@example.com` }), {
          staffId: null,
          primaryMemberId: 'm-0',
          relation: 'spouse',
        }),
      ),
    );
    await inPool(profiles, 32, (p) => storeMember(t, p));
    timings.seed = Date.now() - started;
  }, 120_000);

  afterAll(async () => {
    await t?.stop();

    console.log(`hr:reconcile timings (ms): ${JSON.stringify(timings)}`);
  });

  const drifts = { grade: 100, nameAndPhone: 100, terminated: 20, migration: 10, companyMove: 10 };
  const driftTotal = Object.values(drifts).reduce((a, b) => a + b, 0);

  test('a dry run reports the differences seeded, writes nothing; apply corrects them through 4.2; after the operator acts, a run reports nothing', async () => {
    // 1. dry run
    const dry = await reconcile();
    expect(dry.exitCode).toBe(0);
    expect(dry.summary).toMatchObject({
      apply: false,
      rows: N,
      inSync: N - driftTotal - 20,
      drift: driftTotal,
      missingInProgram: 10,
      ignored: 10,
      missingInHr: notInHr.active + notInHr.noHrFields,
      invalid: 0,
      applied: 0,
      held: 0,
      failed: 0,
      manual: 10 + notInHr.noHrFields,
    });
    const byKind = (kind: string) => dry.report.filter((l) => l[0] === kind);
    const fieldsOf = (employeeId: string) => byKind('drift').find((l) => l[2] === employeeId)?.[4];
    expect(fieldsOf('R1')).toBe('grade');
    expect(fieldsOf('R2')).toBe('name phone');
    expect(fieldsOf('R3')).toBe('status statusReason');
    expect(fieldsOf('R4')).toBe('staffId previousStaffIds');
    expect(fieldsOf('R8')).toBe('company');
    expect(
      byKind('missing_in_program')
        .map((l) => l[2])
        .sort(),
    ).toEqual(Array.from({ length: 10 }, (_, k) => staffId(k * 1000 + 5)).sort());
    expect(
      byKind('missing_in_hr')
        .map((l) => l[2])
        .sort(),
    ).toEqual(
      [...Array.from({ length: 30 }, (_, j) => `X${j}`), ...Array.from({ length: 5 }, (_, j) => `Y${j}`)].sort(),
    );
    expect(
      byKind('missing_in_hr')
        .filter((l) => l[5] === 'manual')
        .map((l) => l[2])
        .sort(),
    ).toEqual(Array.from({ length: 5 }, (_, j) => `Y${j}`));
    for (const l of dry.report) expect(['reported', 'manual']).toContain(l[5]);
    // nothing written: a drifting member and a member missing in HR are as seeded
    expect((await memberState(t, 'm-1')).state.private.profile.grade).toBe('G0');
    expect((await memberState(t, 'x-0')).state.private.profile.status).toBe('active');

    // 2. apply: every drift and every member missing in HR with an HR record of its own, through 4.2
    const applied = await reconcile('--apply');
    expect(applied.exitCode).toBe(0);
    expect(applied.summary).toMatchObject({
      apply: true,
      drift: driftTotal,
      missingInHr: 35,
      applied: driftTotal + notInHr.active,
      held: 0,
      failed: 0,
      manual: 15,
    });
    const m1 = (await memberState(t, 'm-1')).state.private.profile;
    expect(m1.grade).toBe('G1');
    const m3 = (await memberState(t, 'm-3')).state.private.profile;
    expect(m3).toMatchObject({ status: 'inactive', statusReason: 'Resigned' });
    const m4 = await memberState(t, 'm-4');
    expect(m4.state.private.profile).toMatchObject({ staffId: 'R4', previousStaffIds: ['O4'] });
    expect(m4.lookups.staffId).toBe('R4');
    expect((await memberState(t, 'm-8')).state.private.profile.company).toEqual({ id: 'c-2' });
    const x0 = (await memberState(t, 'x-0')).state.private.profile;
    expect(x0).toMatchObject({
      status: 'inactive',
      statusReason: 'Not in the HR population (reconciliation)',
      gender: 'F',
      grade: 'G1',
    });
    // audited as a 4.2 update, under the run's name
    const logs = await memberLogs(t, 'x-0');
    expect(
      logs.some(
        (e) =>
          e.additionalData?.source === 'hr_employee_update' && e.actor?.name === 'system: hr:reconcile population.csv',
      ),
    ).toBe(true);

    // 3. what no push can do: the operator imports the employees missing in the program and deactivates those HR never updated
    const missing = Array.from({ length: 10 }, (_, k) => hrRecord(k * 1000 + 5) as Record<string, any>);
    const sheet = path.join(tmp, 'missing.csv');
    fs.writeFileSync(
      sheet,
      [
        'employeeId,email,name,surname,phone,grade,employmentType,companyId,addressCountry,address',
        ...missing.map((r) =>
          [
            r.employeeId,
            r.email,
            r.name,
            r.surname,
            r.phone,
            r.grade,
            'Permanent',
            'BG1',
            r.address.country,
            `"${r.address.address}"`,
          ].join(','),
        ),
      ].join('\n'),
    );
    const imported = await runImport(SHEETS.members!, sheet, (c, m, i, b) => t.rt.call(c, m, i, b), {
      errorsFile: path.join(tmp, 'missing.errors.csv'),
    });
    expect(imported).toMatchObject({ created: 10, failed: 0 });
    for (let j = 0; j < notInHr.noHrFields; j++) {
      const r = await t.rt.call('Member', 'updateMemberStatus', `y-${j}`, {
        status: 'inactive',
        reason: 'left the company',
      });
      expect(r.status).toBe(200);
    }
    // the imported members lack what only HR sends (gender, marital status, ...): apply writes it
    const fill = await reconcile('--apply');
    expect(fill.summary).toMatchObject({
      drift: 10,
      missingInProgram: 0,
      missingInHr: 0,
      applied: 10,
      failed: 0,
      manual: 0,
    });

    // 4. converged: nothing to report
    const last = await reconcile();
    expect(last.exitCode).toBe(0);
    expect(last.summary).toMatchObject({
      rows: N,
      inSync: N - 10,
      drift: 0,
      missingInProgram: 0,
      missingInHr: 0,
      invalid: 0,
      ignored: 10,
      manual: 0,
      failed: 0,
    });
    expect(last.report).toEqual([]);
  }, 180_000);
});
