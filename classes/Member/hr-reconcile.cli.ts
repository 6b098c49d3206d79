/**
 * `npm run cli -- hr:reconcile <file> [--apply] [--out report.csv] [--json summary.json]`:
 * HR's population (a CSV or XLSX sheet, read as the importer reads its
 * sheets; columns: hr-reconcile.ts POPULATION_COLUMNS) compared with the
 * members, as the system actor named after the run (`system: hr:reconcile
 * <file>`). The differences go to a CSV report as they are found, the summary
 * to stdout (its last line) and, with --json, to a file; a progress bar on a
 * terminal, plain lines otherwise (stderr). Exit code 1 when a row is invalid
 * or a correction failed.
 *
 * With --apply the corrections are HR employee updates (4.2,
 * Member.hrUpdateEmployee through the runtime, so its schema, quarantine,
 * ledger and audit apply): a held deactivation is reported `held`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import type { WithRuntime } from '../../runtime';
import { runIdentity } from '../_platform/import/import.cli';
import { progress } from '../_platform/import/progress';
import { readSheet, sheetFormat } from '../_platform/import/rows';
import { HR_TIMESTAMP_HEADER, toFieldMessages } from './hr-contract';
import {
  hasErrors,
  missingColumns,
  pushAnswerOutcome,
  pushErrorOutcome,
  recordOfRow,
  REPORT_HEADER,
  reportLine,
  type ReconcileSummary,
} from './hr-reconcile';
import { asOfTime, listedCandidates, reconcilePopulation, type PopulationRow } from './use-cases/hr-reconcile';
import type { HrUpdateEmployeeInput } from '../../schemas/Member/inputs';

type Runtime = Parameters<Parameters<WithRuntime>[0]>[0];

/** ajv's errors of the 4.2 schema as 4.2 answers them (field → messages) */
function schemaProblems(
  errors: readonly { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }[],
): Record<string, string[]> {
  const fields = errors.map((e) => {
    const base = e.instancePath.split('/').slice(1).join('.');
    if (e.keyword === 'required')
      return { field: [base, String(e.params.missingProperty)].filter(Boolean).join('.'), reason: 'is required' };
    if (e.keyword === 'enum')
      return { field: base, reason: `must be one of: ${(e.params.allowedValues as unknown[]).map(String).join(', ')}` };
    return { field: base || '(body)', reason: e.message ?? 'is invalid' };
  });
  return toFieldMessages(fields, 'employee');
}

/** The sheet's rows as 4.2 records, each checked against 4.2's own schema (the runtime's validator of hrUpdateEmployee). */
async function* populationRows(rt: Runtime, file: string): AsyncGenerator<PopulationRow> {
  const validate = rt.registry.get('Member')?.methodsByName.get('hrUpdateEmployee')?.validate;
  let header = false;
  for await (const item of readSheet(file)) {
    if (Array.isArray(item)) {
      const missing = missingColumns(item);
      if (missing.length)
        throw new Error(
          `${file}: the HR population sheet has no column ${missing.join(', ')} (columns: see classes/Member/README.md, "Reconciliation")`,
        );
      header = true;
      continue;
    }
    const { record, missing } = recordOfRow(item.values);
    let problems: Record<string, string[]> | undefined;
    if (missing.length) problems = Object.fromEntries(missing.map((c) => [c, ['is required']]));
    else if (validate && !validate(record)) problems = schemaProblems(validate.errors ?? []);
    yield { row: item.row, record, ...(problems ? { problems } : {}) };
  }
  if (!header) throw new Error(`${file}: the sheet is empty (no header row)`);
}

/** ids of every Member instance, from the actor state itself (the embedded document store lives in the service's processes, not here) */
async function* storedMemberIds(rt: Runtime): AsyncGenerator<string[]> {
  for await (const ids of rt.store.instanceIds('Member')) yield ids;
}

/** opens a report file before anything is read, so a path that cannot be written stops the run with one line */
function openOut(file: string, option: string): number {
  try {
    return fs.openSync(file, 'w');
  } catch (err) {
    throw new Error(
      `the ${option} file ${file} cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)}): pass ${option} <writable path>`,
      { cause: err },
    );
  }
}

