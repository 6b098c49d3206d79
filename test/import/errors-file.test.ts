/**
 * An error file that cannot be written: in the image the
 * import runs as `node` while examples/ belongs to root, so the default
 * `<file>.errors.csv` beside a sample cannot be created. The run stops before
 * any row with one line naming the file and --errors, in runImport and in the
 * CLI. Root ignores permission bits, so the places used fail for root too
 * (a path under a regular file); a read-only folder is tried as well when the
 * tests do not run as root.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { runImport } from '../../classes/_platform/import/run';
import { SHEETS } from '../../classes/_platform/import/sheets';
import { projectRoot } from '../../runtime/config';
import { testEnv } from '../support/harness';

const root = projectRoot();
const sample = path.join(root, 'examples/import/offer-categories.csv');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-errors-file-'));
// a regular file: nothing can be created "inside" it, whoever asks (ENOTDIR)
const notADirectory = path.join(tmp, 'plain-file');
fs.writeFileSync(notADirectory, 'not a folder\n');

const calls: string[] = [];
const call = async (classId: string, method: string) => {
  calls.push(`${classId}.${method}`);
  throw new Error('no call expected: the run must stop before its first row');
};

afterAll(() => {
  fs.chmodSync(tmp, 0o700);
  for (const e of fs.readdirSync(tmp)) fs.chmodSync(path.join(tmp, e), 0o700);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('an error file that cannot be written', () => {
  test('an --errors path that cannot be created stops the run with one line naming it and --errors', async () => {
    const errorsFile = path.join(notADirectory, 'x.errors.csv');
    const err = (await runImport(SHEETS['offer-categories']!, sample, call, { errorsFile }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe(`the error file ${errorsFile} cannot be written (ENOTDIR): pass --errors <writable path>`);
    expect(err.message).not.toContain('\n');
    expect(calls).toEqual([]);
  });

  test('the default error file beside a sheet in a folder it cannot write to names --errors too', async () => {
    // as root, a sheet "under" a regular file stands for the root-owned examples/ (its default error file
    // cannot be created either); as another user, a real read-only folder holding the sheet
    let sheet: string;
    if (process.getuid?.() === 0) {
      sheet = path.join(notADirectory, 'offer-categories.csv');
    } else {
      const readOnly = path.join(tmp, 'read-only');
      fs.mkdirSync(readOnly);
      sheet = path.join(readOnly, 'offer-categories.csv');
      fs.copyFileSync(sample, sheet);
      fs.chmodSync(readOnly, 0o555);
    }
    await expect(runImport(SHEETS['offer-categories']!, sheet, call)).rejects.toThrow(
      new RegExp(
        `^the error file ${`${sheet}.errors.csv`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be written \\((EACCES|ENOTDIR)\\): pass --errors <writable path>$`,
      ),
    );
    expect(fs.existsSync(`${sheet}.errors.csv`)).toBe(false);
    expect(calls).toEqual([]);
  });

  test('the CLI ends stderr with that one line, no stack trace, and exits 1; with --errors elsewhere the same sheet imports', async () => {
    const env = {
      ...process.env,
      ...testEnv(`errfile${process.pid}`, { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' }),
    };
    const cli = (errorsFile: string) =>
      promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(root, 'runtime/cli.ts'),
          'import',
          'offer-categories',
          sample,
          '--dry-run',
          '--errors',
          errorsFile,
        ],
        { cwd: root, env },
      );

    const bad = path.join(notADirectory, 'cli.errors.csv');
    const failed = (await cli(bad).then(
      () => undefined,
      (e: unknown) => e,
    )) as { code?: number; stdout: string; stderr: string } | undefined;
    expect(failed).toBeDefined();
    expect(failed!.code).toBe(1);
    // the progress reporter's closing line ("offer-categories: 0 rows done") may come first
    const lines = failed!.stderr.trim().split('\n');
    expect(lines[lines.length - 1]).toBe(
      `the error file ${bad} cannot be written (ENOTDIR): pass --errors <writable path>`,
    );
    expect(lines.slice(0, -1).filter((l) => !/^offer-categories: 0 rows done$/.test(l))).toEqual([]);
    expect(failed!.stdout.trim()).toBe('');

    const good = path.join(tmp, 'cli.errors.csv');
    const { stdout } = await cli(good);
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toMatchObject({
      sheet: 'offer-categories',
      rows: 2,
      failed: 0,
      dryRun: true,
    });
    // no row failed: no error file
    expect(fs.existsSync(good)).toBe(false);
  });
});
