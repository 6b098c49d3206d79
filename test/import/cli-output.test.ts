/**
 * `import` and `register-from-hr` run as an operator runs them: the real CLI (runtime/cli.ts) in its own process, its output
 * a pipe, not a terminal, over a runtime seeded with examples/seed.json and
 * the local HR server of the Member tests (test/Member/fake-hr.ts, real HTTP).
 * stdout holds the JSON summary alone; the progress goes to stderr as plain
 * lines (no bar), closing with the rows done; and the audit entries of what a
 * run wrote name that run: `system: import <sheet> <file>`,
 * `system: register-from-hr <file>`.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../runtime/config';
import { testEnv, type TestRuntime } from '../support/harness';
import { FakeHr, hrEmployee } from '../Member/fake-hr';
import { auditOf, hrEnv, startSeededRuntime } from './support';

const root = projectRoot();
const sample = (name: string) => path.join(root, 'examples/import', name);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cli-output-'));
const errorLines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').slice(1) : [];

describe('the import commands as an operator runs them', () => {
  let t: TestRuntime;
  let hr: FakeHr;

  /** the CLI with `args`, stdout and stderr pipes (not a terminal) */
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(root, 'runtime/cli.ts'), ...args], {
      cwd: root,
      env: {
        ...process.env,
        ...testEnv(t.projectId, { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas', ...hrEnv(hr) }),
      },
    });

  beforeAll(async () => {
    hr = await new FakeHr().start();
    t = await startSeededRuntime(hr);
    hr.employees.set(
      'nadia.karim@acme.example',
      hrEmployee('E2001', {
        email: 'nadia.karim@acme.example',
        companyId: 'BG-100',
        employmentType: 'Permanent',
        dependants: [
          { id: 'D-5001', type: 'spouse', name: 'Hadi', surname: 'Karim', email: null, birthdate: '1989-02-02' },
        ],
      }),
    );
    hr.employees.set(
      'omar.farouk@acme.example',
      hrEmployee('E2002', { email: 'omar.farouk@acme.example', companyId: 'BG-100', employmentType: 'Permanent' }),
    );
  });
  afterAll(async () => {
    await t?.stop();
    await hr?.stop();
  });

  test("import partners: the JSON summary alone on stdout, plain progress lines on stderr closing with the rows done; the partners' audit entries name the run", async () => {
    const errorsFile = path.join(tmp, 'partners.errors.csv');
    const { stdout, stderr } = await cli(
      'import',
      'partners',
      sample('partners.csv'),
      '--mapping',
      sample('mapping.json'),
      '--errors',
      errorsFile,
    );
    expect(stdout.endsWith('\n')).toBe(true);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      sheet: 'partners',
      rows: 2,
      created: 2,
      updated: 0,
      unchanged: 0,
      failed: 0,
    });
    expect(errorLines(errorsFile)).toEqual([]);

    // without a terminal: no bar, no cursor control, only `<sheet>: <done> rows...` lines, the last one closing
    expect(stderr).not.toMatch(/\u001b|\r/);
    const progress = stderr.trimEnd().split('\n');
    for (const line of progress) expect(line).toMatch(/^partners: \d+ rows(, \d+ rows\/s| done)$/);
    expect(progress[progress.length - 1]).toBe('partners: 2 rows done');

    for (const id of ['partner-oasis', 'partner-palm']) {
      const entries = await auditOf(t, id);
      expect(entries.length).toBeGreaterThan(0);
      for (const e of entries)
        expect(e.actor).toMatchObject({ id: 'import', type: 'system', name: 'system: import partners partners.csv' });
    }

    // a second run: every row unchanged, the same shape of output
    const again = await cli(
      'import',
      'partners',
      sample('partners.csv'),
      '--mapping',
      sample('mapping.json'),
      '--errors',
      errorsFile,
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ sheet: 'partners', rows: 2, created: 0, unchanged: 2, failed: 0 });
    expect(again.stderr.trimEnd().split('\n').pop()).toBe('partners: 2 rows done');
  });

  test("register-from-hr: what the run writes is audited under its name, and its output is import's", async () => {
    const errorsFile = path.join(tmp, 'register.errors.csv');
    const { stdout, stderr } = await cli('register-from-hr', sample('register-from-hr.csv'), '--errors', errorsFile);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      sheet: 'register-from-hr',
      rows: 3,
      created: 2,
      unchanged: 1,
      failed: 0,
    });
    expect(errorLines(errorsFile)).toEqual([]);
    expect(stderr).not.toMatch(/\u001b|\r/);
    expect(stderr.trimEnd().split('\n').pop()).toBe('register-from-hr: 3 rows done');

    // what the run itself writes names it: the dependant the HR system lists for E2001, linked to its new member
    const runActor = { id: 'import', type: 'system', name: 'system: register-from-hr register-from-hr.csv' };
    const nadia = await t.rt.store.resolveLookup('Member', 'staffId', 'E2001');
    expect(nadia).toBeTruthy();
    const entries = await auditOf(t, nadia!);
    expect(entries.find((e) => e.additionalData?.source === 'family_member_link')).toMatchObject({
      actor: runActor,
      additionalData: { familyMemberId: 'D-5001' },
    });
    // the creation itself (made by Member for registerFromHr's caller) and the dependant's creation are credited to the run too
    expect(entries.find((e) => e.additionalData?.source === 'hr_registration')).toMatchObject({ actor: runActor });
    const dependantEntries = await auditOf(t, 'D-5001');
    expect(dependantEntries.length).toBeGreaterThan(0);
    for (const e of dependantEntries) expect(e.actor).toEqual(runActor);
    // and nothing of the run is credited to the plain, unnamed system actor or to the class that carried it out
    const omar = await t.rt.store.resolveLookup('Member', 'staffId', 'E2002');
    expect(omar).toBeTruthy();
    for (const id of [nadia!, omar!, 'D-5001']) {
      const all = await auditOf(t, id);
      expect(all.length).toBeGreaterThan(0);
      expect(
        all.filter(
          (e) => e.actor?.type === 'system' && (e.actor?.name === 'system' || e.actor?.name === 'class:Member'),
        ),
      ).toEqual([]);
    }
  });
});
