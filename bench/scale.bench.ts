/**
 * Scale-out benchmark: `npm run bench:scale` (tsx bench/scale.bench.ts).
 *
 * How the runtime scales across processes on one Redis. One run, one Redis
 * (an embedded redis-server with appendonly yes / appendfsync everysec, as
 * production runs, or REDIS_URL), real runtime processes
 * (`node --import tsx runtime/main.ts`, example classes, one role each):
 *
 *   topology a: 1 api + 1 worker + 1 projector
 *   topology b: 3 api + 2 workers + 1 projector (a plus 2 api and 1 worker)
 *
 * Steps (bench/README.md, "Scale-out benchmark", says what each figure is):
 *   1. inline WRITEs (Counter increment) over keep-alive HTTP (autocannon, the
 *      connections split over the api ports) on many instances, on a few hot
 *      ones and on one: writes/s, p50/p99/max, the split per api process, and
 *   2. CPU per write: api processes (/proc/<pid>/stat) and Redis (INFO cpu);
 *      a, then b, then a again at the end (so drift of the machine shows);
 *   3. queued exactness: queuedAdd {by:1} on many instances through every api
 *      port, until every job's /<project>/JOBS/<jobId> is completed or failed;
 *      acknowledged (202) vs applied (the counters): lost, doubled;
 *   4. backlog drain: jobs enqueued while the workers are paused, then timed
 *      from their release until every job is applied, with 1, 2, 4 workers.
 *
 * Human-readable figures go to stdout; the LAST stdout line is one JSON object.
 * Exit code 0 when measured and exact, 2 when a queued job was lost or applied
 * twice or an acknowledged WRITE is missing, 1 when the benchmark could not run.
 *
 * Environment (defaults finish in about 2-4 minutes on 2 shared cores):
 *   REDIS_URL                   use this Redis instead of starting one (only this run's keys are deleted, at the end)
 *   SCALE_SECONDS=5             seconds of load per inline-write measurement
 *   SCALE_WARM_SECONDS=2        warm-up before a topology's first measurement (new processes' first calls are slow)
 *   SCALE_CONNECTIONS=48        HTTP connections in all, split over the api ports
 *   SCALE_INSTANCES=200         instances of the "many" write load
 *   SCALE_HOT=4                 instances of the "hot" write load (the 1-instance load always runs)
 *   SCALE_QUEUED_INSTANCES=300  instances of the queued exactness step
 *   SCALE_QUEUED_JOBS=3000      jobs of the queued exactness step
 *   SCALE_QUEUED_CONCURRENCY=32 enqueue requests in flight (queued and backlog steps)
 *   SCALE_QUEUED_TIMEOUT_S=180  deadline for every job to finish (queued step) / be applied (each backlog)
 *   SCALE_BACKLOG_INSTANCES=20  instances of each backlog
 *   SCALE_BACKLOG_JOBS=150      jobs per instance of each backlog
 *   SCALE_BACKLOG_WORKERS=1,2,4 worker counts to drain a backlog with, in this order (empty: skip)
 *   SCALE_BACKLOG_START=resume  resume: workers are up, paused (SIGSTOP) while enqueuing, timed from SIGCONT;
 *                               spawn: no worker runs while enqueuing, timed from spawning them (start-up included)
 *   WORKER_CONCURRENCY, JOB_LOCK_MS, ...  passed through to the runtime processes
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { startEmbeddedRedis } from '../runtime/redis/embedded-redis';
import {
  call as httpCall,
  cannon,
  type Child,
  deleteKeys,
  fmt,
  log,
  percentile,
  ROOT,
  rotating,
  round1,
  round3,
  sleep,
  stamp,
  startNodeChild,
  tempDirs,
  tracked,
} from './support';
import { boundedLoop, CLOCK_TICKS, continueAll, listeningPorts, processCpuSeconds, redisCpuSeconds, runScaleBench, watchLog, type LogWatch } from './scale-support';

// ---------------------------------------------------------------------------
// settings
// ---------------------------------------------------------------------------

function num(name: string, def: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}, got '${raw}'`);
  return n;
}
function int(name: string, def: number, min = 1): number {
  const n = num(name, def, min);
  if (!Number.isInteger(n)) throw new Error(`${name} must be a whole number, got '${process.env[name]}'`);
  return n;
}

const S = {
  seconds: num('SCALE_SECONDS', 5, 0.5),
  warmSeconds: num('SCALE_WARM_SECONDS', 2, 0),
  connections: int('SCALE_CONNECTIONS', 48),
  instances: int('SCALE_INSTANCES', 200),
  hot: int('SCALE_HOT', 4),
  queuedInstances: int('SCALE_QUEUED_INSTANCES', 300),
  queuedJobs: int('SCALE_QUEUED_JOBS', 3000),
  queuedConcurrency: int('SCALE_QUEUED_CONCURRENCY', 32),
  queuedTimeoutS: num('SCALE_QUEUED_TIMEOUT_S', 180),
  backlogInstances: int('SCALE_BACKLOG_INSTANCES', 20),
  backlogJobs: int('SCALE_BACKLOG_JOBS', 150),
  backlogWorkers: (process.env.SCALE_BACKLOG_WORKERS ?? '1,2,4')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const n = Number(s);
      if (!Number.isInteger(n) || n < 1 || n > 16) throw new Error(`SCALE_BACKLOG_WORKERS: '${s}' is not a worker count from 1 to 16`);
      return n;
    }),
  backlogStart: (process.env.SCALE_BACKLOG_START || 'resume') as 'resume' | 'spawn',
};
if (S.backlogStart !== 'resume' && S.backlogStart !== 'spawn') throw new Error(`SCALE_BACKLOG_START must be resume or spawn, got '${S.backlogStart}'`);

/** topology b; topology a is 1 api + 1 worker + 1 projector */
const B_APIS = 3;
const B_WORKERS = 2;
const PROJECT_ID = `scale-${Date.now().toString(36)}`;
const API_KEY = 'bench-scale-integration-key-0123456789abcdef';
const JWT_SECRET = 'bench-scale-jwt-secret-0123456789-0123456789-0123';
const AUTH = { 'x-api-key': API_KEY };
const READ_CONCURRENCY = 16;

