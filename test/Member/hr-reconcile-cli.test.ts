/**
 * `hr:reconcile` as an operator runs it: the real CLI (runtime/cli.ts) in its
 * own process, its output a pipe. stdout holds the JSON summary alone, the
 * progress goes to stderr as plain lines, the report is a CSV; rows 4.2 would
 * refuse are reported invalid with the reason and make the exit code 1; a
 * file that is no population sheet stops the run with one line. The sheet is
 * read as the importer reads its sheets, CSV or XLSX.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { POPULATION_COLUMNS } from '../../classes/Member/hr-reconcile';
import { projectRoot } from '../../runtime/config';
import { testEnv, type TestRuntime } from '../support/harness';
import { API_KEY, createMember, employeeRecord, memberState, seedProgram, startMemberRuntime, uniq } from './support';

const root = projectRoot();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hr-reconcile-cli-'));

/** a population row as CSV cells, in POPULATION_COLUMNS order */
function cells(rec: Record<string, any>): string[] {
  const v: Record<string, unknown> = { ...rec, addressCountry: rec.address?.country, address: rec.address?.address };
  return POPULATION_COLUMNS.map((c) => (v[c] === null || v[c] === undefined ? '' : String(v[c])));
}
const csv = (rows: string[][]) =>
  rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\n') + '\n';

describe('hr:reconcile as an operator runs it', () => {
  let t: TestRuntime;
  const cli = (...args: string[]) =>
    promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'runtime/cli.ts'), 'hr:reconcile', ...args],
      {
        cwd: root,
        env: {
          ...process.env,
          ...testEnv(t.projectId, {
            CLASS_DIRS: 'classes',
            SCHEMA_DIRS: 'schemas',
            HR_QUARANTINE_COUNT: '0',
            HR_QUARANTINE_PERCENT: '0',
          }),
        },
      },
    ).then(
      (r) => ({ ...r, code: 0 }),
      (err: { stdout: string; stderr: string; code: number }) => ({
        stdout: err.stdout,
        stderr: err.stderr,
        code: err.code,
      }),
    );

  let inSync: Record<string, any>;
  let drifting: Record<string, any>;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await startMemberRuntime();
    await seedProgram(t);
    for (const rec of [(inSync = employeeRecord(uniq('C'))), (drifting = employeeRecord(uniq('C')))]) {
      ids[rec.employeeId as string] = (await createMember(t, { staffId: rec.employeeId, email: rec.email })).id;
      expect((await t.post('/members/hr/employee', rec, API_KEY)).status).toBe(200);
    }
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('a CSV with rows 4.2 would refuse: each reported with its reason, exit code 1; stdout is the summary, stderr plain progress', async () => {
    const file = path.join(tmp, 'population.csv');
    const report = path.join(tmp, 'population.report.csv');
    const noGrade = cells(employeeRecord(uniq('C')));
    noGrade[POPULATION_COLUMNS.indexOf('grade')] = '';
    fs.writeFileSync(
      file,
      csv([
        [...POPULATION_COLUMNS],
        cells(inSync),
        cells({ ...drifting, grade: 'G7' }),
        cells(employeeRecord(uniq('C'), { email: 'not-an-email' })),
        cells(employeeRecord(uniq('C'), { employmentType: 'Astronaut' })),
        cells(employeeRecord(uniq('C'), { companyId: 'BG-NONE' })),
        noGrade,
        cells(inSync),
      ]),
    );
    const run = await cli(file, '--out', report);
    expect(run.code).toBe(1);
    const out = run.stdout.trimEnd().split('\n');
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0]!)).toMatchObject({
      apply: false,
      rows: 7,
      inSync: 1,
      drift: 1,
      invalid: 5,
      missingInHr: 0,
      report,
    });
    expect(run.stderr).not.toMatch(/\u001b|\r/);
    expect(run.stderr.trimEnd().split('\n').pop()).toMatch(/^hr:reconcile: \d+ rows done$/);
    const lines = fs.readFileSync(report, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('kind,row,employeeId,memberId,fields,outcome,code,reason,changes');
    const byRow = Object.fromEntries(lines.slice(1).map((l) => [l.split(',')[1], l]));
    expect(byRow['3']).toMatch(/^drift,3,.*,grade,reported,,,"grade: ""G1"" → ""G7"""$/);
    expect(byRow['4']).toContain('email must be a valid email address');
    expect(byRow['5']).toContain("employmentType 'Astronaut' does not match an active member type");
    expect(byRow['6']).toContain('companyId No company is mapped to the given companyId (BG_ID)');
    expect(byRow['7']).toContain('grade is required');
    expect(byRow['8']).toContain(`employeeId ${inSync.employeeId} is in row 2 too`);
  }, 60_000);

  test('an XLSX sheet is read as the importer reads it; --apply corrects (with --as-of as the push time), --json keeps the summary; a second run reports nothing', async () => {
    const { default: excel } = await import('exceljs');
    const book = new excel.Workbook();
    const sheet = book.addWorksheet('HR');
    sheet.addRow([...POPULATION_COLUMNS]);
    sheet.addRow(cells(inSync));
    sheet.addRow(cells({ ...drifting, surname: 'Byron' }));
    const file = path.join(tmp, 'population.xlsx');
    await book.xlsx.writeFile(file);
    const json = path.join(tmp, 'summary.json');
    const applied = await cli(
      file,
      '--apply',
      '--as-of',
      '2026-11-29T10:00:00+04:00',
      '--json',
      json,
      '--out',
      path.join(tmp, 'x.csv'),
    );
    expect(applied.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(json, 'utf8'))).toMatchObject({
      apply: true,
      rows: 2,
      drift: 1,
      applied: 1,
      failed: 0,
    });
    expect((await memberState(t, ids[drifting.employeeId]!)).state.private).toMatchObject({
      profile: { surname: 'Byron' },
      hrRecordedAt: '2026-11-29T06:00:00.000Z',
    });
    const again = await cli(file, '--out', path.join(tmp, 'y.csv'));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 2, inSync: 2, drift: 0, missingInHr: 0 });
    expect(fs.readFileSync(path.join(tmp, 'y.csv'), 'utf8').trim().split('\n')).toHaveLength(1);
  }, 60_000);

  test('a file that is no population sheet: one line naming what is wrong, exit code 1', async () => {
    const txt = path.join(tmp, 'population.txt');
    fs.writeFileSync(txt, 'x');
    const wrongType = await cli(txt);
    expect([wrongType.code, wrongType.stderr.trim()]).toEqual([1, `${txt}: the sheet must be a .csv or .xlsx file`]);
    const noColumn = path.join(tmp, 'no-column.csv');
    fs.writeFileSync(
      noColumn,
      csv([
        POPULATION_COLUMNS.filter((c) => c !== 'coreGrade'),
        cells(inSync).filter((_, i) => POPULATION_COLUMNS[i] !== 'coreGrade'),
      ]),
    );
    const missing = await cli(noColumn, '--out', path.join(tmp, 'z.csv'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${noColumn}: the HR population sheet has no column coreGrade`);
    expect(missing.stdout).toBe('');
  }, 60_000);
});
