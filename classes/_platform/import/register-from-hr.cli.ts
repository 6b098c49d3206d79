import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import type { WithRuntime } from '../../../runtime';
import { runIdentity } from './import.cli';
import { progress } from './progress';
import { sheetFormat } from './rows';
import { runImport } from './run';
import { LOGIN_METHODS, registerFromHrSheet, type LoginMethod } from './sheets/register-from-hr';

/**
 * `npm run cli -- register-from-hr <emails.csv>`: spec 2.9's HR-driven
 * registration, Member.registerFromHr for each email of the file as the
 * system actor named after the run, with import's runner: dry run, error file, JSON summary as
 * the last stdout line, re-runnable (see sheets/register-from-hr.ts).
 */
export function registerCommands(program: Command, withRuntime: WithRuntime): void {
  program
    .command('register-from-hr <file>')
    .description(
      'register the employees of a CSV or XLSX file (column email, optional loginMethod) from the HR system (spec 2.9, 4.4)',
    )
    .option(
      '--dry-run',
      "check every email (in the file, against existing members, with the HR system's lookup) and register nobody",
    )
    .option('--errors <file>', 'the error file (CSV: row, column, value, reason); default <file>.errors.csv')
    .option('--concurrency <n>', 'registrations side by side', '4')
    .option(
      '--login-method <method>',
      `login method of the rows that name none: ${LOGIN_METHODS.join(' or ')} (default: registerFromHr's, email_password)`,
    )
    .action((file: string, opts: { dryRun?: boolean; errors?: string; concurrency: string; loginMethod?: string }) => {
      const concurrency = Number(opts.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
        throw new Error(`--concurrency must be an integer from 1 to 256, got '${opts.concurrency}'`);
      }
      if (opts.loginMethod !== undefined && !(LOGIN_METHODS as readonly string[]).includes(opts.loginMethod)) {
        throw new Error(`--login-method must be ${LOGIN_METHODS.join(' or ')}, got '${opts.loginMethod}'`);
      }
      sheetFormat(file);
      if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
      const def = registerFromHrSheet(opts.loginMethod as LoginMethod | undefined);
      return withRuntime(async (rt) => {
        const bar = progress(def.sheet, file);
        // the system identity named after the run, as import's: audit entries credit `system: register-from-hr <file name>`
        const identity = runIdentity(`register-from-hr ${path.basename(file)}`);
        const call = (classId: string, method: string, instanceId: string | undefined, body: unknown) =>
          rt.call(classId, method, instanceId, body, { identity });
        const summary = await runImport(def, file, call, {
          dryRun: !!opts.dryRun,
          errorsFile: opts.errors,
          concurrency,
          onProgress: (...a) => bar.tick(...a),
        }).finally(() => bar.stop());
        process.stdout.write(`${JSON.stringify(summary)}\n`);
        if (summary.failed) process.exitCode = 1;
      });
    });
}