function call(base: string, method: 'GET' | 'POST', pathname: string, body?: unknown) {
  return httpCall(base, method, pathname, body, AUTH);
}

// ---------------------------------------------------------------------------
// runtime processes
// ---------------------------------------------------------------------------

type Role = 'api' | 'worker' | 'projector';
interface Proc {
  name: string;
  role: Role;
  child: Child;
  log: LogWatch;
  /** api only */
  base: string;
}

const procs: Proc[] = [];
const stoppedLogs: { name: string; log: LogWatch }[] = [];
let redisUrl = '';
let runDir = '';
const counters: Record<Role, number> = { api: 0, worker: 0, projector: 0 };

async function startProc(role: Role): Promise<Proc> {
  const name = `${role}${++counters[role]}`;
  const dataDir = path.join(runDir, name);
  fs.mkdirSync(dataDir, { recursive: true });
  const child = startNodeChild(name, 'runtime/main.ts', {
    PROJECT_ID,
    REDIS_URL: redisUrl,
    JWT_SECRET,
    INTEGRATION_API_KEYS: API_KEY,
    CLASS_DIRS: path.join(ROOT, 'examples/classes'),
    SCHEMA_DIRS: path.join(ROOT, 'examples/schemas'),
    DATA_DIR: dataDir,
    ROLES: role,
    PORT: '0',
    // api: warn, since info writes a line per request (CPU the figures would carry); its port is read from /proc.
    // worker and projector serve nothing: info, for the "runtime started" line
    LOG_LEVEL: role === 'api' ? 'warn' : 'info',
  });
  const p: Proc = { name, role, child, log: watchLog(child), base: '' };
  procs.push(p);
  const deadline = Date.now() + 90_000;
  for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
    if (!child.alive()) throw new Error(`${name} exited before it was ready:\n${child.tail()}`);
    if (role === 'api') {
      for (const port of listeningPorts(child.pid)) {
        const r = await call(`http://127.0.0.1:${port}`, 'GET', '/ready').catch(() => undefined);
        if (r?.status === 200) p.base = `http://127.0.0.1:${port}`;
      }
      if (p.base) return p;
    } else if (p.log.started) {
      return p;
    }
    if (Date.now() > deadline) throw new Error(`${name} not ready within 90 s:\n${child.tail()}`);
    await sleep(wait);
  }
}

async function stopProc(p: Proc): Promise<void> {
  try {
    process.kill(p.child.pid, 'SIGCONT');
  } catch {
    /* gone */
  }
  await p.child.stop();
  procs.splice(procs.indexOf(p), 1);
  stoppedLogs.push({ name: p.name, log: p.log });
  if (p.child.exitCode() !== 0 && p.child.exitCode() !== null) log(`  !! ${p.name} exited with code ${p.child.exitCode()}`);
}

