/**
 * `import` stopped half-way and started again: the real
 * CLI (runtime/cli.ts, its own process, as an operator runs it) imports a
 * generated member sheet of a few thousand rows, employees with memberships
 * and dependants, into a runtime seeded with examples/seed.json. It is
 * SIGKILLed once half of the employees exist (a crash in the first pass),
 * started again and interrupted with SIGINT (Ctrl-C) once half of the
 * dependants exist (the second pass), then run to its end: every row is
 * created or unchanged, none failed, nobody twice, each dependant listed once
 * in its employee's family; a further run changes nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applySeed, type SeedDocument } from '../../classes/_platform/seed';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, testEnv, waitFor, type TestRuntime } from '../support/harness';

const root = projectRoot();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-restart-'));
const MAPPING = path.join(root, 'examples/import/mapping.json');
const HEADER = fs.readFileSync(path.join(root, 'examples/import/members.csv'), 'utf8').split('\n')[0]!;
const COLUMNS = HEADER.split(',');

/** rows of the sheet: groups of four, three employees then a dependant of the third (as bench/import.bench.ts writes them) */
const ROWS = 2400;
const EMPLOYEES = (ROWS / 4) * 3;
const DEPENDANTS = ROWS / 4;

const employeeIdOf = (m: number) => `RS${String(m).padStart(6, '0')}`;
const dependantIdOf = (group: number) => `RSD${String(group).padStart(6, '0')}`;

/** Row r (0-based) of the sheet: a pure function of r, unique staff ids, emails and phones, valid on the example seed and mapping. */
function sheetRow(r: number): Record<string, string> {
  const group = Math.floor(r / 4);
  const dependant = r % 4 === 3;
  const m = group * 3 + (dependant ? 2 : r % 4);
  const common = {
    employeeId: employeeIdOf(m),
    primaryMemberType: 'Regular',
    membershipStatus: 'active',
    membershipStart: '2026-01-01',
  };
  if (dependant) {
    const spouse = group % 2 === 0;
    return {
      ...common,
      dependantId: dependantIdOf(group),
      email: `restart.dependant${group}@import.example`,
      name: 'Dana',
      surname: `Restart${m}`,
      phone: `+9716${String(group).padStart(8, '0')}`,
      employmentType: 'Dependant',
      dependantType: spouse ? 'spouse' : 'child',
      birthdate: spouse ? '1990-06-15' : '2015-03-20',
      membershipPaymentType: 'Company Paid',
    };
  }
  return {
    ...common,
    email: `restart.member${m}@import.example`,
    name: 'Omar',
    surname: `Restart${m}`,
    phone: `+9715${String(m).padStart(8, '0')}`,
    grade: `G${(m % 9) + 1}`,
    isCabinCrew: m % 3 === 0 ? 'true' : 'false',
    employmentType: 'Permanent',
    companyId: 'BG-100',
    birthdate: '1985-05-05',
    addressCountry: 'AE',
    address: `${m} Restart Street, Dubai`,
    // most memberships company paid; every tenth DDS monthly, with a payment schedule
    ...(m % 10 === 0
      ? { membershipEnd: '2026-12-31', membershipPaymentType: 'DDS', membershipPaymentPeriod: 'monthly' }
      : { membershipPaymentType: 'Company Paid' }),
  };
}

