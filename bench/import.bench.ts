/**
 * Migration import benchmark: `npm run bench:import` (100 000 rows)
 * or `npm run bench:import -- --quick` (10 000 rows).
 *
 * One Redis (embedded redis-server without persistence, or REDIS_URL), the
 * service as deployed (`npm run build`, then `node dist/runtime/main.js`: the
 * service classes, roles api,worker,projector, LOG_LEVEL=warn, embedded
 * document store), the example program loaded through the CLI
 * (`dist/runtime/cli.js seed examples/seed.json`), then:
 *
 *   1. a member sheet of ROWS rows with every column of spec 2.9, written to a
 *      temporary CSV as a stream: three members for each dependant (spouse or
 *      child, employmentType Dependant), each member with a membership (DDS,
 *      monthly, primaryMemberType Regular: tier-base-2026 through
 *      examples/import/mapping.json), company BG-100;
 *   2. `cli.js import members <file> --mapping examples/import/mapping.json --dry-run`:
 *      `dry_run_seconds` (the whole command, start-up included);
 *   3. the same without --dry-run: `import_rows_per_s`;
 *   4. the same file again, every row unchanged: `reimport_rows_per_s`;
 *   5. the service lists every imported member (its projector caught up).
 *
 * Each import is its own process, as an operator runs it, on the same Redis
 * as the running service. Its peak memory is the kernel's high-water mark
 * (VmHWM of /proc/<pid>/status, read every 100 ms while it runs): `rss_mb` is
 * the highest of the three runs. `failed` sums the refused rows of the three
 * runs (must be 0; the first lines of an error file are printed otherwise).
 *
 * Human-readable figures go to stdout; the LAST stdout line is one JSON object.
 * Flags: --quick (10 000 rows), --rows=N (or --rows N), --concurrency=N (the
 * import's --concurrency; default CONCURRENCY), --cpu-prof (the real import
 * run under node --cpu-prof, summarised with bench/profile-summary.ts),
 * --keep (keep the CSV and error files; their directory is printed),
 * --payment=dds|company-paid|credit-card (diagnostic: the members' payment type; default dds),
 * --max-old-space=MB (diagnostic: the import processes' V8 heap limit).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import type { ImportSummary } from '../classes/_platform/import/run';
import { TokenService } from '../runtime/auth/auth';
import { findFreePort } from '../runtime/redis/embedded-redis';
import { describeProfile, summariseProfile, type CpuProfile } from './profile-summary';
import {
  benchKeys,
  benchRedisUrl,
  buildService,
  call,
  type Child,
  cpuSeconds,
  deleteKeys,
  fmt,
  log,
  positiveIntFlag,
  projectKeyPatterns,
  ROOT,
  round1,
  runBench,
  sleep,
  stamp,
  startNodeChild,
  tempDirs,
  tracked,
  treeCpuSeconds,
  vmStatus,
  waitReady,
} from './support';

// ---------------------------------------------------------------------------
// settings
// ---------------------------------------------------------------------------

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const CPU_PROF = argv.includes('--cpu-prof');
const KEEP = argv.includes('--keep');
const flag = (name: string) => positiveIntFlag(argv, name);

const ROWS = flag('rows') ?? (QUICK ? 10_000 : 100_000);
/** rows the import writes side by side (its --concurrency; the CLI's own default is 8) */
const CONCURRENCY = flag('concurrency') ?? 32;
/**
 * diagnostic: the members' payment type word (default DDS). `--payment=company-paid`
 * gives them Company Paid memberships, which have no payment schedule: the
 * audit entry of a new member then stays under the 1 KB a field that goes to a
 * LARGE_LOG file (spec 8), so comparing the two shows that file's cost.
 */
const PAYMENT_WORDS: Record<string, string> = {
  dds: 'DDS',
  'company-paid': 'Company Paid',
  'credit-card': 'Credit Card',
};
const PAYMENT_FLAG = argv.find((a) => a.startsWith('--payment='))?.split('=')[1] ?? 'dds';
const MEMBER_PAYMENT = PAYMENT_WORDS[PAYMENT_FLAG];
if (!MEMBER_PAYMENT)
  throw new Error(`--payment must be one of ${Object.keys(PAYMENT_WORDS).join(', ')}, got '${PAYMENT_FLAG}'`);