const byRole = (role: Role) => procs.filter((p) => p.role === role);

async function startMany(role: Role, n: number): Promise<Proc[]> {
  return Promise.all(Array.from({ length: n }, () => startProc(role)));
}

async function setWorkers(n: number): Promise<void> {
  const ws = byRole('worker');
  for (const w of ws.slice(n).reverse()) await stopProc(w);
  if (ws.length < n) await startMany('worker', n - ws.length);
}

function topology(): string {
  const n = (r: Role) => byRole(r).length;
  return `${n('api')} api + ${n('worker')} worker + ${n('projector')} projector`;
}

// ---------------------------------------------------------------------------
// instances and counters
// ---------------------------------------------------------------------------

function ids(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${i}`);
}

async function createInstances(apis: Proc[], list: string[]): Promise<void> {
  let failed = 0;
  let first = '';
  await boundedLoop(list.length, 32, async (i) => {
    const r = await call(apis[i % apis.length].base, 'POST', `/${PROJECT_ID}/CALL/Counter/init/${list[i]}`, {});
    if (r.status !== 200 && r.status !== 201) {
      failed++;
      first ||= `${r.status} ${JSON.stringify(r.body)}`;
    }
  });
  if (failed) throw new Error(`${failed} of ${list.length} INIT calls failed; first: ${first}`);
}

/** Each instance's count (READ Counter.get), read through the given api processes in turn. */
async function readCounts(apis: Proc[], list: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await boundedLoop(list.length, READ_CONCURRENCY, async (i) => {
    const r = await call(apis[i % apis.length].base, 'GET', `/${PROJECT_ID}/CALL/Counter/get/${list[i]}`);
    if (r.status !== 200 || typeof r.body?.count !== 'number') throw new Error(`READ ${list[i]}: ${r.status} ${JSON.stringify(r.body)}`);
    out.set(list[i], r.body.count);
  });
  return out;
}

const sumOf = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

// ---------------------------------------------------------------------------
// inline writes
// ---------------------------------------------------------------------------

interface WriteRun {
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
  latencies: number[];
  perApi: { name: string; ok: number; latencies: number[] }[];
  apiCpu: number;
  redisCpu: number;
  /** acknowledged writes the counters do not show */
  lost: number;
}

function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, k) => Math.floor(total / parts) + (k < total % parts ? 1 : 0));
}

/**
 * WRITE (Counter.increment) load on `list`, connections split over the api
 * processes; every api rotates over all of `list` from its own offset, so an
 * instance is written through every process.
 */
async function writeLoad(redis: Redis, apis: Proc[], list: string[], seconds: number, check = true): Promise<WriteRun> {
  const before = check ? await readCounts(apis, list) : undefined;
  const conns = split(S.connections, apis.length);
  const cpu0 = apis.map((p) => processCpuSeconds(p.child.pid));
  const r0 = await redisCpuSeconds(redis);
  const runs = await Promise.all(
    apis.map((p, k) => {
      const offset = Math.floor((k * list.length) / apis.length);
      return cannon({
        label: p.name,
        url: p.base,
        connections: conns[k],
        seconds,
        headers: AUTH,
        request: rotating(list.length, 'POST', (i) => `/${PROJECT_ID}/CALL/Counter/increment/${list[(i + offset) % list.length]}`, '{}'),
      });
    }),
  );
  const apiCpu = apis.reduce((a, p, k) => a + (processCpuSeconds(p.child.pid) - cpu0[k]), 0);
  const redisCpu = (await redisCpuSeconds(redis)) - r0;
  const ok = runs.reduce((a, m) => a + m.ok, 0);
  let lost = 0;
  if (before) {
    await sleep(500); // writes in flight when autocannon stopped: applied, not counted as answered
    const after = await readCounts(apis, list);
    lost = Math.max(0, ok - (sumOf(after) - sumOf(before)));
  }
  return {
    ok,
    non2xx: runs.reduce((a, m) => a + m.non2xx, 0),
    errors: runs.reduce((a, m) => a + m.errors, 0),
    seconds: Math.max(...runs.map((m) => m.seconds)),
    latencies: runs.flatMap((m) => m.latencies),
    perApi: runs.map((m, k) => ({ name: apis[k].name, ok: m.ok, latencies: m.latencies })),
    apiCpu,
    redisCpu,
    lost,
  };
}

interface WriteFigures {
  writes_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  cpu_ms_per_write_api: number;
  cpu_ms_per_write_redis: number;
  writes: number;
  non2xx: number;
  errors: number;
  lost: number;
  /** per api process: its share of the writes, and the p99 and max latency of its answers (a starved process shows here) */
  per_api: Record<string, { share: number; p99_ms: number; max_ms: number }>;
  /** writes/s of each run pooled into this figure (topology a: the first and the last) */
  runs_per_s?: number[];
}

function figures(runs: WriteRun[]): WriteFigures {
  const ok = runs.reduce((a, r) => a + r.ok, 0);
  const seconds = runs.reduce((a, r) => a + r.seconds, 0);
  const sorted = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const byApi = new Map<string, { ok: number; latencies: number[] }>();
  for (const r of runs) {
    for (const p of r.perApi) {
      const e = byApi.get(p.name) ?? { ok: 0, latencies: [] };
      e.ok += p.ok;
      for (const l of p.latencies) e.latencies.push(l);
      byApi.set(p.name, e);
    }
  }
  const perApi: WriteFigures['per_api'] = {};
  for (const [name, e] of byApi) {
    const own = e.latencies.sort((a, b) => a - b);
    perApi[name] = { share: round3(e.ok / Math.max(1, ok)), p99_ms: round1(percentile(own, 99)), max_ms: round1(own.length ? own[own.length - 1] : NaN) };
  }
  const f: WriteFigures = {
    writes_per_s: Math.round(ok / seconds),
    p50_ms: round1(percentile(sorted, 50)),
    p99_ms: round1(percentile(sorted, 99)),
    max_ms: round1(sorted.length ? sorted[sorted.length - 1] : NaN),
    cpu_ms_per_write_api: round3((runs.reduce((a, r) => a + r.apiCpu, 0) * 1000) / Math.max(1, ok)),
    cpu_ms_per_write_redis: round3((runs.reduce((a, r) => a + r.redisCpu, 0) * 1000) / Math.max(1, ok)),
    writes: ok,
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    lost: runs.reduce((a, r) => a + r.lost, 0),
    per_api: perApi,
  };
  if (runs.length > 1) f.runs_per_s = runs.map((r) => Math.round(r.ok / r.seconds));
  return f;
}

function describeWrites(label: string, f: WriteFigures): string {
  const split = Object.entries(f.per_api)
    .map(([k, v]) => (Object.keys(f.per_api).length > 1 ? `${k} ${fmt(v.share * 100)}% max ${fmt(v.max_ms)} ms` : k))
    .join(', ');
  const bad = f.non2xx || f.errors || f.lost ? `   !! non2xx ${f.non2xx}, errors ${f.errors}, lost ${f.lost}` : '';
  return (
    `  ${label.padEnd(26)} ${fmt(f.writes_per_s).padStart(6)} writes/s   p50 ${fmt(f.p50_ms, 1).padStart(5)}   p99 ${fmt(f.p99_ms, 1).padStart(6)}   max ${fmt(f.max_ms, 1).padStart(6)} ms` +
    `   CPU/write api ${fmt(f.cpu_ms_per_write_api, 3)} ms, redis ${fmt(f.cpu_ms_per_write_redis, 3)} ms   [${split}]${bad}`
  );
}

// ---------------------------------------------------------------------------
// queued writes
// ---------------------------------------------------------------------------

interface Enqueued {
  acked: Map<string, number>;
  jobIds: string[];
  /** job id → instance */
  instanceOf: Map<string, string>;
  refused: number;
  firstRefusal: string;
  seconds: number;
}

/**
 * `total` queuedAdd {by:1} calls, `concurrency` in flight; job j goes to
 * instance j mod n, and an instance's successive jobs through successive api
 * processes (so its FIFO spans processes).
 */
async function enqueue(apis: Proc[], list: string[], total: number): Promise<Enqueued> {
  const acked = new Map<string, number>(list.map((id) => [id, 0]));
  const jobIds: string[] = [];
  const instanceOf = new Map<string, string>();
  let refused = 0;
  let firstRefusal = '';
  const t0 = performance.now();
  await boundedLoop(total, S.queuedConcurrency, async (j) => {
    const id = list[j % list.length];
    const api = apis[Math.floor(j / list.length) % apis.length];
    try {
      const r = await call(api.base, 'POST', `/${PROJECT_ID}/CALL/Counter/queuedAdd/${id}`, { by: 1 });
      if (r.status === 202 && typeof r.body?.jobId === 'string') {
        acked.set(id, acked.get(id)! + 1);
        jobIds.push(r.body.jobId);
        instanceOf.set(r.body.jobId, id);
      } else {
        refused++;
        firstRefusal ||= `${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
      }
    } catch (err) {
      refused++;
      firstRefusal ||= `request failed: ${(err as Error).message}`;
    }
  });
  return { acked, jobIds, instanceOf, refused, firstRefusal, seconds: (performance.now() - t0) / 1000 };
}

