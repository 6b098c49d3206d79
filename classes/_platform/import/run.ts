/**
 * One import run (`npm run cli -- import <sheet> <file>`): streams the sheet's
 * rows, parses each cell by its column's type, refuses a row whose key was
 * seen earlier in the file, checks the row's references, and (unless a dry
 * run) writes it through the sheet's operations as the system actor. Every
 * refused row goes to the error file (CSV: row, column, value, reason; in row
 * order, see runImport); a date must be a real calendar date (see isoDate); the
 * run answers {sheet, rows, created, updated, unchanged, failed, seconds}.
 * A dry run reads what each row would change (created, updated, unchanged)
 * and writes nothing: the error file and the counts are the real run's, but
 * for refusals only the operations themselves can give.
 *
 * A sheet may ask for passes (SheetDefinition.passes, passOf): the file is
 * then read once per pass, each pass taking the rows passOf gives it, after
 * the rows of the pass before are done (the member sheet: employees first,
 * then dependants, wherever they stand in the file). Row numbers, the
 * duplicate check and the counts span all passes.
 */
import * as fs from 'node:fs';
import { fullFormats } from 'ajv-formats/dist/formats';
import { readSheet } from './rows';
import { isMissing } from './sheets/common';
import type { Column, ImportContext, Row, RowProblem, RowResult, SheetDefinition } from './types';
import type { ImportMapping } from './mapping';
import type { SystemCall } from '../seed';

export interface ImportOptions {
  dryRun?: boolean;
  /** the error file; default `<file>.errors.csv`; written only when a row failed */
  errorsFile?: string;
  /** rows written side by side; default 8 */
  concurrency?: number;
  mapping?: ImportMapping;
  /** called after each row with the rows done so far */
  onProgress?: (done: number) => void;
}