function writeSheet(file: string): void {
  const lines = [HEADER];
  for (let r = 0; r < ROWS; r++) {
    const row = sheetRow(r);
    lines.push(
      COLUMNS.map((c) => (/[",]/.test(row[c] ?? '') ? `"${row[c]!.replace(/"/g, '""')}"` : (row[c] ?? ''))).join(','),
    );
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

interface CliRun {
  proc: ChildProcess;
  /** exit code and signal, stdout and stderr, once it has ended */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** fn(0..n-1), a few hundred side by side (Redis reads of the runtime in this process); the answers in order */
async function inBatches<T>(n: number, fn: (i: number) => Promise<T>, size = 200): Promise<T[]> {
  const out: T[] = [];
  for (let from = 0; from < n; from += size)
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - from) }, (_, k) => fn(from + k)))));
  return out;
}

type Summary = { sheet: string; rows: number; created: number; updated: number; unchanged: number; failed: number };

describe('import stopped half-way and started again', () => {
  let t: TestRuntime;
  let seedMembers = 0;
  const file = path.join(tmp, 'members.csv');
  const errorsFile = path.join(tmp, 'members.errors.csv');

  const memberCount = async () => {
    let n = 0;
    for await (const ids of t.rt.store.instanceIds('Member')) n += ids.length;
    return n;
  };
  const profileOf = async (id: string): Promise<Record<string, any>> => {
    const s = await t.rt.store.read('Member', id);
    if (!s) throw new Error(`no member ${id}`);
    return JSON.parse(s.stateJson).private.profile;
  };

  /** `import members <file>` in its own process, as an operator runs it */
  const startImport = (): CliRun => {
    const proc = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(root, 'runtime/cli.ts'),
        'import',
        'members',
        file,
        '--mapping',
        MAPPING,
        '--errors',
        errorsFile,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          ...testEnv(t.projectId, { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas', LOG_LEVEL: 'warn' }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    proc.stdout!.on('data', (c) => (stdout += c));
    proc.stderr!.on('data', (c) => (stderr += c));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
      (resolve) => proc.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
    );
    return { proc, ended };
  };

  /** the run's JSON summary: its last stdout line, after it exited 0 */
  const toTheEnd = async (): Promise<Summary> => {
    const out = await startImport().ended;
    if (out.code !== 0) throw new Error(`import exited ${out.code ?? out.signal}: ${out.stderr.slice(-2000)}`);
    return JSON.parse(out.stdout.trim().split('\n').pop()!) as Summary;
  };

  /** starts the import, and once `reached` holds sends it `signal`; the run must not have ended by then */
  const stopWhen = async (
    signal: NodeJS.Signals,
    reached: (members: number) => boolean,
    what: string,
  ): Promise<number> => {
    const run = startImport();
    let exited = false;
    void run.ended.then(() => (exited = true));
    let members = 0;
    try {
      await waitFor(
        async () => {
          if (exited) throw new Error(`import ended before ${what}: ${JSON.stringify(await run.ended)}`);
          members = await memberCount();
          return reached(members);
        },
        // each count SCANs the whole test Redis (every test file's keys), which the import and the other tests share:
        // four counts a second, a few dozen rows apart, stop it as surely half-way
        { timeoutMs: 150_000, intervalMs: 250, what },
      );
    } catch (err) {
      run.proc.kill('SIGKILL');
      await run.ended;
      throw err;
    }
    run.proc.kill(signal);
    const out = await run.ended;
    // stopped, not finished: no summary was written
    expect(out.signal ?? out.code).not.toBe(0);
    expect(out.stdout).not.toContain('"sheet"');
    return members;
  };

  beforeAll(async () => {
    t = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' } });
    const seed = JSON.parse(fs.readFileSync(path.join(root, 'examples/seed.json'), 'utf8')) as SeedDocument;
    const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
      t.rt.call(classId, method, instanceId, body);
    expect((await applySeed(seed, call)).filter((o) => o.result === 'failed')).toEqual([]);
    seedMembers = await memberCount();
    writeSheet(file);
  });
  afterAll(() => t.stop());

  test('SIGKILL in the first pass, SIGINT in the second, a third run finishes the rest: no row twice, nothing failed; a fourth changes nothing', async () => {
    // a crash once half the employees exist (employees are the first pass)
    const atKill = await stopWhen('SIGKILL', (n) => n - seedMembers >= EMPLOYEES / 2, 'half of the employees imported');
    expect(atKill - seedMembers).toBeLessThan(EMPLOYEES);

    // started again, Ctrl-C once the first pass is done and half the dependants exist
    const atInt = await stopWhen(
      'SIGINT',
      (n) => n - seedMembers >= EMPLOYEES + DEPENDANTS / 2,
      'half of the dependants imported',
    );
    expect(atInt - seedMembers).toBeLessThan(EMPLOYEES + DEPENDANTS);

    // started again, to its end: the rest created, what was done before unchanged
    const final = await toTheEnd();
    expect(final).toMatchObject({ sheet: 'members', rows: ROWS, failed: 0 });
    expect(final.created + final.unchanged).toBe(ROWS);
    expect(final.created).toBeGreaterThan(0);
    // the members found at the Ctrl-C were imported before, whatever else was
    expect(final.created).toBeLessThanOrEqual(ROWS - (atInt - seedMembers));
    // no row failed: no error file (the one a stopped run had opened, this run emptied on opening it and then removed)
    expect(fs.existsSync(errorsFile)).toBe(false);

    // nobody twice: one member per employee and per dependant, and nothing else
    expect((await memberCount()) - seedMembers).toBe(EMPLOYEES + DEPENDANTS);
    const memberIds = new Set<string>();
    const ids = await inBatches(EMPLOYEES, (m) => t.rt.store.resolveLookup('Member', 'staffId', employeeIdOf(m)));
    expect(ids).toHaveLength(EMPLOYEES);
    for (const id of ids) {
      expect(id).toBeTruthy();
      memberIds.add(id!);
    }
    expect(memberIds.size).toBe(EMPLOYEES);

    // each dependant is listed once, in its employee's family (the link is a committed effect: wait for it to be applied)
    await waitFor(
      async () => {
        // the families read a few hundred side by side
        const linked = await inBatches(DEPENDANTS, async (group) => {
          const employee = await profileOf(
            (await t.rt.store.resolveLookup('Member', 'staffId', employeeIdOf(group * 3 + 2)))!,
          );
          const listed = (employee.familyMembers as { id: string }[]).filter((f) => f.id === dependantIdOf(group));
          if (listed.length > 1) throw new Error(`dependant ${dependantIdOf(group)} listed ${listed.length} times`);
          if (listed.length === 0) return false;
          expect(employee.familyMembers).toHaveLength(1);
          expect((await profileOf(dependantIdOf(group))).primaryMemberId).toBe(employee.id);
          return true;
        });
        return linked.length === DEPENDANTS && linked.every(Boolean);
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'every dependant listed in its family' },
    );
    // the employees without a dependant list none
    for (const m of [0, 1, EMPLOYEES - 2]) {
      expect(
        (await profileOf((await t.rt.store.resolveLookup('Member', 'staffId', employeeIdOf(m)))!)).familyMembers,
      ).toEqual([]);
    }

    // once more: every row unchanged
    expect(await toTheEnd()).toMatchObject({ rows: ROWS, created: 0, updated: 0, unchanged: ROWS, failed: 0 });
  }, 600_000);
});
