import * as fs from 'node:fs';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import type { WithRuntime } from '../../../runtime';
import { loadMapping } from './mapping';
import { sheetFormat } from './rows';
import { runImport } from './run';
import { SHEETS } from './sheets';

/** rows in a CSV file, counted by its line ends (an estimate when cells hold line breaks), for the progress bar's ETA */
function csvRowEstimate(file: string): number {
  let lines = 0;
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(1 << 16);
  try {
    for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) for (let i = 0; i < n; i++) if (buf[i] === 10) lines++;
  } finally {
    fs.closeSync(fd);
  }
  return Math.max(0, lines - 1);
}

/** a bar with rows/s and ETA on a terminal; a line every few seconds otherwise (both on stderr, stdout keeps the summary) */
function progress(sheet: string, file: string): { tick: (done: number) => void; stop: () => void } {
  const started = Date.now();
  if (process.stderr.isTTY) {
    const total = sheetFormat(file) === 'csv' ? csvRowEstimate(file) : 0;
    const bar = new cliProgress.SingleBar(
      { stream: process.stderr, format: `${sheet} [{bar}] {value}/{total} rows | {rate} rows/s | ETA {eta_formatted}`, etaBuffer: 200 },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: 0 });
    return {
      tick: (done) => {
        if (done > bar.getTotal()) bar.setTotal(done);
        bar.update(done, { rate: Math.round(done / Math.max(0.001, (Date.now() - started) / 1000)) });
      },
      stop: () => bar.stop(),
    };
  }
  let last = started;
  let count = 0;
  return {
    tick: (done) => {
      count = done;
      if (Date.now() - last < 5000) return;
      last = Date.now();
      process.stderr.write(`${sheet}: ${done} rows, ${Math.round(done / ((last - started) / 1000))} rows/s\n`);
    },
    stop: () => process.stderr.write(`${sheet}: ${count} rows done\n`),
  };
}

/** `npm run cli -- import <sheet> <file>`: a spec 2.9 migration sheet, as the system actor (see run.ts). */
export function registerCommands(program: Command, withRuntime: WithRuntime): void {
  program
    .command('import <sheet> <file>')
    .description(`import a migration sheet (CSV or XLSX) of spec 2.9; sheets: ${Object.keys(SHEETS).join(', ')}`)
    .option('--mapping <file>', 'JSON mapping of the program\'s words to records (see examples/import/mapping.json)')
    .option('--dry-run', 'check every row and write nothing')
    .option('--errors <file>', 'the error file (CSV: row, column, value, reason); default <file>.errors.csv')
    .option('--concurrency <n>', 'rows written side by side', '8')
    .action((sheet: string, file: string, opts: { mapping?: string; dryRun?: boolean; errors?: string; concurrency: string }) => {
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
          const summary = await runImport(def, file, (classId, method, instanceId, body) => rt.call(classId, method, instanceId, body), {
            dryRun: !!opts.dryRun,
            errorsFile: opts.errors,
            concurrency,
            mapping,
            onProgress: bar.tick,
          });
          bar.stop();
          process.stdout.write(`${JSON.stringify(summary)}\n`);
          if (summary.failed) process.exitCode = 1;
        } catch (err) {
          bar.stop();
          throw err;
        }
      });
    });
}
