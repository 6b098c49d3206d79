/**
 * Reconciliation of HR's population with the members (`npm run cli --
 * hr:reconcile <file>`, and reconcileHrPopulation for the back office): the
 * rules are hr-reconcile.ts's; this is the run.
 *
 *  1. Each HR row: its references as 4.2 resolves them (the member type by
 *     employmentType, the company by BG_ID; either unknown: the row is
 *     invalid, as 4.2 would refuse it), then its member through the staffId
 *     lookup (else oldStaffId's, a staff-id migration), read from the member's
 *     own state (hrReconcileView). No member: missing in the program (an
 *     employee HR lists as active; the importer creates it). A member: the
 *     fields a 4.2 push of the row would write are its drift.
 *  2. Missing in HR: the members that may be active here come from a
 *     candidate source (the `members` listing, or the instances themselves);
 *     each one not met in step 1 is read from its own state and counts only
 *     if it is still an active employee here whose staff id no row names.
 *  3. Apply: every drift and every member missing in HR is pushed through
 *     4.2 (the row itself; for a member missing in HR, its own record with
 *     status `terminated`), so the quarantine, the audit entry and every rule
 *     of 4.2 apply. A 202 from the quarantine is `held`, not a failure.
 */
import { ActorError, isUnknownInstance, RuntimeCodes, type BaseCtx, type Identity } from '../../../runtime';
import { memberError } from '../errors';
import { findMemberTypeBySystemIdentifier, getCompany, getCompanyByBgId, getMemberType } from '../clients';
import { HR_TIMESTAMP_HEADER, hrTimestampOf } from '../hr-contract';
import {
  activeHere,
  countDifference,
  emptySummary,
  employeeDrift,
  newerThanFile,
  pushAnswerOutcome,
  pushErrorOutcome,
  reconcileProfile,
  recordDateProblems,
  terminationRecord,
  type Difference,
  type PushOutcome,
  type ReconcileProfile,
  type ReconcileSummary,
} from '../hr-reconcile';
import { MEMBERS_COLLECTION } from '../listing-rules';
import type { MemberStaticCtx } from '../member-state';
import { hrEmployeeSnapshot, hrUpdateEmployee } from './hr-employee';
import { members } from './self-client';
import type { HrUpdateEmployeeInput, ReconcileHrPopulationInput } from '../../../schemas/Member/inputs';

type Caller = Pick<BaseCtx, 'call'>;
type ResponseInit = BaseCtx['response'];

/** the member as the reconciliation compares it (its own state), and when HR produced the newest record applied to it */
interface MemberView {
  member: ReconcileProfile;
  hrRecordedAt: string | null;
}

/** one row of HR's population: its place, the record, and what made it invalid before anything was read */
export interface PopulationRow {
  row: number;
  record: HrUpdateEmployeeInput;
  /** field → messages; a row with problems is reported invalid and nothing else is done with it */
  problems?: Record<string, string[]>;
}

export interface ReconcilePorts {
  /** reads of Setting, Company and members: a class's context, or the CLI's runtime as the system */
  caller: Caller;
  /** one 4.2 push of a record (with `asOf` as its X-HR-Timestamp when the run has one) */
  push(record: HrUpdateEmployeeInput): Promise<PushOutcome>;
  /** ids of members that may be active here, in batches; `companyIds`: only these companies' (undefined: every company) */
  candidates(companyIds: readonly string[] | undefined): AsyncIterable<readonly string[]>;
}

export interface ReconcileOptions {
  apply: boolean;
  /** members read or pushed side by side (default 8) */
  concurrency?: number;
  /** the BG_IDs HR's population covers: members of other companies are not missing in HR (default: every company) */
  bgIds?: readonly string[];
  onDifference(d: Difference): void;
  /** called as rows and candidates are done */
  onProgress?(done: number): void;
  /**
   * when HR produced the population (ISO 8601 with a zone): a member holding a
   * newer HR record is left out, and the pushes carry it as X-HR-Timestamp so
   * that 4.2 refuses to undo a record pushed after the check
   */
  asOf?: string;
  /** stops the run (no further row or candidate is taken) once aborted: a call past its time budget */
  signal?: AbortSignal;
}

