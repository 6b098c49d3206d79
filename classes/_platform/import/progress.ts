/**
 * Progress of an import-like run (`import`, `register-from-hr`): the
 * runtime's CLI progress (runtime/cli-progress.ts: a bar with rows/s and ETA
 * on a terminal, a line every few seconds otherwise, on stderr) counting
 * rows, with the CSV's line count as the expected total.
 */
import * as fs from 'node:fs';
import { progress as cliProgress, type CliProgress } from '../../../runtime';
import { sheetFormat } from './rows';

/** rows in a CSV file, counted by its line ends (an estimate when cells hold line breaks), for the progress bar's ETA */
function csvRowEstimate(file: string): number {
  let lines = 0;
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(1 << 16);
  try {
    for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf))
      for (let i = 0; i < n; i++) if (buf[i] === 10) lines++;
  } finally {
    fs.closeSync(fd);
  }
  return Math.max(0, lines - 1);
}

export function progress(sheet: string, file: string): CliProgress {
  return cliProgress(sheet, { unit: 'rows', total: () => (sheetFormat(file) === 'csv' ? csvRowEstimate(file) : 0) });
}