export function registerCommands(program: Command, withRuntime: WithRuntime): void {
  program
    .command('hr:reconcile <file>')
    .description(
      "compare HR's population (CSV or XLSX, one employee per row, the HR employee update's fields) with the members: missing in the program, " +
        'missing in HR (still active here), field drift; with --apply, correct drift and missing-in-HR through the HR employee update',
    )
    .option('--apply', 'push the corrections (HR employee updates); without it nothing is written')
    .option('--out <file>', 'the CSV report of the differences; default <file>.reconcile.csv')
    .option('--json <file>', 'also write the JSON summary to this file')
    .option(
      '--companies <bgIds>',
      'the BG_IDs the file covers, comma-separated: members of other companies are not missing in HR (default: every company)',
    )
    .option(
      '--as-of <time>',
      'when HR produced the file (ISO 8601 with a zone): members HR pushed a newer record of are left out, and corrections carry it as X-HR-Timestamp',
    )
    .option('--concurrency <n>', 'members read or pushed side by side', '8')
    .action(
      (
        file: string,
        opts: { apply?: boolean; out?: string; json?: string; companies?: string; asOf?: string; concurrency: string },
      ) => {
        const concurrency = Number(opts.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
          throw new Error(`--concurrency must be an integer from 1 to 256, got '${opts.concurrency}'`);
        sheetFormat(file);
        if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
        const bgIds = opts.companies
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        if (opts.companies !== undefined && !bgIds?.length) throw new Error('--companies must name at least one BG_ID');
        const asOf = opts.asOf === undefined ? undefined : asOfTime(opts.asOf);
        if (opts.asOf !== undefined && asOf === undefined)
          throw new Error(
            `--as-of must be an ISO 8601 date-time with a zone (2026-11-29T06:00:00Z), got '${opts.asOf}'`,
          );
        const outFile = opts.out ?? `${file}.reconcile.csv`;
        return withRuntime(async (rt) => {
          const out = openOut(outFile, '--out');
          const json = opts.json ? openOut(opts.json, '--json') : undefined;
          fs.writeSync(out, `${REPORT_HEADER}\n`);
          const identity = runIdentity(`hr:reconcile ${path.basename(file)}`);
          const bar = progress('hr:reconcile', file);
          let summary: ReconcileSummary;
          try {
            summary = await reconcilePopulation(
              populationRows(rt, file),
              {
                caller: {
                  call: (classId, method, instanceId, body) => rt.call(classId, method, instanceId, body, { identity }),
                },
                push: async (record: HrUpdateEmployeeInput) => {
                  try {
                    const res = await rt.call('Member', 'hrUpdateEmployee', undefined, record, {
                      identity,
                      ...(asOf ? { headers: { [HR_TIMESTAMP_HEADER]: asOf } } : {}),
                    });
                    return pushAnswerOutcome(res.status, res.body);
                  } catch (err) {
                    return pushErrorOutcome(err);
                  }
                },
                // a shared store (MongoDB) holds the listing; otherwise the instances are the candidates
                candidates: (companyIds) =>
                  rt.documents.shared ? listedCandidates(rt.documents, companyIds) : storedMemberIds(rt),
              },
              {
                apply: !!opts.apply,
                concurrency,
                ...(asOf ? { asOf } : {}),
                ...(bgIds ? { bgIds } : {}),
                onDifference: (d) => fs.writeSync(out, reportLine(d)),
                onProgress: (done) => bar.tick(done),
              },
            );
          } finally {
            bar.stop();
            fs.closeSync(out);
          }
          const text = JSON.stringify({ ...summary, report: outFile });
          if (json !== undefined) {
            fs.writeSync(json, `${JSON.stringify({ ...summary, report: outFile }, null, 2)}\n`);
            fs.closeSync(json);
          }
          process.stdout.write(`${text}\n`);
          if (hasErrors(summary)) process.exitCode = 1;
        });
      },
    );
}