/** the messages 4.2 answers for references it cannot resolve (hr-employee.ts, hr-contract.ts) */
const UNKNOWN_TYPE = (t: string) => `'${t}' does not match an active member type`;
const UNKNOWN_BG_ID = 'No company is mapped to the given companyId (BG_ID)';

/** how to create or deactivate what no 4.2 push can: for the report's `reason` */
export const MISSING_IN_PROGRAM_ACTION =
  'not a member: HR lists this employee as active; create the member with `npm run cli -- import members <sheet>` (or registerFromHr), then reconcile again';
const manualDeactivation = (fields: string[]) =>
  `cannot be deactivated by an HR update: the member has no ${fields.join(', ')} (an HR update writes these); deactivate it in the back office (updateMemberStatus)`;

/** a pool of at most `size` tasks at once; `run` waits for a free place */
function pool(size: number) {
  const running = new Set<Promise<void>>();
  let firstError: Error | undefined;
  return {
    async run(task: () => Promise<void>) {
      const p = task()
        .catch((err: unknown) => {
          firstError ??= err instanceof Error ? err : new Error(String(err));
        })
        .finally(() => running.delete(p));
      running.add(p);
      if (running.size >= size) await Promise.race(running);
    },
    async drain() {
      await Promise.all(running);
      if (firstError !== undefined) throw firstError;
    },
  };
}

/** a remembered answer per key: each reference is read once per run */
function memo<T>(ask: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const seen = new Map<string, Promise<T>>();
  return (key) => {
    let p = seen.get(key);
    if (!p) seen.set(key, (p = ask(key)));
    return p;
  };
}

/** the member a lookup or id names, from its own state; null when there is none */
async function viewOf(caller: Caller, instance: string): Promise<MemberView | null> {
  try {
    // the read 4.2's own fast path makes (hrEmployeeSnapshot): one view of a member for both
    const snap = await members<{ hrEmployeeSnapshot: typeof hrEmployeeSnapshot }>(caller).hrEmployeeSnapshot(
      instance,
      {},
    );
    return { member: reconcileProfile(snap.profile), hrRecordedAt: snap.hrRecordedAt ?? null };
  } catch (err) {
    if (isUnknownInstance(err)) return null;
    throw err;
  }
}