/** Polls /JOBS/<id> until each job is completed or failed (or unknown), or the deadline passes. */
async function waitJobs(
  apis: Proc[],
  jobIds: string[],
  deadline: number,
): Promise<{ states: Record<string, number>; unfinished: number; firstFailure: string; notCompleted: string[] }> {
  const states: Record<string, number> = {};
  const notCompleted: string[] = [];
  let firstFailure = '';
  let pending = [...jobIds];
  let n = 0;
  while (pending.length && Date.now() < deadline) {
    // a batch at a time, oldest first: once a batch holds an unfinished job, wait before the next look
    const batch = pending.slice(0, 64);
    const still: string[] = [];
    await boundedLoop(batch.length, READ_CONCURRENCY, async (i) => {
      const jobId = batch[i];
      const r = await call(apis[n++ % apis.length].base, 'GET', `/${PROJECT_ID}/JOBS/${encodeURIComponent(jobId)}`).catch(() => undefined);
      const status = r?.status === 200 ? String(r.body?.status) : r && r.status >= 400 && r.status < 500 ? 'unknown' : 'unreadable';
      if (status === 'completed' || status === 'failed' || status === 'unknown') {
        states[status] = (states[status] ?? 0) + 1;
        if (status !== 'completed') {
          notCompleted.push(jobId);
          firstFailure ||= `${jobId}: ${r!.status} ${JSON.stringify(r!.body).slice(0, 300)}`;
        }
      } else {
        still.push(jobId);
      }
    });
    pending = [...still, ...pending.slice(batch.length)];
    if (still.length) await sleep(250);
  }
  return { states, unfinished: pending.length, firstFailure, notCompleted };
}