/** diagnostic: the import processes' V8 old-space limit (node --max-old-space-size), to tell live memory from garbage not collected yet */
const MAX_OLD_SPACE = flag('max-old-space');
const PROJECT_ID = 'benchimport';
/** the service's key names (REDIS_BUCKETS buckets, 1 unless set) */
const KEYS = benchKeys(PROJECT_ID);
const JWT_SECRET = 'bench-import-jwt-secret-0123456789-0123456789-012';
const MAPPING = path.join(ROOT, 'examples/import/mapping.json');
const PROJECTION_TIMEOUT_MS = 15 * 60_000;

const TARGETS = { import_rows_per_s: 2000, dry_run_seconds: 60 };

// ---------------------------------------------------------------------------
// the member sheet (spec 2.9)
// ---------------------------------------------------------------------------

/** the member sheet's columns, in spec 2.9's order */
export const MEMBER_COLUMNS = [
  'employeeId',
  'oldEmployeeId',
  'dependantId',
  'email',
  'name',
  'middleName',
  'surname',
  'idPhoto',
  'phone',
  'grade',
  'isCabinCrew',
  'employmentType',
  'companyId',
  'birthdate',
  'addressCountry',
  'address',
  'primaryMemberType',
  'secondaryMemberType',
  'dependantType',
  'membershipStatus',
  'membershipStart',
  'membershipEnd',
  'membershipLastRenewal',
  'membershipPaymentType',
  'membershipPaymentPeriod',
  'createdAt',
  'updatedAt',
] as const;
type MemberColumn = (typeof MEMBER_COLUMNS)[number];

const SURNAMES = 997;
const FIRST_NAMES = ['Amal', 'Omar', 'Lina', 'Yousef', 'Sara', 'Rami', 'Maya', 'Hana', 'Karim', 'Noor', 'Ali', 'Dana'];

/**
 * Row r of the sheet (0-based). Rows come in groups of four: three members,
 * then a dependant of the third (a spouse in even groups, a child in odd
 * ones), so a dependant row follows its member's row and about one row in
 * four is a dependant. Every value is a pure function of r: the same file
 * each time, unique staff ids, emails and phones.
 */
export function memberRow(r: number, memberPayment = 'DDS'): Record<MemberColumn, string> {
  const group = Math.floor(r / 4);
  const dependant = r % 4 === 3;
  /** the member's number: three a group */
  const m = group * 3 + (dependant ? 2 : r % 4);
  const employeeId = `IM${String(m).padStart(7, '0')}`;
  const first = FIRST_NAMES[r % FIRST_NAMES.length];
  const membership = {
    membershipStatus: 'active',
    membershipStart: '2026-01-01',
    membershipEnd: '2026-12-31',
    membershipLastRenewal: '2026-01-01',
    membershipPaymentType: memberPayment,
    membershipPaymentPeriod: 'monthly',
  };
  const common = {
    employeeId,
    oldEmployeeId: '',
    companyId: 'BG-100',
    addressCountry: 'AE',
    address: `${m % 500} Import Street, Dubai`,
    idPhoto: '',
    createdAt: '2025-06-01T08:00:00Z',
    updatedAt: '2025-09-01T08:00:00Z',
  };
  if (!dependant) {
    return {
      ...common,
      dependantId: '',
      email: `member${m}@import.example`,
      name: first,
      middleName: m % 5 === 0 ? 'Said' : '',
      surname: `Surname${m % SURNAMES}`,
      phone: `+9715${String(m).padStart(8, '0')}`,
      grade: `G${(m % 9) + 1}`,
      isCabinCrew: m % 3 === 0 ? 'true' : 'false',
      employmentType: 'Permanent',
      birthdate: `19${70 + (m % 30)}-${String((m % 12) + 1).padStart(2, '0')}-${String((m % 28) + 1).padStart(2, '0')}`,
      primaryMemberType: 'Regular',
      secondaryMemberType: '',
      dependantType: '',
      ...membership,
    };
  }
  const spouse = group % 2 === 0;
  return {
    ...common,
    dependantId: `IMD${String(group).padStart(7, '0')}`,
    email: `dependant${group}@import.example`,
    name: first,
    middleName: '',
    surname: `Surname${m % SURNAMES}`,
    phone: `+9716${String(group).padStart(8, '0')}`,
    grade: '',
    isCabinCrew: 'false',
    employmentType: 'Dependant',
    birthdate: spouse ? `19${75 + (group % 20)}-06-15` : `20${10 + (group % 14)}-03-20`,
    primaryMemberType: 'Regular',
    secondaryMemberType: '',
    dependantType: spouse ? 'spouse' : 'child',
    ...membership,
    // a dependant's membership is the company's to pay (one of the member's free dependants)
    membershipPaymentType: 'Company Paid',
  };
}