/** Reconciles HR's population (rows, streamed) with the members; the differences go to onDifference as they are found. */
export async function reconcilePopulation(
  rows: AsyncIterable<PopulationRow> | Iterable<PopulationRow>,
  ports: ReconcilePorts,
  opts: ReconcileOptions,
): Promise<ReconcileSummary> {
  const started = Date.now();
  const summary = emptySummary(opts.apply);
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 8));
  const { caller } = ports;
  let done = 0;
  const progress = () => opts.onProgress?.(++done);
  const report = (d: Difference) => {
    countDifference(summary, d);
    opts.onDifference(d);
  };
  const pushed = async (d: Omit<Difference, 'outcome'>, record: HrUpdateEmployeeInput): Promise<Difference> => {
    if (!opts.apply) return { ...d, outcome: 'reported' };
    const out = await ports.push(record);
    if (out.outcome === 'failed')
      return {
        ...d,
        outcome: 'failed',
        status: out.status,
        ...(out.code !== undefined ? { code: out.code } : {}),
        reason: out.reason,
      };
    if (out.outcome === 'held')
      return {
        ...d,
        outcome: 'held',
        reason: `held for review by the HR quarantine${out.approvalId ? ` (approval ${out.approvalId})` : ''}`,
      };
    if (out.outcome === 'stale')
      return {
        ...d,
        outcome: 'stale',
        reason: 'HR pushed a newer record of this employee after the check; nothing applied',
      };
    return { ...d, outcome: 'applied' };
  };

  const memberType = memo((t) => findMemberTypeBySystemIdentifier(caller, t));
  const companyByBg = memo((bg) => getCompanyByBgId(caller, bg));
  const companyById = memo((id) => getCompany(caller, id));
  const typeById = memo((id) => getMemberType(caller, id));

  // the BG_IDs in scope as company ids (an unknown BG_ID covers no member)
  let scope: string[] | undefined;
  if (opts.bgIds) {
    const companies = await Promise.all(opts.bgIds.map((bg) => companyByBg(bg)));
    scope = companies.filter((c): c is NonNullable<typeof c> => c !== null).map((c) => c.id);
  }

  /** staff ids HR names (valid rows or not): such a member is never missing in HR */
  const hrStaffIds = new Set<string>();
  /** members a row matched */
  const seen = new Set<string>();
  /** employeeId → the first row naming it */
  const firstRow = new Map<string, number>();

  const checkRow = async (r: PopulationRow): Promise<void> => {
    const rec = r.record;
    const invalid = (problems: Record<string, string[]>, reason?: string) =>
      report({
        kind: 'invalid_row',
        row: r.row,
        employeeId: rec.employeeId || null,
        outcome: 'reported',
        reason:
          reason ??
          Object.entries(problems)
            .map(([f, m]) => `${f} ${m.join(', ')}`)
            .join('; '),
      });
    if (r.problems && Object.keys(r.problems).length) return invalid(r.problems);
    const dates = recordDateProblems(rec);
    const [type, company] = await Promise.all([memberType(rec.employmentType), companyByBg(rec.companyId)]);
    const problems: Record<string, string[]> = { ...dates };
    if (!type || type.status !== 'active') problems.employmentType = [UNKNOWN_TYPE(rec.employmentType)];
    if (!company) problems.companyId = [UNKNOWN_BG_ID];
    if (Object.keys(problems).length) return invalid(problems);

    let migrated = false;
    let view = await viewOf(caller, `staffId!${rec.employeeId}`);
    if (!view && rec.oldStaffId && rec.oldStaffId !== rec.employeeId) {
      view = await viewOf(caller, `staffId!${rec.oldStaffId}`);
      migrated = view !== null;
    }
    if (!view) {
      if (rec.status !== 'active') {
        summary.ignored++;
        return;
      }
      return report({
        kind: 'missing_in_program',
        row: r.row,
        employeeId: rec.employeeId,
        outcome: 'manual',
        reason: MISSING_IN_PROGRAM_ACTION,
      });
    }
    const member = view.member;
    seen.add(member.id);
    if (newerThanFile(view.hrRecordedAt, opts.asOf)) {
      summary.newerInService++;
      return;
    }
    const changes = employeeDrift(member, rec, { memberTypeId: type!.id, companyId: company!.id, migrated });
    if (!changes.length) {
      summary.inSync++;
      return;
    }
    report(await pushed({ kind: 'drift', row: r.row, employeeId: rec.employeeId, memberId: member.id, changes }, rec));
  };

  const rowsPool = pool(concurrency);
  const stopIfAborted = () => {
    if (opts.signal?.aborted)
      throw new Error(
        'the reconciliation was stopped (its time budget ran out); what it pushed is applied, run it again to finish',
      );
  };
  for await (const r of rows) {
    stopIfAborted();
    summary.rows++;
    const id = r.record.employeeId;
    if (id) hrStaffIds.add(id);
    if (r.record.oldStaffId) hrStaffIds.add(r.record.oldStaffId);
    const first = id ? firstRow.get(id) : undefined;
    if (first !== undefined) {
      report({
        kind: 'invalid_row',
        row: r.row,
        employeeId: id,
        outcome: 'reported',
        reason: `employeeId ${id} is in row ${first} too`,
      });
      progress();
      continue;
    }
    if (id) firstRow.set(id, r.row);
    await rowsPool.run(() => checkRow(r).finally(progress));
  }
  await rowsPool.drain();

  // missing in HR: candidates from the source, each confirmed from its own state
  const checkCandidate = async (id: string): Promise<void> => {
    const view = await viewOf(caller, id);
    if (!view) return;
    const member = view.member;
    summary.candidatesChecked++;
    if (!activeHere(member) || hrStaffIds.has(member.staffId!) || seen.has(member.id)) return;
    if (scope && !scope.includes(member.company.id)) return;
    // HR pushed this employee after the export: HR still knows it
    if (newerThanFile(view.hrRecordedAt, opts.asOf)) {
      summary.newerInService++;
      return;
    }
    const [type, company] = await Promise.all([
      member.memberType ? typeById(member.memberType) : null,
      companyById(member.company.id),
    ]);
    const built = terminationRecord(member, {
      employmentType: type && type.status === 'active' ? type.systemIdentifier : null,
      bgId: company?.bgId ?? null,
    });
    const d = { kind: 'missing_in_hr' as const, employeeId: member.staffId, memberId: member.id };
    if ('missing' in built) return report({ ...d, outcome: 'manual', reason: manualDeactivation(built.missing) });
    report(await pushed(d, built.record));
  };
  const candidatesPool = pool(concurrency);
  for await (const batch of ports.candidates(scope)) {
    for (const id of batch) {
      stopIfAborted();
      if (seen.has(id)) continue;
      await candidatesPool.run(() => checkCandidate(id).finally(progress));
    }
  }
  await candidatesPool.drain();

  summary.seconds = Math.round((Date.now() - started) / 10) / 100;
  return summary;
}

