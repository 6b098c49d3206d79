/**
 * Progress of an import-like run on stderr (stdout keeps the JSON summary):
 * a bar with rows/s and ETA (cli-progress) on a terminal, a line every few
 * seconds otherwise. Shared by `import` and `register-from-hr`.
 */
import * as fs from 'node:fs';
import cliProgress from 'cli-progress';
import { sheetFormat } from './rows';

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
export function progress(sheet: string, file: string): { tick: (done: number) => void; stop: () => void } {
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