function csvCell(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Writes the sheet as a stream: a chunk of rows at a time, waiting for the file when it is behind. */
async function writeSheet(file: string, rows: number): Promise<{ bytes: number; dependants: number }> {
  const out = fs.createWriteStream(file);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const write = async (chunk: string) => {
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
  };
  await write(`${MEMBER_COLUMNS.join(',')}\n`);
  let dependants = 0;
  const CHUNK = 500;
  for (let from = 0; from < rows; from += CHUNK) {
    let chunk = '';
    for (let r = from; r < Math.min(rows, from + CHUNK); r++) {
      const row = memberRow(r, MEMBER_PAYMENT);
      if (row.employmentType === 'Dependant') dependants++;
      chunk += `${MEMBER_COLUMNS.map((c) => csvCell(row[c])).join(',')}\n`;
    }
    await write(chunk);
  }
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
  return { bytes: fs.statSync(file).size, dependants };
}

/** The written file's header is spec 2.9's member columns and every line has as many cells (the first lines parsed back). */
async function checkSheet(file: string, rows: number): Promise<void> {
  const { parse } = await import('csv-parse');
  const parser = fs.createReadStream(file).pipe(parse({ to_line: 201 }));
  let n = 0;
  for await (const cells of parser as AsyncIterable<string[]>) {
    if (n === 0 && cells.join(',') !== MEMBER_COLUMNS.join(','))
      throw new Error(`generated header is not spec 2.9's member columns: ${cells.join(',')}`);
    if (cells.length !== MEMBER_COLUMNS.length)
      throw new Error(`generated line ${n + 1} has ${cells.length} cells, not ${MEMBER_COLUMNS.length}`);
    n++;
  }
  let lines = 0;
  for await (const chunk of fs.createReadStream(file)) for (const byte of chunk as Buffer) if (byte === 10) lines++;
  if (lines !== rows + 1) throw new Error(`generated file has ${lines} lines, not ${rows + 1}`);
}

// ---------------------------------------------------------------------------
// one CLI process, measured
// ---------------------------------------------------------------------------

interface CliRun {
  seconds: number;
  /** peak resident memory (VmHWM), MB */
  hwmMb: number;
  /** the process's CPU seconds (user + sys) */
  cpu: number;
  /** the service's and Redis's CPU seconds over the run */
  serviceCpu: number;
  redisCpu: number;
  summary: ImportSummary;
  exitCode: number | null;
  output: string;
}

/** `cli.js <args>` in its own process; its memory high-water mark and CPU are read every 100 ms until it exits. */
async function runCli(
  name: string,
  env: Record<string, string>,
  args: string[],
  servicePid: number,
  nodeArgs: string[] = [],
): Promise<CliRun> {
  const redisPid = tracked.redis?.pid;
  const service0 = treeCpuSeconds(servicePid);
  const redis0 = redisPid ? cpuSeconds(redisPid) : NaN;
  const t0 = performance.now();
  const child = startNodeChild(name, 'dist/runtime/cli.js', env, nodeArgs, args);
  let hwmMb = 0;
  let cpu = 0;
  while (child.alive()) {
    try {
      // an exiting process's status has no memory lines (NaN): keep the last reading
      const { hwmMb: hwm } = vmStatus(child.pid);
      if (Number.isFinite(hwm)) hwmMb = Math.max(hwmMb, hwm);
      const used = cpuSeconds(child.pid);
      if (Number.isFinite(used)) cpu = Math.max(cpu, used);
    } catch {
      /* exiting */
    }
    await Promise.race([sleep(100), child.exited]);
  }
  const seconds = (performance.now() - t0) / 1000;
  const output = child.tail();
  const last = output
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (!last) throw new Error(`${name} printed no summary (exit ${child.exitCode()}):\n${output}`);
  return {
    seconds,
    hwmMb,
    cpu,
    serviceCpu: treeCpuSeconds(servicePid) - service0,
    redisCpu: redisPid ? cpuSeconds(redisPid) - redis0 : NaN,
    summary: JSON.parse(last) as ImportSummary,
    exitCode: child.exitCode(),
    output,
  };
}

function describeRun(label: string, run: CliRun, rows: number): string {
  const s = run.summary;
  return (
    `${label.padEnd(26)} ${fmt(run.seconds, 1).padStart(6)} s  ${fmt(rows / run.seconds).padStart(6)} rows/s` +
    `   (its own count: ${fmt(s.seconds, 1)} s)   created ${s.created} updated ${s.updated} unchanged ${s.unchanged} failed ${s.failed}` +
    `   peak RSS ${fmt(run.hwmMb)} MB   CPU: import ${fmt(run.cpu, 1)} s, service ${fmt(run.serviceCpu, 1)} s, redis ${fmt(run.redisCpu, 1)} s`
  );
}

function errorHead(file: string, lines = 10): string {
  try {
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .slice(0, lines + 1)
      .join('\n');
  } catch {
    return '(no error file)';
  }
}

/** listMembers total as a program management user (the service's document store). */
async function listedTotal(base: string, auth: Record<string, string>): Promise<number> {
  const r = await call(base, 'GET', `/${PROJECT_ID}/CALL/Member/listMembers?limit=1`, undefined, auth);
  if (r.status !== 200) throw new Error(`listMembers answered ${r.status}: ${JSON.stringify(r.body)}`);
  return Number((r.body as { totalCount: number }).totalCount);
}

// ---------------------------------------------------------------------------
// the benchmark
// ---------------------------------------------------------------------------

async function main(): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  log(
    `import benchmark (${QUICK ? 'quick' : 'full'}): ${os.cpus().length} CPUs, node ${process.version}; member sheet of ${ROWS} rows, members paying ${MEMBER_PAYMENT}, import --concurrency ${CONCURRENCY}`,
  );
  let redis: Redis | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-bench-data-'));
  tempDirs.add(dataDir);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-bench-files-'));
  if (!KEEP) tempDirs.add(workDir);
  const profDir = CPU_PROF ? fs.mkdtempSync(path.join(os.tmpdir(), 'import-bench-prof-')) : undefined;
  let service: Child | undefined;
  try {
    const redisUrl = await benchRedisUrl();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    const removed = await deleteKeys(redis, projectKeyPatterns(PROJECT_ID));
    if (removed) log(`  removed ${removed} keys left by an earlier run`);
    // a level-1 role for the back-office user that lists (the snapshot RoleManager would write)
    await redis.set(
      KEYS.roles,
      JSON.stringify({
        version: 1,
        roles: [{ id: 'bench-super', name: 'bench-super', level: 1, permissions: {}, status: 'active' }],
      }),
    );
    const pmToken = new TokenService(JWT_SECRET).sign(
      { sub: 'bench-admin', identity: 'program_management_user', roles: ['bench-super'] },
      6 * 3600,
    );
    const PM = { authorization: `Bearer ${pmToken}` };

    const env = { PROJECT_ID, REDIS_URL: redisUrl, JWT_SECRET, LOG_LEVEL: 'warn', DATA_DIR: dataDir };
    const port = await findFreePort();
    log(`built the service (npm run build) in ${fmt(buildService(), 1)} s`);
    service = startNodeChild('service', 'dist/runtime/main.js', {
      ...env,
      PORT: String(port),
      ROLES: 'api,worker,projector',
    });
    const BASE = `http://127.0.0.1:${port}`;
    await waitReady(service, `${BASE}/ready`);
    log(`service ready: pid ${service.pid} ${stamp()}`);

    // --- the example program ------------------------------------------------------
    const seedRun = startNodeChild(
      'seed',
      'dist/runtime/cli.js',
      env,
      [],
      ['seed', path.join(ROOT, 'examples/seed.json')],
    );
    await seedRun.exited;
    if (seedRun.exitCode() !== 0) throw new Error(`seed failed (exit ${seedRun.exitCode()}):\n${seedRun.tail()}`);
    const seedOut = seedRun.tail();
    const seedCounts = (JSON.parse(seedOut.slice(seedOut.indexOf('{'))) as { counts: Record<string, number> }).counts;
    log(`seeded examples/seed.json through the CLI: ${JSON.stringify(seedCounts)} ${stamp()}`);
    // the members the seed created (the service may not list them yet)
    const membersBefore =
      (JSON.parse(fs.readFileSync(path.join(ROOT, 'examples/seed.json'), 'utf8')) as { members?: unknown[] }).members
        ?.length ?? 0;

    // --- 1. the sheet ---------------------------------------------------------------
    const file = path.join(workDir, `members-${ROWS}.csv`);
    const g0 = performance.now();
    const written = await writeSheet(file, ROWS);
    const genSeconds = (performance.now() - g0) / 1000;
    await checkSheet(file, ROWS);
    log(
      `\n== member sheet: ${ROWS} rows (${written.dependants} dependants, ${ROWS - written.dependants} members, each with a membership), ${fmt(written.bytes / 1e6, 1)} MB, written in ${fmt(genSeconds, 1)} s (streamed) ${stamp()}`,
    );
    log(`   ${MEMBER_COLUMNS.length} columns (spec 2.9); the first rows:`);
    for (const line of fs.readFileSync(file, 'utf8').slice(0, 4096).split('\n').slice(1, 5)) log(`   ${line}`);

    const importArgs = (errors: string, extra: string[]) => [
      'import',
      'members',
      file,
      '--mapping',
      MAPPING,
      '--errors',
      errors,
      '--concurrency',
      String(CONCURRENCY),
      ...extra,
    ];
    const errorsOf = (phase: string) => path.join(workDir, `${phase}.errors.csv`);
    const runs: Record<string, CliRun> = {};
    const phase = async (name: string, extra: string[], nodeArgs: string[] = []) => {
      log(`\n== ${name} ${stamp()}`);
      const heapArgs = MAX_OLD_SPACE ? [`--max-old-space-size=${MAX_OLD_SPACE}`] : [];
      const run = await runCli(name, env, importArgs(errorsOf(name), extra), service!.pid, [...heapArgs, ...nodeArgs]);
      runs[name] = run;
      log(`  ${describeRun(name, run, ROWS)}`);
      if (run.summary.failed)
        log(`  !! ${run.summary.failed} rows refused; the error file begins:\n${errorHead(errorsOf(name))}`);
      else if (run.exitCode !== 0) log(`  !! exit ${run.exitCode}:\n${run.output.slice(-2000)}`);
      return run;
    };

    // --- 2. dry run, 3. import, 4. re-import ------------------------------------------
    const dry = await phase('dry-run', ['--dry-run']);
    const imported = await phase('import', [], profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []);
    const reimported = await phase('re-import', []);
    const unchangedAll = reimported.summary.unchanged === ROWS;
    if (!unchangedAll)
      log(`  !! the re-import found ${ROWS - reimported.summary.unchanged} of ${ROWS} rows not unchanged`);
    const createdAll = imported.summary.created === ROWS;
    if (!createdAll)
      log(
        `  !! the import created ${imported.summary.created} of ${ROWS} rows (a dry run's count: ${dry.summary.created})`,
      );

    // --- 5. the service lists them ----------------------------------------------------------
    const want = membersBefore + ROWS;
    const p0 = performance.now();
    let listed = 0;
    for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
      if (!service.alive()) throw new Error(`the service exited:\n${service.tail()}`);
      listed = await listedTotal(BASE, PM).catch(() => listed);
      if (listed >= want || performance.now() - p0 > PROJECTION_TIMEOUT_MS) break;
      await sleep(wait);
    }
    const listedAfter = (performance.now() - p0) / 1000;
    if (listed < want) log(`  !! the service lists ${listed} members, not ${want}, after ${fmt(listedAfter, 1)} s`);
    log(
      `\n== the service lists ${listed} members (${membersBefore} seeded + ${ROWS} imported wanted), ${fmt(listedAfter, 1)} s after the re-import ended ${stamp()}`,
    );

    // --- where the import's CPU went ----------------------------------------------------------
    let profileFile: string | undefined;
    if (profDir) {
      profileFile = fs
        .readdirSync(profDir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => path.join(profDir, f))[0];
      if (profileFile) {
        log(`\n== the import's CPU profile (${profileFile})`);
        const prof = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as CpuProfile;
        for (const line of describeProfile(summariseProfile(prof), 25)) log(`  ${line}`);
      }
    }

    const figures = {
      import_rows_per_s: Math.round(ROWS / imported.seconds),
      dry_run_seconds: round1(dry.seconds),
      reimport_rows_per_s: Math.round(ROWS / reimported.seconds),
      failed: dry.summary.failed + imported.summary.failed + reimported.summary.failed,
      rss_mb: round1(Math.max(dry.hwmMb, imported.hwmMb, reimported.hwmMb)),
      rows: ROWS,
    };
    const targetsMet = {
      import_rows_per_s: figures.import_rows_per_s >= TARGETS.import_rows_per_s,
      dry_run_seconds: figures.dry_run_seconds <= TARGETS.dry_run_seconds,
      failed: figures.failed === 0,
    };
    log('\n== summary');
    log(
      `  ${targetsMet.import_rows_per_s ? 'ok  ' : 'MISS'} import_rows_per_s    ${String(figures.import_rows_per_s).padStart(8)}   target >= ${TARGETS.import_rows_per_s}`,
    );
    log(
      `  ${targetsMet.dry_run_seconds ? 'ok  ' : 'MISS'} dry_run_seconds      ${String(figures.dry_run_seconds).padStart(8)}   target <= ${TARGETS.dry_run_seconds}`,
    );
    log(
      `  ${targetsMet.failed ? 'ok  ' : 'MISS'} failed               ${String(figures.failed).padStart(8)}   must be 0`,
    );
    log(`       reimport_rows_per_s  ${String(figures.reimport_rows_per_s).padStart(8)}`);
    log(
      `       rss_mb               ${String(figures.rss_mb).padStart(8)}   (peak of the importing process, highest of the three runs)`,
    );
    if (KEEP) log(`sheet and error files kept in ${workDir}`);
    const phaseFigures = (run: CliRun) => ({
      seconds: round1(run.seconds),
      own_seconds: run.summary.seconds,
      rows_per_s: Math.round(ROWS / run.seconds),
      created: run.summary.created,
      updated: run.summary.updated,
      unchanged: run.summary.unchanged,
      failed: run.summary.failed,
      rss_mb: round1(run.hwmMb),
      cpu_s: round1(run.cpu),
      service_cpu_s: round1(run.serviceCpu),
      redis_cpu_s: round1(run.redisCpu),
      exit_code: run.exitCode,
    });
    return {
      ...figures,
      quick: QUICK,
      targets_met: targetsMet,
      targets: TARGETS,
      all_created: createdAll,
      all_unchanged_on_reimport: unchangedAll,
      listed_members: listed,
      all_listed: listed >= want,
      listed_after_s: round1(listedAfter),
      dependants: written.dependants,
      member_payment: MEMBER_PAYMENT,
      concurrency: CONCURRENCY,
      ...(MAX_OLD_SPACE ? { max_old_space_mb: MAX_OLD_SPACE } : {}),
      generate_seconds: round1(genSeconds),
      sheet_mb: round1(written.bytes / 1e6),
      phases: { dry_run: phaseFigures(dry), import: phaseFigures(imported), reimport: phaseFigures(reimported) },
      ...(profileFile ? { cpu_profile: profileFile } : {}),
      cpus: os.cpus().length,
      elapsed_bench_s: round1((performance.now() - t0) / 1000),
    };
  } finally {
    await service?.stop();
    await redis?.quit().catch(() => undefined);
    await tracked.redis?.stop();
    log(`elapsed ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }
}

if (require.main === module) runBench(main);