// ---------------------------------------------------------------- candidates

/** statuses of members who cannot be missing in HR (activeHere says why); the listing leaves them out */
const NOT_ACTIVE_HERE = ['inactive', 'rejected'];
const CANDIDATE_PAGE = 500;

/**
 * Candidates from the `members` listing (the document store): employees
 * (no primary member) whose listed status may be active, page by page on
 * their id. The listing lags the members' state, so each candidate is still
 * read from its state before it counts; a member created after its page was
 * read is the next run's.
 */
export async function* listedCandidates(
  documents: BaseCtx['documents'],
  companyIds: readonly string[] | undefined,
): AsyncIterable<string[]> {
  let after: string | undefined;
  for (;;) {
    const filter: Record<string, unknown> = {
      primaryMemberId: null,
      staffId: { $ne: null },
      status: { $nin: NOT_ACTIVE_HERE },
    };
    if (companyIds) filter.companyId = { $in: [...companyIds] };
    if (after !== undefined) filter._id = { $gt: after };
    const page = await documents.find<{ _id: string }>(MEMBERS_COLLECTION, filter, {
      sort: { _id: 1 },
      limit: CANDIDATE_PAGE,
      projection: { _id: 1 },
      total: false,
    });
    if (!page.items.length) return;
    yield page.items.map((d) => String(d._id));
    if (page.items.length < CANDIDATE_PAGE) return;
    after = String(page.items[page.items.length - 1]._id);
  }
}

// ---------------------------------------------------------------- the back-office method

/** Pure: a population's `asOf` as the UTC instant 4.2's X-HR-Timestamp takes (4.2's own parser), or undefined when it names none */
export function asOfTime(value: string): string | undefined {
  try {
    return hrTimestampOf({ [HR_TIMESTAMP_HEADER]: value });
  } catch {
    return undefined;
  }
}

/** the HR population rows a call takes at most: a bigger population goes through `hr:reconcile <file>` */
export const RECONCILE_MAX_ROWS = 5000;
/** the differences an answer lists at most (the summary counts them all) */
export const RECONCILE_MAX_LIMIT = 1000;