function exactness(acked: Map<string, number>, counts: Map<string, number>): { acknowledged: number; applied: number; lost: number; doubled: number } {
  let acknowledged = 0;
  let applied = 0;
  let lost = 0;
  let doubled = 0;
  for (const [id, a] of acked) {
    const c = counts.get(id) ?? 0;
    acknowledged += a;
    applied += c;
    if (c < a) lost += a - c;
    if (c > a) doubled += c - a;
  }
  return { acknowledged, applied, lost, doubled };
}

const pause = (ps: Proc[], sig: 'SIGSTOP' | 'SIGCONT') => {
  for (const p of ps) process.kill(p.child.pid, sig);
};

// ---------------------------------------------------------------------------
// the benchmark
// ---------------------------------------------------------------------------

const summary: Record<string, unknown> = { bench: 'scale' };

async function main(): Promise<number> {
  log(
    `scale-out benchmark: ${os.cpus().length} CPUs, node ${process.version}, project ${PROJECT_ID}; ${S.seconds} s per write load, ${S.connections} connections in all, ` +
      `${S.instances} / ${S.hot} / 1 instances; queued ${S.queuedJobs} jobs on ${S.queuedInstances}; backlog ${S.backlogInstances} × ${S.backlogJobs} with ${S.backlogWorkers.join(', ') || 'no'} workers (${S.backlogStart}); CLK_TCK ${CLOCK_TICKS}`,
  );
  summary.settings = { ...S, backlogWorkers: S.backlogWorkers.join(',') };
  let redis: Redis | undefined;
  runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rt-scale-'));
  tempDirs.add(runDir);
  let code = 0;
  try {
    if (process.env.REDIS_URL) {
      redisUrl = process.env.REDIS_URL;
      log(`redis: REDIS_URL ${redisUrl.replace(/\/\/[^@]*@/, '//***@')} (this run's keys, *${PROJECT_ID}*, are deleted at the end)`);
    } else {
      tracked.redis = await startEmbeddedRedis({ dataDir: path.join(runDir, 'redis'), appendOnly: true, appendfsync: 'everysec' });
      redisUrl = tracked.redis.url;
      log(`redis: embedded redis-server pid ${tracked.redis.pid} on ${tracked.redis.url} (appendonly yes, appendfsync everysec)`);
    }
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });

    // --- topology a ---------------------------------------------------------
    let t = performance.now();
    await Promise.all([startProc('api'), startProc('worker'), startProc('projector')]);
    log(`\n${stamp()} topology a: ${topology()} ready in ${fmt((performance.now() - t) / 1000, 1)} s (${procs.map((p) => `${p.name} pid ${p.child.pid}`).join(', ')})`);
    const many = ids('w-', S.instances);
    const hot = ids('hot-', S.hot);
    const hot1 = ['hot1-0'];
    const queuedIds = ids('q-', S.queuedInstances);
    t = performance.now();
    await createInstances(byRole('api'), [...many, ...hot, ...hot1, ...queuedIds]);
    log(`  created ${many.length + hot.length + 1 + queuedIds.length} Counter instances in ${fmt((performance.now() - t) / 1000, 1)} s`);

    const measureAll = async (tag: string) => {
      const apis = byRole('api');
      if (S.warmSeconds > 0) await writeLoad(redis!, apis, many, S.warmSeconds, false);
      const m = await writeLoad(redis!, apis, many, S.seconds);
      log(describeWrites(`${tag}: ${S.instances} instances`, figures([m])));
      const h = await writeLoad(redis!, apis, hot, S.seconds);
      log(describeWrites(`${tag}: ${S.hot} hot`, figures([h])));
      const h1 = await writeLoad(redis!, apis, hot1, S.seconds);
      log(describeWrites(`${tag}: 1 hot`, figures([h1])));
      return { many: m, hot: h, hot1: h1 };
    };

    log(`\n== ${stamp()} inline WRITEs (POST /${PROJECT_ID}/CALL/Counter/increment/<id>), topology a`);
    const a1 = await measureAll('one api');

    // --- topology b ---------------------------------------------------------
    t = performance.now();
    await Promise.all([startMany('api', B_APIS - 1), startMany('worker', B_WORKERS - 1)]);
    log(`\n${stamp()} topology b: ${topology()} ready in ${fmt((performance.now() - t) / 1000, 1)} s`);
    log(`== ${stamp()} inline WRITEs, topology b (the same connections split over ${B_APIS} api ports)`);
    const b = await measureAll('three api');

    // --- queued exactness -----------------------------------------------------
    log(`\n== ${stamp()} queued exactness: ${S.queuedJobs} queuedAdd {by:1} on ${S.queuedInstances} instances through ${byRole('api').length} api ports, ${S.queuedConcurrency} in flight; ${topology()}`);
    t = performance.now();
    const q = await enqueue(byRole('api'), queuedIds, S.queuedJobs);
    const enqueueS = q.seconds;
    log(`  enqueued: ${q.jobIds.length} acknowledged (202), ${q.refused} not, in ${fmt(enqueueS, 1)} s (${fmt(q.jobIds.length / enqueueS)} /s)${q.firstRefusal ? `; first refusal: ${q.firstRefusal}` : ''}`);
    const jobs = await waitJobs(byRole('api'), q.jobIds, Date.now() + S.queuedTimeoutS * 1000);
    const queuedS = (performance.now() - t) / 1000;
    log(`  job states: ${JSON.stringify(jobs.states)}${jobs.unfinished ? `, ${jobs.unfinished} unfinished at the ${S.queuedTimeoutS} s deadline` : ''} after ${fmt(queuedS, 1)} s${jobs.firstFailure ? `; first not completed: ${jobs.firstFailure}` : ''}`);
    const qCounts = await readCounts(byRole('api'), queuedIds);
    const qx = exactness(q.acked, qCounts);
    // a job /JOBS calls failed (or unknown) whose instance shows it applied anyway: its caller was told wrong
    const notCompletedPer = new Map<string, number>();
    for (const j of jobs.notCompleted) notCompletedPer.set(q.instanceOf.get(j)!, (notCompletedPer.get(q.instanceOf.get(j)!) ?? 0) + 1);
    let failedYetApplied = 0;
    for (const [id, f] of notCompletedPer) failedYetApplied += Math.min(f, Math.max(0, qCounts.get(id)! - (q.acked.get(id)! - f)));
    log(
      `  acknowledged ${qx.acknowledged}, applied ${qx.applied}: lost ${qx.lost}, doubled ${qx.doubled}${qx.lost || qx.doubled ? '   !!' : ''}` +
        `${failedYetApplied ? `; !! ${failedYetApplied} reported failed/unknown by /JOBS yet applied` : ''}`,
    );
    const queued = {
      ...qx,
      not_acknowledged: q.refused,
      completed: jobs.states.completed ?? 0,
      failed: jobs.states.failed ?? 0,
      unknown: jobs.states.unknown ?? 0,
      unfinished: jobs.unfinished,
      failed_yet_applied: failedYetApplied,
      enqueue_per_s: Math.round(q.jobIds.length / enqueueS),
      jobs_per_s: Math.round((jobs.states.completed ?? 0) / queuedS),
    };
    summary.queued = queued;

    // --- backlog drain ------------------------------------------------------
    const backlog: Record<string, number> = {};
    const backlogDetail: Record<string, unknown> = {};
    const backlogChecks: { acked: Map<string, number>; ids: string[] }[] = [];
    for (const workers of S.backlogWorkers) {
      const blIds = ids(`bl${workers}-`, S.backlogInstances);
      await createInstances(byRole('api'), blIds);
      if (S.backlogStart === 'resume') {
        await setWorkers(workers);
        pause(byRole('worker'), 'SIGSTOP');
      } else {
        await setWorkers(0);
      }
      log(`\n== ${stamp()} backlog: ${S.backlogInstances} × ${S.backlogJobs} queuedAdd while no worker runs, then ${workers} worker${workers > 1 ? 's' : ''} (${S.backlogStart})`);
      const e = await enqueue(byRole('api'), blIds, S.backlogInstances * S.backlogJobs);
      const acked = sumOf(e.acked);
      log(`  enqueued ${acked} in ${fmt(e.seconds, 1)} s${e.refused ? `, ${e.refused} refused (first: ${e.firstRefusal})` : ''}`);
      const t0 = performance.now();
      if (S.backlogStart === 'resume') pause(byRole('worker'), 'SIGCONT');
      else await setWorkers(workers);
      const startedS = (performance.now() - t0) / 1000;
      const deadline = Date.now() + S.queuedTimeoutS * 1000;
      let counts = new Map<string, number>();
      let drained = false;
      for (;;) {
        counts = await readCounts(byRole('api'), blIds);
        if (blIds.every((id) => counts.get(id)! >= e.acked.get(id)!)) {
          drained = true;
          break;
        }
        if (Date.now() > deadline) break;
        await sleep(100);
      }
      const seconds = (performance.now() - t0) / 1000;
      const x = exactness(e.acked, counts);
      const perS = drained ? Math.round(acked / seconds) : 0;
      backlog[`workers_${workers}`] = perS;
      backlogDetail[`workers_${workers}`] = { seconds: round3(seconds), enqueue_per_s: Math.round(acked / e.seconds), drained, ...x, ...(S.backlogStart === 'spawn' ? { start_s: round3(startedS) } : {}) };
      backlogChecks.push({ acked: e.acked, ids: blIds });
      log(
        `  ${drained ? `applied all ${x.applied} in ${fmt(seconds, 2)} s: ${fmt(perS)} jobs/s` : `!! not drained within ${S.queuedTimeoutS} s: ${x.applied} of ${acked} applied`}` +
          `${x.doubled ? `   !! ${x.doubled} applied twice` : ''}${S.backlogStart === 'spawn' ? ` (worker start-up ${fmt(startedS, 1)} s included)` : ''}`,
      );
    }
    summary.queued_backlog_jobs_per_s = backlog.workers_2 ?? null;
    summary.backlog = backlog;
    const rates = S.backlogWorkers.map((w) => backlog[`workers_${w}`]);
    const sortedByWorkers = [...S.backlogWorkers].map((w, i) => [w, rates[i]] as const).sort((x, y) => x[0] - y[0]);
    // "more workers never make it slower", within 10 % for the machine's noise
    summary.backlog_more_workers_not_slower = sortedByWorkers.every(([, r], i) => i === 0 || r >= 0.9 * sortedByWorkers[i - 1][1]);
    summary.backlog_detail = backlogDetail;

    // --- topology a again ---------------------------------------------------
    for (const p of byRole('api').slice(1)) await stopProc(p);
    await setWorkers(1);
    log(`\n== ${stamp()} inline WRITEs, topology a again (${topology()}): how far the machine drifted`);
    const a2 = await writeLoad(redis, byRole('api'), many, S.seconds);
    log(describeWrites(`one api (again): ${S.instances} instances`, figures([a2])));

    // --- final exactness: jobs applied after they were counted show now ------
    await sleep(1000);
    const apis = byRole('api');
    const qFinal = exactness(q.acked, await readCounts(apis, queuedIds));
    let blLost = 0;
    let blDoubled = 0;
    for (const c of backlogChecks) {
      const x = exactness(c.acked, await readCounts(apis, c.ids));
      blLost += x.lost;
      blDoubled += x.doubled;
    }
    Object.assign(queued, { applied: qFinal.applied, lost: qFinal.lost, doubled: qFinal.doubled });
    summary.backlog_lost = blLost;
    summary.backlog_doubled = blDoubled;

    // --- figures -------------------------------------------------------------
    const oneApi = figures([a1.many, a2]);
    const threeApi = figures([b.many]);
    const ratio = (x: number, y: number) => round3(x / y);
    Object.assign(summary, {
      one_api: oneApi,
      three_api: threeApi,
      hot_one_api: figures([a1.hot]),
      hot_three_api: figures([b.hot]),
      hot1_one_api: figures([a1.hot1]),
      hot1_three_api: figures([b.hot1]),
    });
    const ratios = {
      writes_per_s: ratio(threeApi.writes_per_s, oneApi.writes_per_s),
      hot_writes_per_s: ratio(b.hot.ok / b.hot.seconds, a1.hot.ok / a1.hot.seconds),
      hot1_writes_per_s: ratio(b.hot1.ok / b.hot1.seconds, a1.hot1.ok / a1.hot1.seconds),
      p99_ms: ratio(threeApi.p99_ms, oneApi.p99_ms),
      cpu_ms_per_write_api: ratio(threeApi.cpu_ms_per_write_api, oneApi.cpu_ms_per_write_api),
      cpu_ms_per_write_redis: ratio(threeApi.cpu_ms_per_write_redis, oneApi.cpu_ms_per_write_redis),
    };
    summary.three_vs_one = ratios;

    const allLogs = [...stoppedLogs, ...procs.map((p) => ({ name: p.name, log: p.log }))];
    const logTotals = { warn: 0, error: 0, stderr: 0 };
    for (const l of allLogs) for (const k of ['warn', 'error', 'stderr'] as const) logTotals[k] += l.log[k];
    summary.log_lines = logTotals;
    const inlineLost = [a1.many, a1.hot, a1.hot1, b.many, b.hot, b.hot1, a2].reduce((s, r) => s + r.lost, 0);
    summary.inline_lost = inlineLost;
    const exact = queued.lost === 0 && queued.doubled === 0 && blLost === 0 && blDoubled === 0 && inlineLost === 0;
    summary.exact = exact;

    log(`\n== ${stamp()} summary`);
    log(describeWrites('one api (a, first+last)', oneApi));
    log(describeWrites('three api (b)', threeApi));
    log(
      `  three api ÷ one api: writes/s ${fmt(ratios.writes_per_s, 2)} (${S.hot} hot ${fmt(ratios.hot_writes_per_s, 2)}, 1 hot ${fmt(ratios.hot1_writes_per_s, 2)}), p99 ${fmt(ratios.p99_ms, 2)}, ` +
        `CPU per write api ${fmt(ratios.cpu_ms_per_write_api, 2)}, redis ${fmt(ratios.cpu_ms_per_write_redis, 2)}`,
    );
    log(`  topology a writes/s first ${oneApi.runs_per_s?.[0]}, last ${oneApi.runs_per_s?.[1]} (the machine's drift over the run)`);
    log(`  queued: acknowledged ${queued.acknowledged}, applied ${queued.applied}, lost ${queued.lost}, doubled ${queued.doubled}; ${queued.jobs_per_s} jobs/s end to end`);
    log(`  backlog jobs/s by workers: ${S.backlogWorkers.map((w) => `${w}: ${backlog[`workers_${w}`]}`).join(', ')}; lost ${blLost}, doubled ${blDoubled}; more workers not slower: ${summary.backlog_more_workers_not_slower}`);
    log(`  process logs: ${logTotals.warn} warn, ${logTotals.error} error lines, ${logTotals.stderr} other stderr lines`);
    for (const l of allLogs) for (const s of l.log.samples) log(`    ${s}`);
    if (!exact) {
      log(`  !! NOT EXACT: queued lost ${queued.lost}, doubled ${queued.doubled}; backlog lost ${blLost}, doubled ${blDoubled}; acknowledged WRITEs missing ${inlineLost}`);
      code = 2;
    }
  } finally {
    continueAll();
    await Promise.all(procs.map((p) => p.child.stop()));
    if (redis && process.env.REDIS_URL) {
      const n = await deleteKeys(redis, [`*${PROJECT_ID}*`]).catch(() => 0);
      log(`  deleted ${n} keys of ${PROJECT_ID} from REDIS_URL`);
    }
    redis?.disconnect();
    await tracked.redis?.stop();
  }
  return code;
}

runScaleBench(summary, main);
