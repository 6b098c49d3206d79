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
import { call as httpCall, cannon, deleteKeys, fmt, log, percentile, rotating, round1, round3, sleep, stamp, tempDirs, tracked } from './support';
import {
  backlogFigures,
  boundedLoop,
  CLOCK_TICKS,
  continueAll,
  createCounters,
  drainBacklogs,
  enqueueQueuedAdds,
  envBacklogStart,
  envInt,
  envNumber,
  envWorkerCounts,
  exactness,
  ids,
  processCpuSeconds,
  type Proc,
  readCounts,
  recheckBacklogs,
  redisCpuSeconds,
  RuntimeFleet,
  runScaleBench,
  sumOf,
} from './scale-support';

// ---------------------------------------------------------------------------
// settings
// ---------------------------------------------------------------------------

const S = {
  seconds: envNumber('SCALE_SECONDS', 5, 0.5),
  warmSeconds: envNumber('SCALE_WARM_SECONDS', 2, 0),
  connections: envInt('SCALE_CONNECTIONS', 48),
  instances: envInt('SCALE_INSTANCES', 200),
  hot: envInt('SCALE_HOT', 4),
  queuedInstances: envInt('SCALE_QUEUED_INSTANCES', 300),
  queuedJobs: envInt('SCALE_QUEUED_JOBS', 3000),
  queuedConcurrency: envInt('SCALE_QUEUED_CONCURRENCY', 32),
  queuedTimeoutS: envNumber('SCALE_QUEUED_TIMEOUT_S', 180),
  backlogInstances: envInt('SCALE_BACKLOG_INSTANCES', 20),
  backlogJobs: envInt('SCALE_BACKLOG_JOBS', 150),
  backlogWorkers: envWorkerCounts('SCALE_BACKLOG_WORKERS', '1,2,4'),
  backlogStart: envBacklogStart('SCALE_BACKLOG_START'),
};

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
// runtime processes: bench/scale-support.ts's RuntimeFleet, made once Redis is up
// ---------------------------------------------------------------------------

let fleet: RuntimeFleet;

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
  const before = check ? await readCounts(fleet, apis, list) : undefined;
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
    const after = await readCounts(fleet, apis, list);
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
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rt-scale-'));
  tempDirs.add(runDir);
  let redisUrl: string;
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
    fleet = new RuntimeFleet({ projectId: PROJECT_ID, redisUrl, runDir, apiKey: API_KEY, jwtSecret: JWT_SECRET });

    // --- topology a ---------------------------------------------------------
    let t = performance.now();
    await Promise.all([fleet.start('api'), fleet.start('worker'), fleet.start('projector')]);
    log(`\n${stamp()} topology a: ${fleet.topology()} ready in ${fmt((performance.now() - t) / 1000, 1)} s (${fleet.procs.map((p) => `${p.name} pid ${p.child.pid}`).join(', ')})`);
    const many = ids('w-', S.instances);
    const hot = ids('hot-', S.hot);
    const hot1 = ['hot1-0'];
    const queuedIds = ids('q-', S.queuedInstances);
    t = performance.now();
    await createCounters(fleet, fleet.byRole('api'), [...many, ...hot, ...hot1, ...queuedIds]);
    log(`  created ${many.length + hot.length + 1 + queuedIds.length} Counter instances in ${fmt((performance.now() - t) / 1000, 1)} s`);

    const measureAll = async (tag: string) => {
      const apis = fleet.byRole('api');
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
    await Promise.all([fleet.startMany('api', B_APIS - 1), fleet.startMany('worker', B_WORKERS - 1)]);
    log(`\n${stamp()} topology b: ${fleet.topology()} ready in ${fmt((performance.now() - t) / 1000, 1)} s`);
    log(`== ${stamp()} inline WRITEs, topology b (the same connections split over ${B_APIS} api ports)`);
    const b = await measureAll('three api');

    // --- queued exactness -----------------------------------------------------
    log(`\n== ${stamp()} queued exactness: ${S.queuedJobs} queuedAdd {by:1} on ${S.queuedInstances} instances through ${fleet.byRole('api').length} api ports, ${S.queuedConcurrency} in flight; ${fleet.topology()}`);
    t = performance.now();
    const q = await enqueueQueuedAdds(fleet, fleet.byRole('api'), queuedIds, S.queuedJobs, S.queuedConcurrency);
    const enqueueS = q.seconds;
    log(`  enqueued: ${q.jobIds.length} acknowledged (202), ${q.refused} not, in ${fmt(enqueueS, 1)} s (${fmt(q.jobIds.length / enqueueS)} /s)${q.firstRefusal ? `; first refusal: ${q.firstRefusal}` : ''}`);
    const jobs = await waitJobs(fleet.byRole('api'), q.jobIds, Date.now() + S.queuedTimeoutS * 1000);
    const queuedS = (performance.now() - t) / 1000;
    log(`  job states: ${JSON.stringify(jobs.states)}${jobs.unfinished ? `, ${jobs.unfinished} unfinished at the ${S.queuedTimeoutS} s deadline` : ''} after ${fmt(queuedS, 1)} s${jobs.firstFailure ? `; first not completed: ${jobs.firstFailure}` : ''}`);
    const qCounts = await readCounts(fleet, fleet.byRole('api'), queuedIds);
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
    const backlogRuns = await drainBacklogs(fleet, redis, {
      instances: S.backlogInstances,
      jobsPerInstance: S.backlogJobs,
      workers: S.backlogWorkers,
      start: S.backlogStart,
      concurrency: S.queuedConcurrency,
      timeoutS: S.queuedTimeoutS,
    });
    const bl = backlogFigures(backlogRuns);
    const backlog = bl.rates;
    summary.queued_backlog_jobs_per_s = backlog.workers_2 ?? null;
    summary.backlog = backlog;
    // "more workers never make it slower", within 10 % for the machine's noise
    summary.backlog_more_workers_not_slower = bl.moreWorkersNotSlower;
    summary.backlog_detail = bl.detail;

    // --- topology a again ---------------------------------------------------
    for (const p of fleet.byRole('api').slice(1)) await fleet.stop(p);
    await fleet.setWorkers(1);
    log(`\n== ${stamp()} inline WRITEs, topology a again (${fleet.topology()}): how far the machine drifted`);
    const a2 = await writeLoad(redis, fleet.byRole('api'), many, S.seconds);
    log(describeWrites(`one api (again): ${S.instances} instances`, figures([a2])));

    // --- final exactness: jobs applied after they were counted show now ------
    await sleep(1000);
    const apis = fleet.byRole('api');
    const qFinal = exactness(q.acked, await readCounts(fleet, apis, queuedIds));
    const { lost: blLost, doubled: blDoubled } = await recheckBacklogs(fleet, backlogRuns);
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

    const allLogs = fleet.logs();
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
    await fleet?.stopAll();
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
