import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import type { WithRuntime } from '../../../runtime';
import { loadMapping } from './mapping';
import { progress } from './progress';
import { sheetFormat } from './rows';
import { runImport } from './run';
import { SHEETS } from './sheets';

/** the actor name of an import run: `import <sheet> <file name>` */
export function importActorName(sheet: string, file: string): string {
  return `import ${sheet} ${path.basename(file)}`;
}

/**
 * The system identity of an import-like run (`import`, `register-from-hr`),
 * named after it: its audit entries credit `system: <name>`, which stays
 * privileged like the plain system actor (classes/_platform/actor.ts).
 */
export function runIdentity(name: string) {
  return { type: 'system' as const, userId: 'import', claims: { name } };
}

/** `npm run cli -- import <sheet> <file>`: a spec 2.9 migration sheet, as the system actor (see run.ts). */
export function registerCommands(program: Command, withRuntime: WithRuntime): void {
  program
    .command('import <sheet> <file>')
    .description(`import a migration sheet (CSV or XLSX) of spec 2.9; sheets: ${Object.keys(SHEETS).join(', ')}`)
    .option('--mapping <file>', "JSON mapping of the program's words to records (see examples/import/mapping.json)")
    .option('--dry-run', 'check every row and write nothing')
    .option('--errors <file>', 'the error file (CSV: row, column, value, reason); default <file>.errors.csv')
    .option('--concurrency <n>', 'rows written side by side', '8')
    .action(
      (
        sheet: string,
        file: string,
        opts: { mapping?: string; dryRun?: boolean; errors?: string; concurrency: string },
      ) => {
        const def = SHEETS[sheet];
        if (!def) throw new Error(`unknown sheet '${sheet}' (known: ${Object.keys(SHEETS).join(', ')})`);
        const concurrency = Number(opts.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
          throw new Error(`--concurrency must be an integer from 1 to 256, got '${opts.concurrency}'`);
        }
        sheetFormat(file);
        if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
        const mapping = loadMapping(opts.mapping);
        return withRuntime(async (rt) => {
          const bar = progress(sheet, file);
          try {
            // the system identity, named after the run: audit entries credit the import and its file
            const identity = runIdentity(importActorName(sheet, file));
            const summary = await runImport(
              def,
              file,
              (classId, method, instanceId, body) => rt.call(classId, method, instanceId, body, { identity }),
              {
                dryRun: !!opts.dryRun,
                errorsFile: opts.errors,
                concurrency,
                mapping,
                onProgress: (...a) => bar.tick(...a),
              },
            );
            bar.stop();
            process.stdout.write(`${JSON.stringify(summary)}\n`);
            if (summary.failed) process.exitCode = 1;
          } catch (err) {
            bar.stop();
            throw err;
          }
        });
      },
    );
}