export interface ImportSummary {
  sheet: string;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  seconds: number;
  /** a dry run: the counts say what the real run would do */
  dryRun?: boolean;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;
const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

/** RFC 3339 full-date, with its calendar check (ajv-formats, as the request schemas use it) */
const CALENDAR_DATE = fullFormats.date as { validate: (text: string) => boolean };

const NOT_ISO = 'not an ISO 8601 date';
const NOT_CALENDAR = 'not a calendar date';

/** date cells already read (a sheet repeats the same few dates: membership start and end): text → ISO date-time, or the reason it is not one */
const dates = new Map<string, { iso: string } | { reason: string }>();
const DATES_MAX = 10_000;

/**
 * The instant a date cell names (ISO 8601), or the reason it names none: text Date.parse cannot read is
 * 'not an ISO 8601 date'; one it would roll over (2026-02-30 became 2026-03-02) is 'not a calendar date'.
 * The date and time are checked as written, before any offset is applied: a month of 1-12, a day that
 * month has (29 February in leap years only), hours 0-23, minutes and seconds 0-59, an offset within a day.
 */
export function isoDate(text: string): { iso: string } | { reason: string } {
  let answer = dates.get(text);
  if (answer === undefined) {
    const m = ISO_DATE.exec(text);
    const ms = m ? Date.parse(text) : NaN;
    if (!m || Number.isNaN(ms)) answer = { reason: NOT_ISO };
    else {
      // the calendar date by ajv-formats' RFC 3339 full-date (days of the month, leap years), the time by hand:
      // the sheets may leave out seconds and offset, which its date-time format requires
      const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
      const [offsetHours, offsetMinutes] = [Number(m[8] ?? 0), Number(m[9] ?? 0)];
      const real =
        CALENDAR_DATE.validate(`${m[1]}-${m[2]}-${m[3]}`) &&
        hour <= 23 &&
        minute <= 59 &&
        second <= 59 &&
        offsetHours <= 23 &&
        offsetMinutes <= 59;
      answer = real ? { iso: new Date(ms).toISOString() } : { reason: NOT_CALENDAR };
    }
    if (dates.size >= DATES_MAX) dates.clear();
    dates.set(text, answer);
  }
  return answer;
}

/** A cell as its column's type, or the reason it is not one. */
export function parseCell(column: Column, text: string): { value: Row[string] } | { reason: string } {
  switch (column.type) {
    case 'date': {
      const date = isoDate(text);
      return 'iso' in date ? { value: date.iso } : date;
    }
    case 'boolean': {
      const t = text.toLowerCase();
      if (TRUE.has(t)) return { value: true };
      if (FALSE.has(t)) return { value: false };
      return { reason: 'not a boolean (true/false)' };
    }
    case 'number': {
      const n = Number(text);
      return text !== '' && Number.isFinite(n) ? { value: n } : { reason: 'not a number' };
    }
    case 'list':
      return {
        value: text
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      };
    default:
      if (column.values && !column.values.includes(text)) return { reason: `not one of ${column.values.join(', ')}` };
      return { value: text };
  }
}

function csvCell(v: string | number): string {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function errorOf(err: unknown): { status?: number; message: string; field?: string } {
  const e = err as {
    status?: number;
    message?: string;
    details?: { field?: unknown; path?: unknown } | { field?: unknown }[];
  };
  const d = Array.isArray(e?.details) ? e.details[0] : e?.details;
  const field =
    d && typeof d === 'object' && typeof d.field === 'string' ? String((d as { field: string }).field) : undefined;
  return { status: e?.status, message: e?.message ?? String(err), field };
}

/**
 * The error-file lines of a row a class refused: one per field when the
 * refusal lists its fields (`details.errors`: [{field, reason}], as the
 * classes' 400s do), naming the column and its value as the sheet has it
 * (`written`: the row's cells as text) when the field is one of the sheet's;
 * otherwise one line, on the field the error names, if any.
 */
export function refusalProblems(err: unknown, written: Readonly<Record<string, string | undefined>>): RowProblem[] {
  const valueOf = (field: string | undefined) =>
    field !== undefined && Object.prototype.hasOwnProperty.call(written, field) ? (written[field] ?? '') : '';
  const listed = (err as { details?: { errors?: unknown } } | null)?.details?.errors;
  if (Array.isArray(listed)) {
    const fields = (listed as unknown[]).filter((f): f is { field: string; reason: string } => {
      const o = f as { field?: unknown; reason?: unknown } | null | undefined;
      return typeof o?.field === 'string' && typeof o?.reason === 'string';
    });
    if (fields.length) return fields.map((f) => ({ column: f.field, value: valueOf(f.field), reason: f.reason }));
  }
  const e = errorOf(err);
  return [{ column: e.field ?? '', value: valueOf(e.field), reason: e.message }];
}

/** An import context over `call`: existence answers are remembered for the run. */
export function importContext(call: SystemCall, mapping: ImportMapping = {}): ImportContext {
  const seen = new Map<string, Promise<boolean>>();
  return {
    call,
    mapping,
    exists(classId, method, instanceId, body = {}) {
      const key = `${classId}\u0000${method}\u0000${instanceId}\u0000${JSON.stringify(body)}`;
      let answer = seen.get(key);
      if (!answer) {
        answer = call(classId, method, instanceId, body).then(
          () => true,
          (err) => {
            if (isMissing(err)) return false;
            throw err;
          },
        );
        seen.set(key, answer);
      }
      return answer;
    },
  };
}

/** refused rows held back for the rows before them (see runImport) before they are written regardless */
const ERRORS_HELD_MAX = 10_000;

/** Codes of an error file that cannot be written where it is asked for (or, by default, beside the sheet). */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'ENOTDIR', 'EISDIR']);

/**
 * Opens the error file before any row is read. A place it cannot be written (the sheet's own folder
 * belongs to another user, as examples/ in the image does to root; a read-only mount; a missing
 * folder) stops the run with one line naming --errors, instead of a bare EACCES.
 */
function openErrorsFile(errorsFile: string): number {
  try {
    return fs.openSync(errorsFile, 'w');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code && UNWRITABLE.has(code)) {
      throw new Error(`the error file ${errorsFile} cannot be written (${code}): pass --errors <writable path>`, {
        cause: err,
      });
    }
    throw err;
  }
}