/**
 * The 4.2 use case run for one record on behalf of the back-office caller:
 * its context with the record as the request's body and a response of its
 * own (the quarantine answers 202 through it), everything else the caller's
 * (its identity names the audit entries, its calls reach the member).
 */
async function pushAsCaller(
  ctx: MemberStaticCtx<ReconcileHrPopulationInput>,
  record: HrUpdateEmployeeInput,
  asOf: string | undefined,
): Promise<PushOutcome> {
  const request = { ...ctx.request, body: record, headers: asOf ? { [HR_TIMESTAMP_HEADER]: asOf } : {} };
  let response: ResponseInit = {};
  const view = new Proxy(ctx, {
    get(target, prop) {
      if (prop === 'request') return request;
      if (prop === 'response') return response;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    set(target, prop, value) {
      if (prop === 'response') {
        response = value as ResponseInit;
        return true;
      }
      return Reflect.set(target, prop, value, target);
    },
  }) as unknown as MemberStaticCtx<HrUpdateEmployeeInput>;
  try {
    const body = await hrUpdateEmployee(view);
    return pushAnswerOutcome(response.status ?? 200, body);
  } catch (err) {
    return pushErrorOutcome(err);
  }
}

/**
 * reconcileHrPopulation's guard: HR's population spans every company, and
 * so do its corrections and the members it reports missing, so company
 * users are refused (403 1023, the runtime's out-of-scope answer) before the
 * body is read.
 */
export function internalUsersOnly(caller: { identity: Identity }): void {
  const tenant = caller.identity.tenant;
  if (tenant === undefined) return;
  const { status, code } = RuntimeCodes.OUT_OF_SCOPE;
  throw new ActorError(
    status,
    code,
    `The HR reconciliation spans every company: a caller limited to tenant '${tenant}' may not run it`,
  );
}

/**
 * reconcileHrPopulation (STATIC, internal back-office users): HR's population
 * as 4.2 records, compared with the members and, with `apply`, corrected
 * through 4.2 as the caller. Answers the summary and the first `limit`
 * differences. Dates are checked first (400 5028 naming each row's field).
 */
export async function reconcileHrPopulation(ctx: MemberStaticCtx<ReconcileHrPopulationInput>) {
  const body = ctx.request.body;
  const errors: { field: string; reason: string }[] = [];
  body.rows.forEach((rec, i) => {
    for (const [field, messages] of Object.entries(recordDateProblems(rec)))
      for (const m of messages) errors.push({ field: `rows.${i}.${field}`, reason: m });
  });
  const asOf = body.asOf === undefined ? undefined : asOfTime(body.asOf);
  if (body.asOf !== undefined && asOf === undefined)
    errors.push({ field: 'asOf', reason: 'must be an ISO 8601 date-time with a zone (2026-11-29T06:00:00Z)' });
  if (errors.length)
    throw memberError(
      'INVALID_INPUT',
      `Invalid HR population: ${errors.map((e) => `${e.field} ${e.reason}`).join('; ')}`,
      { errors },
    );

  const limit = body.limit ?? 100;
  const differences: Difference[] = [];
  const summary = await reconcilePopulation(
    body.rows.map((record, row) => ({ row, record })),
    {
      caller: ctx,
      push: (record) => pushAsCaller(ctx, record, asOf),
      candidates: (companyIds) => listedCandidates(ctx.documents, companyIds),
    },
    {
      apply: body.apply === true,
      signal: ctx.signal,
      ...(asOf ? { asOf } : {}),
      ...(body.companies ? { bgIds: body.companies } : {}),
      onDifference: (d) => {
        if (differences.length < limit) differences.push(d);
      },
    },
  );
  const listed = summary.drift + summary.missingInProgram + summary.missingInHr + summary.invalid;
  return { summary, differences, truncated: listed > differences.length };
}