export async function runImport(
  def: SheetDefinition,
  file: string,
  call: SystemCall,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const started = Date.now();
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 8));
  const ctx = importContext(call, options.mapping);
  const errorsFile = options.errorsFile ?? `${file}.errors.csv`;
  // written as rows fail, so a run stopped half-way leaves the refusals seen so far
  const errorsFd = openErrorsFile(errorsFile);
  fs.writeSync(errorsFd, 'row,column,value,reason\n');
  const summary: ImportSummary = {
    sheet: def.sheet,
    rows: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    seconds: 0,
    ...(options.dryRun ? { dryRun: true } : {}),
  };
  // the error file is in row order: a row refused while reading (a bad cell) waits in `held` for the rows
  // before it still being checked or written (at most `concurrency` of them, in `running`, read in row order
  // within a pass), whose refusals come later. `held` is bounded: past ERRORS_HELD_MAX rows it is written out
  // as it stands, in order within itself. A sheet with passes is in row order within each pass.
  const running = new Set<number>();
  let held: { row: number; lines: string }[] = [];
  const flush = (all = false) => {
    const first = all || held.length > ERRORS_HELD_MAX ? Infinity : (running.values().next().value ?? Infinity);
    const ready = held.filter((h) => h.row < first).sort((a, b) => a.row - b.row);
    if (!ready.length) return;
    held = held.filter((h) => h.row >= first);
    fs.writeSync(errorsFd, ready.map((h) => h.lines).join(''));
  };
  const fail = (row: number, problems: RowProblem[]) => {
    summary.failed++;
    held.push({
      row,
      lines: problems.map((p) => `${[row, p.column, p.value, p.reason].map(csvCell).join(',')}\n`).join(''),
    });
  };
  const keys = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();

  const handle = async (row: number, parsed: Row, written: Readonly<Record<string, string | undefined>>) => {
    running.add(row);
    try {
      const problems = await def.check(parsed, ctx);
      if (problems.length) return fail(row, problems);
      const result: RowResult = await def.apply(parsed, ctx, !options.dryRun);
      summary[result]++;
    } catch (err) {
      fail(row, refusalProblems(err, written));
    } finally {
      running.delete(row);
      flush();
      options.onProgress?.(summary.created + summary.updated + summary.unchanged + summary.failed);
    }
  };

  let header: string[] | undefined;
  try {
    // a sheet with passes (members: employees before their dependants) is read once per pass, each pass
    // taking its own rows after the rows of the pass before are done; rows are never held in memory
    const passes = def.passes ?? 1;
    for (let pass = 1; pass <= passes; pass++) {
      if (pass > 1) await Promise.allSettled(inFlight);
      for await (const item of readSheet(file)) {
        if (Array.isArray(item)) {
          header = item;
          const missing = def.columns.filter((c) => c.required && !header!.includes(c.name)).map((c) => c.name);
          if (missing.length) throw new Error(`${file}: the ${def.sheet} sheet has no column ${missing.join(', ')}`);
          continue;
        }
        if (passes > 1 && (def.passOf?.(item.values) ?? 1) !== pass) continue;
        summary.rows++;
        const problems: RowProblem[] = [];
        const parsed: Row = {};
        for (const column of def.columns) {
          const text = item.values[column.name];
          if (text === undefined) {
            if (column.required) problems.push({ column: column.name, value: '', reason: 'required' });
            continue;
          }
          const cell = parseCell(column, text);
          if ('reason' in cell) problems.push({ column: column.name, value: text, reason: cell.reason });
          else parsed[column.name] = cell.value;
        }
        if (!problems.length) {
          const key = def.key(parsed);
          const first = keys.get(key);
          if (first !== undefined)
            problems.push({ column: def.columns[0].name, value: key, reason: `duplicate of row ${first}` });
          else keys.set(key, item.row);
        }
        if (problems.length) {
          fail(item.row, problems);
          flush();
          options.onProgress?.(summary.created + summary.updated + summary.unchanged + summary.failed);
          continue;
        }
        const p = handle(item.row, parsed, item.values).finally(() => inFlight.delete(p));
        inFlight.add(p);
        if (inFlight.size >= concurrency) await Promise.race(inFlight);
      }
      if (!header) throw new Error(`${file}: the sheet is empty (no header row)`);
    }
  } finally {
    await Promise.allSettled(inFlight);
    try {
      flush(true);
    } finally {
      fs.closeSync(errorsFd);
    }
  }
  // opened at the start (an unwritable path stops the run before any row); a run without a failure leaves none
  // (nor an old run's, which the opening emptied)
  if (summary.failed === 0) fs.rmSync(errorsFile, { force: true });
  summary.seconds = Math.round((Date.now() - started) / 10) / 100;
  return summary;
}
