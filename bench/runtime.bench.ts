/**
 * Runtime benchmark: `npm run bench` (full) or `npm run bench -- --quick`.
 *
 * One run, one Redis (embedded redis-server without persistence, or REDIS_URL),
 * three child processes:
 *   - the runtime (`node --import tsx runtime/main.ts`, example classes, LOG_LEVEL=warn)
 *   - bench/baseline-server.ts   bare express 5 + ioredis (GET, GET+SET)
 *   - bench/bare-bullmq-worker.ts bare BullMQ Queue + no-op Worker behind express
 * Load comes from autocannon in this process. Runtime and baseline are measured
 * in alternating slices with identical autocannon settings; the server
 * process's CPU time per request is reported next to req/s.
 *
 * Last, with those three stopped, the QUEUED_WRITE backlog drain: runtime
 * processes of their own project (1 api, 1 projector, and 1, 2, 4 worker
 * processes in turn, ROLES=<role> as bench/scale.bench.ts starts them, its
 * code in bench/scale-support.ts), a backlog of 20 Counter instances × 150
 * queuedAdd jobs enqueued while the workers are paused (SIGSTOP), timed from
 * their SIGCONT until every counter shows its acknowledged jobs.
 *
 * Human-readable figures go to stdout; the LAST stdout line is one JSON object
 * (see bench/README.md for its keys).
 *
 * Flags:
 *   --quick     short run (< 60 s): 4 s per side per comparison, fewer instances and jobs
 *   --diag      adds: /health and STATIC vs READ; QUEUED_WRITE worker drain alone (queue
 *               paused while enqueuing); WRITE again after the memory step (more documents)
 *   --cpu-prof  run the runtime under `node --cpu-prof`; the .cpuprofile path is printed
 *
 * Environment (the backlog step; bench/README.md):
 *   BENCH_BACKLOG_INSTANCES=20     Counter instances per backlog
 *   BENCH_BACKLOG_JOBS=150         queuedAdd jobs per instance
 *   BENCH_BACKLOG_WORKERS=1,2,4    worker process counts, in this order (empty: no backlog step)
 *   BENCH_BACKLOG_START=resume     resume: workers started first, paused while enqueuing, timed from SIGCONT;
 *                                  spawn: workers spawned after the enqueue, start-up included in the time
 *   BENCH_BACKLOG_CONCURRENCY=32   enqueue requests in flight
 *   BENCH_BACKLOG_TIMEOUT_S=180    deadline for each backlog to be applied
 *   WORKER_CONCURRENCY             of the backlog's worker processes (default 16, as the runtime above)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { findFreePort } from '../runtime/redis/embedded-redis';
import {
  benchKeys,
  benchRedisUrl,
  call as httpCall,
  cannon as runCannon,
  type CannonOpts,
  type Child,
  cpuSeconds,
  type RequestSpec,
  dataMemory,
  deleteKeys,
  describe,
  fmt,
  log,
  mainDict,
  type Measured,
  mean,
  memoryUsage,
  projectKeyPatterns,
  rotating,
  round1,
  round3,
  runBench,
  sleep,
  stamp,
  startNodeChild,
  summarise,
  tempDirs,
  tracked,
  vmStatus,
  waitReady,
} from './support';
import {
  backlogFigures,
  type BacklogRun,
  type BacklogSettings,
  drainBacklogs,
  envBacklogStart,
  envInt,
  envNumber,
  envWorkerCounts,
  recheckBacklogs,
  RuntimeFleet,
} from './scale-support';

// ---------------------------------------------------------------------------
// settings
// ---------------------------------------------------------------------------

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const DIAG = argv.includes('--diag');
const CPU_PROF = argv.includes('--cpu-prof');

const S = QUICK
  ? {
      slices: 4,
      sliceSeconds: 1,
      readWarmSeconds: 1.5,
      writeWarmSeconds: 1,
      hotSeconds: 4,
      rounds: 1,
      instances: 1000,
      memInstances: 1000,
      queuedJobs: 1500,
      queuedWarmJobs: 100,
      hotWarm: 400,
    }
  : {
      slices: 5,
      sliceSeconds: 3,
      readWarmSeconds: 3,
      writeWarmSeconds: 3,
      hotSeconds: 15,
      rounds: 2,
      instances: 1000,
      memInstances: 10000,
      queuedJobs: 10000,
      queuedWarmJobs: 1000,
      hotWarm: 2000,
    };
/** seconds of load per side in each runtime/baseline comparison */
const MEASURE_SECONDS = S.slices * S.sliceSeconds;
const CONNECTIONS = 50;
const HOT_CONNECTIONS = 50;
const CREATE_CONCURRENCY = 50;
const WORKER_CONCURRENCY = 16;
const PROJECT_ID = 'bench';
const API_KEY = 'bench-integration-key-0123456789abcdef';
const JWT_SECRET = 'bench-jwt-secret-0123456789-0123456789-0123456789';
const BASE_PREFIX = 'bench:base:';
const BARE_QUEUE = 'bare-bench';
/** the runtime's key names (REDIS_BUCKETS buckets, 1 unless set): instances, outbox, and per bucket its QUEUED_WRITE queue */
const KEYS = benchKeys(PROJECT_ID);
/**
 * A BullMQ queue as (prefix, name): the runtime's QUEUED_WRITE queues, one per
 * bucket (prefix the bucket's hash tag `rt:{<project>:<b>}`, name `jobs`:
 * runtime/queue/job-queue.ts), and the bare worker's one (default prefix).
 */
interface QueueRef {
  prefix: string;
  name: string;
}
const RT_QUEUES: QueueRef[] = KEYS.all.map((b) => ({ prefix: b.queuePrefix, name: 'jobs' }));
const BARE_QUEUES: QueueRef[] = [{ prefix: 'bull', name: BARE_QUEUE }];
const QUEUE_DRAIN_TIMEOUT_MS = 180_000;
/** the backlog step's own project: its processes and keys apart from the runtime above (whose worker would drain it) */
const BACKLOG_PROJECT_ID = 'bench-backlog';
const BACKLOG: BacklogSettings = {
  instances: envInt('BENCH_BACKLOG_INSTANCES', 20),
  jobsPerInstance: envInt('BENCH_BACKLOG_JOBS', 150),
  workers: envWorkerCounts('BENCH_BACKLOG_WORKERS', '1,2,4'),
  start: envBacklogStart('BENCH_BACKLOG_START'),
  concurrency: envInt('BENCH_BACKLOG_CONCURRENCY', 32),
  timeoutS: envNumber('BENCH_BACKLOG_TIMEOUT_S', 180),
};

const TARGETS = {
  read_ratio: 0.85,
  write_ratio: 0.7,
  hot_write_per_s: 1500,
  queued_ratio: 0.8,
  rss_mb: 300,
  redis_bytes_per_instance: 512,
  queued_backlog_jobs_per_s: 1000,
};

const AUTH = { 'x-api-key': API_KEY };

/** what this benchmark reads of a Counter's READ answer */
interface CounterState {
  count?: number;
}

/** HTTP call with this benchmark's API key */
function call(base: string, method: 'GET' | 'POST', pathname: string, body?: unknown, headers = AUTH) {
  return httpCall(base, method, pathname, body, headers);
}

/** autocannon with this benchmark's connections, slice length and API key */
function cannon(o: CannonOpts): Promise<Measured> {
  return runCannon({ connections: CONNECTIONS, seconds: S.sliceSeconds, ...o, headers: { ...AUTH, ...o.headers } });
}

/**
 * Warm both up, then measure them in alternating slices (A B B A A B ...), so
 * load that other processes put on the machine falls on both about equally.
 * Each side's figure is over all its slices: total 2xx / total time, exact
 * latency percentiles, total CPU / total 2xx.
 */
async function compare(
  title: string,
  warmSeconds: number,
  runtime: (seconds: number) => Promise<Measured>,
  baseline: (seconds: number) => Promise<Measured>,
): Promise<{ runtime: Measured; baseline: Measured; ratio: number; cpuRatio: number }> {
  log(`\n== ${title} ${stamp()}`);
  await runtime(warmSeconds);
  await baseline(warmSeconds);
  const rt: Measured[] = [];
  const base: Measured[] = [];
  for (let slice = 0; slice < S.slices; slice++) {
    const order = slice % 2 === 0 ? (['rt', 'base'] as const) : (['base', 'rt'] as const);
    for (const which of order) {
      if (which === 'rt') rt.push(await runtime(S.sliceSeconds));
      else base.push(await baseline(S.sliceSeconds));
    }
  }
  log(
    `  slices (${S.slices} × ${S.sliceSeconds} s each, alternating) req/s: runtime ${rt.map((m) => fmt(m.rps)).join(' ')} | baseline ${base.map((m) => fmt(m.rps)).join(' ')}`,
  );
  const r = summarise(rt[0].label, rt);
  const b = summarise(base[0].label, base);
  const ratio = r.rps / b.rps;
  const cpuRatio = b.cpuUsPerReq / r.cpuUsPerReq;
  log(`  ${describe(r)}`);
  log(`  ${describe(b)}`);
  log(`  ratio runtime/baseline = ${fmt(ratio, 3)} by req/s;  ${fmt(cpuRatio, 3)} by server CPU per request`);
  return { runtime: r, baseline: b, ratio, cpuRatio };
}

/** INIT Counter instances over HTTP, CREATE_CONCURRENCY in flight. */
async function createInstances(base: string, ids: string[], body: unknown = {}): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  let failed = 0;
  let firstError = '';
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const r = await call(base, 'POST', `/${PROJECT_ID}/CALL/Counter/init/${id}`, body, AUTH);
      if (r.status !== 200 && r.status !== 201) {
        failed++;
        firstError ||= `${r.status} ${JSON.stringify(r.body)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, ids.length) }, worker));
  if (failed) throw new Error(`${failed} of ${ids.length} INIT calls failed; first: ${firstError}`);
  return ids.length / ((performance.now() - t0) / 1000);
}

function ids(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${i}`);
}

function deleteBenchKeys(redis: Redis): Promise<number> {
  return deleteKeys(redis, [
    ...projectKeyPatterns(PROJECT_ID),
    `bull:${BARE_QUEUE}:*`,
    `${BASE_PREFIX}*`,
    ...projectKeyPatterns(BACKLOG_PROJECT_ID),
  ]);
}

// ---------------------------------------------------------------------------
// the benchmark
// ---------------------------------------------------------------------------

async function main(): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  log(
    `runtime benchmark (${QUICK ? 'quick' : 'full'}): ${os.cpus().length} CPUs, node ${process.version}, ${MEASURE_SECONDS} s per side per comparison (${S.slices} alternating slices of ${S.sliceSeconds} s), ${CONNECTIONS} connections`,
  );
  const loadStart = os.loadavg();
  log(`load average at start: ${loadStart.map((l) => fmt(l, 2)).join(', ')}`);

  let redis: Redis | undefined;
  const started: Child[] = [];
  let fleet: RuntimeFleet | undefined;
  const profDir = CPU_PROF ? fs.mkdtempSync(path.join(os.tmpdir(), 'rt-bench-prof-')) : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rt-bench-data-'));
  tempDirs.add(dataDir);
  try {
    const redisUrl = await benchRedisUrl();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    const removed = await deleteBenchKeys(redis);
    if (removed) log(`  removed ${removed} keys left by an earlier benchmark run`);

    // --- children ---------------------------------------------------------
    const [rtPort, basePort, barePort] = [await findFreePort(), await findFreePort(), await findFreePort()];
    const runtime = startNodeChild(
      'runtime',
      'runtime/main.ts',
      {
        PORT: String(rtPort),
        PROJECT_ID,
        REDIS_URL: redisUrl,
        JWT_SECRET,
        INTEGRATION_API_KEYS: API_KEY,
        CLASS_DIRS: 'examples/classes',
        SCHEMA_DIRS: 'examples/schemas',
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
        ROLES: 'api,worker,projector',
      },
      profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
    );
    started.push(runtime);
    const baseline = startNodeChild('baseline-server', 'bench/baseline-server.ts', {
      PORT: String(basePort),
      REDIS_URL: redisUrl,
      BASE_PREFIX,
    });
    started.push(baseline);
    const bare = startNodeChild('bare-bullmq-worker', 'bench/bare-bullmq-worker.ts', {
      PORT: String(barePort),
      REDIS_URL: redisUrl,
      QUEUE_NAME: BARE_QUEUE,
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    });
    started.push(bare);
    const RT = `http://127.0.0.1:${rtPort}`;
    const BASE = `http://127.0.0.1:${basePort}`;
    const BARE = `http://127.0.0.1:${barePort}`;
    await Promise.all([
      waitReady(runtime, `${RT}/ready`),
      waitReady(baseline, `${BASE}/ready`),
      waitReady(bare, `${BARE}/ready`),
    ]);
    log(
      `children ready in ${fmt((performance.now() - t0) / 1000, 1)} s: runtime pid ${runtime.pid}, baseline pid ${baseline.pid}, bare BullMQ pid ${bare.pid}`,
    );

    // --- fixtures -----------------------------------------------------------
    const wIds = ids('w-', S.instances);
    const initRate = await createInstances(RT, [...wIds, 'hot']);
    log(
      `created ${S.instances + 1} Counter instances over HTTP INIT (${fmt(initRate)} INIT/s, ${CREATE_CONCURRENCY} in flight) ${stamp()}`,
    );
    const sample = await call(RT, 'GET', `/${PROJECT_ID}/CALL/Counter/get/w-0`);
    if (sample.status !== 200) throw new Error(`READ of w-0 failed: ${sample.status} ${JSON.stringify(sample.body)}`);
    // baseline keys: the same JSON the runtime's READ returns, so both answer bodies of the same size
    const pipe = redis.pipeline();
    const sampleState = sample.body as Record<string, unknown>;
    for (const id of wIds) pipe.set(BASE_PREFIX + id, JSON.stringify({ ...sampleState, id }));
    await pipe.exec();

    // --- READ ---------------------------------------------------------------
    const read = await compare(
      `READ: GET /${PROJECT_ID}/CALL/Counter/get/<id> vs bare express+ioredis GET (rotating over ${S.instances} ids)`,
      S.readWarmSeconds,
      (seconds) =>
        cannon({
          label: 'runtime READ call',
          url: RT,
          pid: runtime.pid,
          seconds,
          request: rotating(S.instances, 'GET', (i) => `/${PROJECT_ID}/CALL/Counter/get/w-${i}`),
        }),
      (seconds) =>
        cannon({
          label: 'baseline GET',
          url: BASE,
          pid: baseline.pid,
          seconds,
          request: rotating(S.instances, 'GET', (i) => `/read/w-${i}`),
        }),
    );

    let diag: Record<string, number> | undefined;
    if (DIAG) {
      log(`\n== diagnostics: where a READ call's time goes (runtime only, alternating slices) ${stamp()}`);
      const kinds = [
        { label: 'runtime GET /health', request: { method: 'GET', path: '/health' } as RequestSpec },
        {
          label: 'runtime STATIC call (about)',
          request: { method: 'GET', path: `/${PROJECT_ID}/CALL/Counter/about` } as RequestSpec,
        },
        {
          label: 'runtime READ call',
          request: rotating(S.instances, 'GET', (i) => `/${PROJECT_ID}/CALL/Counter/get/w-${i}`),
        },
      ];
      const runs: Measured[][] = kinds.map(() => []);
      for (let slice = 0; slice < S.slices; slice++) {
        for (let k = 0; k < kinds.length; k++) {
          const j = slice % 2 === 0 ? k : kinds.length - 1 - k;
          runs[j].push(await cannon({ label: kinds[j].label, url: RT, pid: runtime.pid, request: kinds[j].request }));
        }
      }
      const [health, stat, readAgain] = runs.map((ms, k) => summarise(kinds[k].label, ms));
      for (const m of [health, stat, readAgain]) log(`  ${describe(m)}`);
      log(
        `  baseline GET (from above)      ${fmt(read.baseline.rps).padStart(6)} req/s   cpu ${fmt(read.baseline.cpuUsPerReq)} µs/req`,
      );
      diag = {
        health_per_s: health.rps,
        health_cpu_us_per_req: health.cpuUsPerReq,
        static_per_s: stat.rps,
        static_cpu_us_per_req: stat.cpuUsPerReq,
        read_per_s: readAgain.rps,
        read_cpu_us_per_req: readAgain.cpuUsPerReq,
      };
    }

    // --- WRITE over many instances -------------------------------------------
    const write = await compare(
      `WRITE: POST /${PROJECT_ID}/CALL/Counter/increment/<id> {} vs bare GET+SET (rotating over ${S.instances} ids)`,
      S.writeWarmSeconds, // the 1001 INITs before went through the same exclusive-call path
      (seconds) =>
        cannon({
          label: 'runtime WRITE call',
          url: RT,
          pid: runtime.pid,
          seconds,
          request: rotating(S.instances, 'POST', (i) => `/${PROJECT_ID}/CALL/Counter/increment/w-${i}`, '{}'),
        }),
      (seconds) =>
        cannon({
          label: 'baseline GET+SET',
          url: BASE,
          pid: baseline.pid,
          seconds,
          request: rotating(S.instances, 'POST', (i) => `/write/w-${i}`, '{}'),
        }),
    );

    // --- WRITE on one hot instance -------------------------------------------
    log(`\n== hot WRITE: ${HOT_CONNECTIONS} connections on one instance ${stamp()}`);
    const hotPath = `/${PROJECT_ID}/CALL/Counter/increment/hot`;
    const hotReq: RequestSpec = { method: 'POST', path: hotPath, body: '{}' };
    const hotWarm = await cannon({
      label: 'hot WRITE warm-up',
      url: RT,
      pid: runtime.pid,
      connections: HOT_CONNECTIONS,
      amount: S.hotWarm,
      request: hotReq,
    });
    // fixed amount (not duration): every request sent is answered before we read the count back
    const hotAmount = Math.max(1000, Math.round((hotWarm.rps * S.hotSeconds) / HOT_CONNECTIONS) * HOT_CONNECTIONS);
    const before = await call(RT, 'GET', `/${PROJECT_ID}/CALL/Counter/get/hot`);
    const hot = await cannon({
      label: 'runtime hot WRITE',
      url: RT,
      pid: runtime.pid,
      connections: HOT_CONNECTIONS,
      amount: hotAmount,
      request: hotReq,
    });
    const after = await call(RT, 'GET', `/${PROJECT_ID}/CALL/Counter/get/hot`);
    const countBefore = (before.body as CounterState | null)?.count;
    const countAfter = (after.body as CounterState | null)?.count;
    const applied = Number(countAfter) - Number(countBefore);
    const lost = hot.ok - applied;
    log(`  ${describe(hot)}`);
    log(`  count ${countBefore} → ${countAfter}: applied ${applied}, 2xx ${hot.ok}, lost updates ${lost}`);

    // --- QUEUED_WRITE ---------------------------------------------------------
    /** jobs in BullMQ's `set` (completed, failed) of every queue of `queues` */
    const setSize = async (queues: QueueRef[], set: 'completed' | 'failed') => {
      const sizes = await Promise.all(queues.map((q) => redis!.zcard(`${q.prefix}:${q.name}:${set}`)));
      return sizes.reduce((a, n) => a + n, 0);
    };
    const queued = async (
      label: string,
      url: string,
      pid: number,
      queues: QueueRef[],
      makePath: (i: number) => string,
      jobs: number,
    ) => {
      const cpu0 = cpuSeconds(pid);
      const doneBefore = await setSize(queues, 'completed');
      const failedBefore = await setSize(queues, 'failed');
      const startedAt = performance.now();
      const enq = await cannon({
        label: `${label} enqueue`,
        url,
        amount: jobs,
        request: rotating(S.instances, 'POST', makePath, '{}'),
      });
      const deadline = Date.now() + QUEUE_DRAIN_TIMEOUT_MS;
      let done: number;
      let failed: number;
      for (;;) {
        const [c, f] = await Promise.all([setSize(queues, 'completed'), setSize(queues, 'failed')]);
        done = c - doneBefore;
        failed = f - failedBefore;
        if (done + failed >= enq.ok) break;
        if (Date.now() > deadline)
          throw new Error(`${label}: only ${done} of ${enq.ok} jobs completed within ${QUEUE_DRAIN_TIMEOUT_MS} ms`);
        await sleep(10);
      }
      const seconds = (performance.now() - startedAt) / 1000;
      const cpuUsPerJob = ((cpuSeconds(pid) - cpu0) * 1e6) / Math.max(1, done);
      return { label, enqueue: enq, jobs: enq.ok, completed: done, failed, seconds, perS: done / seconds, cpuUsPerJob };
    };
    type QueuedRun = Awaited<ReturnType<typeof queued>>;
    const rtQueued = (jobs: number) =>
      queued(
        'runtime QUEUED_WRITE',
        RT,
        runtime.pid,
        RT_QUEUES,
        (i) => `/${PROJECT_ID}/CALL/Counter/queuedAdd/w-${i}`,
        jobs,
      );
    const bareQueued = (jobs: number) =>
      queued('bare BullMQ no-op', BARE, bare.pid, BARE_QUEUES, (i) => `/enqueue/w-${i}`, jobs);
    log(
      `\n== QUEUED_WRITE: ${S.queuedJobs} jobs over ${S.instances} instances, worker concurrency ${WORKER_CONCURRENCY} ${stamp()}`,
    );
    log('  both enqueued the same way: autocannon POSTs over HTTP (50 connections, one job per request, 202 + jobId),');
    log(
      '  runtime: POST /bench/CALL/Counter/queuedAdd/<id> → per-instance FIFO + BullMQ job, run by the runtime worker;',
    );
    log('  bare:    POST /enqueue/<id> → Queue.add (same job options) in an express process with a no-op Worker;');
    log(
      "  timed from the first enqueue until BullMQ's completed sets (the runtime's: one per bucket) hold every accepted job.",
    );
    const sumBefore = await sumCounts(redis, wIds);
    await rtQueued(S.queuedWarmJobs);
    await bareQueued(S.queuedWarmJobs);
    const rtRuns: QueuedRun[] = [];
    const bareRuns: QueuedRun[] = [];
    for (let round = 0; round < S.rounds; round++) {
      const order = round % 2 === 0 ? (['rt', 'bare'] as const) : (['bare', 'rt'] as const);
      for (const which of order) {
        const q = which === 'rt' ? await rtQueued(S.queuedJobs) : await bareQueued(S.queuedJobs);
        (which === 'rt' ? rtRuns : bareRuns).push(q);
        log(
          `  ${q.label.padEnd(22)} ${fmt(q.perS).padStart(6)} jobs/s completed (${q.completed}/${q.jobs} in ${fmt(q.seconds, 2)} s, failed ${q.failed}, cpu ${fmt(q.cpuUsPerJob)} µs/job);` +
            ` enqueue ${fmt(q.enqueue.rps)} req/s p50 ${fmt(q.enqueue.p50, 1)} ms p99 ${fmt(q.enqueue.p99, 1)} ms${q.enqueue.non2xx || q.enqueue.errors ? ` !! non2xx=${q.enqueue.non2xx} errors=${q.enqueue.errors}` : ''}`,
        );
      }
    }
    const sumAfter = await sumCounts(redis, wIds);
    const rtJobs = [...rtRuns].reduce((a, q) => a + q.completed, 0) + S.queuedWarmJobs;
    const rtQueuedPerS = mean(rtRuns.map((q) => q.perS));
    const bareQueuedPerS = mean(bareRuns.map((q) => q.perS));
    const queuedRatio = rtQueuedPerS / bareQueuedPerS;
    const queuedCpuRatio = mean(bareRuns.map((q) => q.cpuUsPerJob)) / mean(rtRuns.map((q) => q.cpuUsPerJob));
    log(
      `  ratio runtime/bare = ${fmt(queuedRatio, 3)} jobs/s;  ${fmt(queuedCpuRatio, 3)} by process CPU per job; counters rose by ${sumAfter - sumBefore} for ${rtJobs} completed runtime jobs`,
    );

    if (diag) {
      // the worker side alone: enqueue with the queue paused, then time resume → all completed
      log(
        `\n== diagnostics: worker drain only (BullMQ queue paused while ${S.queuedJobs} jobs are enqueued over HTTP, then resumed) ${stamp()}`,
      );
      const drain = async (
        label: string,
        url: string,
        pid: number,
        queueRefs: QueueRef[],
        makePath: (i: number) => string,
      ) => {
        const conn = new Redis(redisUrl, { maxRetriesPerRequest: null });
        const qs = queueRefs.map((r) => new Queue(r.name, { connection: conn, prefix: r.prefix }));
        try {
          await Promise.all(qs.map((q) => q.pause()));
          const doneBefore = await setSize(queueRefs, 'completed');
          const enq = await cannon({
            label,
            url,
            pid,
            amount: S.queuedJobs,
            request: rotating(S.instances, 'POST', makePath, '{}'),
          });
          const cpu0 = cpuSeconds(pid);
          const t = performance.now();
          await Promise.all(qs.map((q) => q.resume()));
          const deadline = Date.now() + QUEUE_DRAIN_TIMEOUT_MS;
          while ((await setSize(queueRefs, 'completed')) - doneBefore < enq.ok) {
            if (Date.now() > deadline)
              throw new Error(`${label}: drain did not finish within ${QUEUE_DRAIN_TIMEOUT_MS} ms`);
            await sleep(10);
          }
          const seconds = (performance.now() - t) / 1000;
          const perS = enq.ok / seconds;
          const cpuUs = ((cpuSeconds(pid) - cpu0) * 1e6) / enq.ok;
          log(
            `  ${label.padEnd(22)} ${fmt(perS).padStart(6)} jobs/s drained (${enq.ok} in ${fmt(seconds, 2)} s, cpu ${fmt(cpuUs)} µs/job); enqueue alone ${fmt(enq.rps)} req/s, cpu ${fmt(enq.cpuUsPerReq)} µs/req`,
          );
          return { perS, cpuUs, enqueuePerS: enq.rps, enqueueCpuUs: enq.cpuUsPerReq };
        } finally {
          await Promise.all(qs.map((q) => q.close()));
          conn.disconnect();
        }
      };
      const rtDrain = await drain(
        'runtime QUEUED_WRITE',
        RT,
        runtime.pid,
        RT_QUEUES,
        (i) => `/${PROJECT_ID}/CALL/Counter/queuedAdd/w-${i}`,
      );
      const bareDrain = await drain('bare BullMQ no-op', BARE, bare.pid, BARE_QUEUES, (i) => `/enqueue/w-${i}`);
      log(
        `  drain ratio runtime/bare = ${fmt(rtDrain.perS / bareDrain.perS, 3)}; enqueue ratio = ${fmt(rtDrain.enqueuePerS / bareDrain.enqueuePerS, 3)}`,
      );
      diag.queued_drain_per_s = rtDrain.perS;
      diag.queued_drain_cpu_us_per_job = rtDrain.cpuUs;
      diag.queued_enqueue_only_per_s = rtDrain.enqueuePerS;
      diag.queued_enqueue_only_cpu_us_per_req = rtDrain.enqueueCpuUs;
      diag.bare_drain_per_s = bareDrain.perS;
      diag.bare_drain_cpu_us_per_job = bareDrain.cpuUs;
      diag.bare_enqueue_only_per_s = bareDrain.enqueuePerS;
      diag.bare_enqueue_only_cpu_us_per_req = bareDrain.enqueueCpuUs;
    }

    // --- Redis memory per instance ----------------------------------------
    log(
      `\n== Redis memory per instance (${S.memInstances} instances${QUICK ? ', quick mode; the full run uses 10000' : ''}) ${stamp()}`,
    );
    // every bucket's outbox stream (one with REDIS_BUCKETS unset)
    const outboxUsage = async () => {
      let sum = 0;
      for (const b of KEYS.all) sum += await memoryUsage(redis!, b.outbox);
      return sum;
    };
    const memBefore = await dataMemory(redis);
    const outboxBefore = await outboxUsage();
    const dictBefore = await mainDict(redis);
    const memIds = ids('m-', S.memInstances);
    const memInitRate = await createInstances(RT, memIds);
    // let the projector catch up and client buffers shrink: wait until memory stops moving
    let memAfter = await dataMemory(redis);
    for (let i = 0; i < 20; i++) {
      await sleep(250);
      const now = await dataMemory(redis);
      const settled = Math.abs(now - memAfter) < 4096;
      memAfter = now;
      if (settled) break;
    }
    const outboxAfter = await outboxUsage();
    const dictAfter = await mainDict(redis);
    const stateJson = (await redis.hget(KEYS.instance('Counter', memIds[0]), 's')) ?? '';
    const stateBytes = Buffer.byteLength(stateJson);
    const memDelta = memAfter - memBefore;
    const outboxDelta = outboxAfter - outboxBefore;
    // The keyspace hash table doubles its bucket array as keys grow; a doubling that happens to fall
    // in this window would be charged to these N keys alone. So take the table out of the delta and
    // charge each key its average share of the table as it stands afterwards (entry + bucket share).
    const dictDelta = dictAfter.overhead - dictBefore.overhead;
    const dictPerKey = dictAfter.keys ? dictAfter.overhead / dictAfter.keys : 0;
    const rawPerInstance = (memDelta - outboxDelta) / S.memInstances - stateBytes;
    const bytesPerInstance = (memDelta - outboxDelta - dictDelta) / S.memInstances + dictPerKey - stateBytes;
    // cross-check: MEMORY USAGE of a sample of instance hashes (no lookup keys: INIT {} sets none)
    const sampleIds = memIds.filter((_, i) => i % Math.max(1, Math.floor(S.memInstances / 200)) === 0);
    const leftover = await redis.exists(...sampleIds.map((id) => KEYS.lease('Counter', id)));
    let sampleSum = 0;
    for (const id of sampleIds) sampleSum += await memoryUsage(redis, KEYS.instance('Counter', id));
    const sampleMean = sampleSum / sampleIds.length;
    log(`  INIT rate ${fmt(memInitRate)}/s; state JSON ${JSON.stringify(stateJson)} = ${stateBytes} bytes`);
    log(
      `  used_memory (minus client buffers) +${memDelta} bytes; outbox stream (kept ${'10 min'} by the embedded projector) +${outboxDelta} bytes`,
    );
    log(
      `  keyspace hash table (MEMORY STATS overhead.hashtable.main) +${dictDelta} bytes; now ${dictAfter.overhead} bytes for ${dictAfter.keys} keys = ${fmt(dictPerKey, 1)} bytes/key`,
    );
    log(
      `  => (Δused_memory − Δoutbox − Δtable) / N + table share per key − state = ${fmt(bytesPerInstance, 1)} bytes/instance   [reported]`,
    );
    log(`     (without the table correction: (Δused_memory − Δoutbox) / N − state = ${fmt(rawPerInstance, 1)})`);
    log(
      `  cross-check: MEMORY USAGE of ${sampleIds.length} instance hashes: mean ${fmt(sampleMean, 1)} bytes − state = ${fmt(sampleMean - stateBytes, 1)} (excludes the keyspace dict entry); leftover leases: ${leftover}`,
    );
    log(
      `  outbox alone adds ${fmt(outboxDelta / S.memInstances, 1)} bytes per commit until trimmed (embedded store: MINID 10 min)`,
    );

    if (diag) {
      const docs = S.instances + 1 + S.memInstances;
      log(
        `\n== diagnostics: WRITE again, now with ${docs} Counter documents in the embedded document store (was ${S.instances + 1}) ${stamp()}`,
      );
      const again = await cannon({
        label: 'runtime WRITE call',
        url: RT,
        pid: runtime.pid,
        seconds: MEASURE_SECONDS,
        request: rotating(S.instances, 'POST', (i) => `/${PROJECT_ID}/CALL/Counter/increment/w-${i}`, '{}'),
      });
      log(`  ${describe(again)}`);
      diag.write_per_s = write.runtime.rps;
      diag.write_cpu_us_per_req = write.runtime.cpuUsPerReq;
      diag.write_per_s_after_mem = again.rps;
      diag.write_cpu_us_per_req_after_mem = again.cpuUsPerReq;
      diag.documents_after_mem = docs;
    }

    // --- runtime memory -------------------------------------------------------
    const vm = vmStatus(runtime.pid);
    log(`\n== ${stamp()} runtime process memory: VmRSS ${fmt(vm.rssMb, 1)} MB (peak VmHWM ${fmt(vm.hwmMb, 1)} MB)`);

    if (!runtime.alive() || !baseline.alive() || !bare.alive())
      throw new Error('a child process died during the benchmark');

    // --- QUEUED_WRITE backlog drain by 1, 2, 4 worker processes ---------------
    let backlog: Awaited<ReturnType<typeof queuedBacklog>> | undefined;
    let backlogError = '';
    if (BACKLOG.workers.length) {
      // the figures above are taken: their processes go, so the drain has the machine to itself
      await Promise.all(started.map((c) => c.stop()));
      fleet = new RuntimeFleet({
        projectId: BACKLOG_PROJECT_ID,
        redisUrl,
        runDir: path.join(dataDir, 'backlog'),
        apiKey: API_KEY,
        jwtSecret: JWT_SECRET,
        env: { WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY || String(WORKER_CONCURRENCY) },
        namePrefix: 'backlog-',
      });
      try {
        backlog = await queuedBacklog(fleet, redis);
      } catch (err) {
        backlogError = err instanceof Error ? err.message.split('\n')[0] : String(err);
        log(`  !! backlog step failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      } finally {
        await fleet.stopAll();
      }
    }
    const loadEnd = os.loadavg();

    const figures = {
      read_ratio: round3(read.ratio),
      write_ratio: round3(write.ratio),
      hot_write_per_s: Math.round(hot.rps),
      hot_lost_updates: lost,
      queued_ratio: round3(queuedRatio),
      rss_mb: round1(vm.rssMb),
      redis_bytes_per_instance: round1(bytesPerInstance),
      // 2 workers; null when the step did not run with 2 (BENCH_BACKLOG_WORKERS) or failed
      queued_backlog_jobs_per_s: backlog?.jobsPerS ?? null,
      queued_backlog: backlog?.rates ?? null,
      queued_backlog_more_workers_not_slower: backlog ? backlog.moreWorkersNotSlower : null,
      queued_backlog_lost: backlog ? backlog.lost : null,
      queued_backlog_doubled: backlog ? backlog.doubled : null,
    };
    const targets_met = {
      read_ratio: figures.read_ratio >= TARGETS.read_ratio,
      write_ratio: figures.write_ratio >= TARGETS.write_ratio,
      hot_write_per_s: figures.hot_write_per_s >= TARGETS.hot_write_per_s,
      hot_lost_updates: figures.hot_lost_updates === 0,
      queued_ratio: figures.queued_ratio >= TARGETS.queued_ratio,
      rss_mb: figures.rss_mb <= TARGETS.rss_mb,
      redis_bytes_per_instance: figures.redis_bytes_per_instance <= TARGETS.redis_bytes_per_instance,
      ...(backlog || backlogError
        ? {
            queued_backlog_jobs_per_s: (backlog?.jobsPerS ?? 0) >= TARGETS.queued_backlog_jobs_per_s,
            queued_backlog_exact: !!backlog?.exact,
            queued_backlog_more_workers_not_slower: !!backlog?.moreWorkersNotSlower,
          }
        : {}),
    };
    const summary: Record<string, unknown> = {
      ...figures,
      quick: QUICK,
      targets_met,
      targets: TARGETS,
      runtime: {
        read_per_s: Math.round(read.runtime.rps),
        read_p50_ms: read.runtime.p50,
        read_p99_ms: read.runtime.p99,
        read_cpu_us_per_req: Math.round(read.runtime.cpuUsPerReq),
        write_per_s: Math.round(write.runtime.rps),
        write_p50_ms: write.runtime.p50,
        write_p99_ms: write.runtime.p99,
        write_cpu_us_per_req: Math.round(write.runtime.cpuUsPerReq),
        hot_write_p50_ms: hot.p50,
        hot_write_p99_ms: hot.p99,
        hot_write_requests: hot.ok,
        hot_write_cpu_us_per_req: Math.round(hot.cpuUsPerReq),
        queued_jobs_per_s: Math.round(rtQueuedPerS),
        queued_cpu_us_per_job: Math.round(mean(rtRuns.map((q) => q.cpuUsPerJob))),
        queued_enqueue_per_s: Math.round(mean(rtRuns.map((q) => q.enqueue.rps))),
        rss_peak_mb: round1(vm.hwmMb),
        non2xx:
          read.runtime.non2xx + write.runtime.non2xx + hot.non2xx + rtRuns.reduce((a, q) => a + q.enqueue.non2xx, 0),
        errors:
          read.runtime.errors + write.runtime.errors + hot.errors + rtRuns.reduce((a, q) => a + q.enqueue.errors, 0),
      },
      baseline: {
        read_per_s: Math.round(read.baseline.rps),
        read_p50_ms: read.baseline.p50,
        read_p99_ms: read.baseline.p99,
        read_cpu_us_per_req: Math.round(read.baseline.cpuUsPerReq),
        write_per_s: Math.round(write.baseline.rps),
        write_p50_ms: write.baseline.p50,
        write_p99_ms: write.baseline.p99,
        write_cpu_us_per_req: Math.round(write.baseline.cpuUsPerReq),
        queued_jobs_per_s: Math.round(bareQueuedPerS),
        queued_cpu_us_per_job: Math.round(mean(bareRuns.map((q) => q.cpuUsPerJob))),
        queued_enqueue_per_s: Math.round(mean(bareRuns.map((q) => q.enqueue.rps))),
      },
      cpu_ratios: {
        note: 'baseline CPU µs per request / runtime CPU µs per request, from /proc/<pid>/stat of each server process',
        read: round3(read.cpuRatio),
        write: round3(write.cpuRatio),
        queued: round3(queuedCpuRatio),
      },
      redis_memory: {
        method:
          '(Δused_memory − Δmem_clients − Δoutbox MEMORY USAGE − Δoverhead.hashtable.main) / N + overhead.hashtable.main / dbsize − state JSON bytes',
        uncorrected_for_hashtable: round1(rawPerInstance),
        hashtable_bytes_per_key: round1(dictPerKey),
        instances: S.memInstances,
        state_json_bytes: stateBytes,
        used_memory_delta: memDelta,
        outbox_delta: outboxDelta,
        memory_usage_sample_mean_minus_state: round1(sampleMean - stateBytes),
      },
      queued_enqueue: 'both over HTTP via autocannon POST (50 connections), one job per request',
      ...(backlog ? { queued_backlog_detail: backlog.detail } : {}),
      ...(backlogError ? { queued_backlog_error: backlogError } : {}),
      load_avg: { start: loadStart.map(round1), end: loadEnd.map(round1) },
      settings: {
        seconds_per_side: MEASURE_SECONDS,
        slices: S.slices,
        queued_rounds: S.rounds,
        connections: CONNECTIONS,
        hot_connections: HOT_CONNECTIONS,
        instances: S.instances,
        queued_jobs: S.queuedJobs,
        worker_concurrency: WORKER_CONCURRENCY,
        cpus: os.cpus().length,
        backlog: { ...BACKLOG, workers: BACKLOG.workers.join(','), project: BACKLOG_PROJECT_ID },
      },
      ...(diag ? { diag: Object.fromEntries(Object.entries(diag).map(([k, v]) => [k, Math.round(v)])) } : {}),
      elapsed_s: 0,
    };

    // --- summary ---------------------------------------------------------------
    log(`\n== summary ${stamp()}`);
    const row = (name: string, value: string, target: string, ok: boolean) =>
      log(`  ${ok ? 'ok  ' : 'MISS'} ${name.padEnd(26)} ${value.padStart(10)}   target ${target}`);
    row('read_ratio', fmt(figures.read_ratio, 3), `>= ${TARGETS.read_ratio}`, targets_met.read_ratio);
    row('write_ratio', fmt(figures.write_ratio, 3), `>= ${TARGETS.write_ratio}`, targets_met.write_ratio);
    row(
      'hot_write_per_s',
      String(figures.hot_write_per_s),
      `>= ${TARGETS.hot_write_per_s}`,
      targets_met.hot_write_per_s,
    );
    row('hot_lost_updates', String(figures.hot_lost_updates), '== 0', targets_met.hot_lost_updates);
    row('queued_ratio', fmt(figures.queued_ratio, 3), `>= ${TARGETS.queued_ratio}`, targets_met.queued_ratio);
    row('rss_mb', fmt(figures.rss_mb, 1), `<= ${TARGETS.rss_mb}`, targets_met.rss_mb);
    row(
      'redis_bytes_per_instance',
      fmt(figures.redis_bytes_per_instance, 1),
      `<= ${TARGETS.redis_bytes_per_instance}`,
      targets_met.redis_bytes_per_instance,
    );
    if (backlog || backlogError) {
      const rates = backlog
        ? BACKLOG.workers.map((w) => `${w}: ${backlog.rates[`workers_${w}`]}`).join(', ')
        : backlogError;
      row(
        'queued_backlog_jobs_per_s',
        String(figures.queued_backlog_jobs_per_s),
        `>= ${TARGETS.queued_backlog_jobs_per_s} (2 workers)`,
        !!targets_met.queued_backlog_jobs_per_s,
      );
      row(
        'queued_backlog_exact',
        backlog ? `${backlog.lost}/${backlog.doubled}` : '-',
        'lost/doubled 0/0',
        !!targets_met.queued_backlog_exact,
      );
      row(
        '  more workers not slower',
        String(figures.queued_backlog_more_workers_not_slower),
        `true (±10 %; jobs/s by workers ${rates})`,
        !!targets_met.queued_backlog_more_workers_not_slower,
      );
    }
    log(
      `  load average (1, 5, 15 min): start ${loadStart.map((l) => fmt(l, 2)).join(', ')}; end ${loadEnd.map((l) => fmt(l, 2)).join(', ')}`,
    );
    return summary;
  } finally {
    await fleet?.stopAll();
    await Promise.all(started.map((c) => c.stop()));
    redis?.disconnect();
    await tracked.redis?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (profDir) {
      const profiles = fs.readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'));
      log(
        `cpu profile(s) of the runtime: ${profiles.map((f) => path.join(profDir, f)).join(', ') || `none written in ${profDir}`}`,
      );
    }
    log(`elapsed ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }
}

/**
 * The QUEUED_WRITE backlog drain (bench/scale-support.ts's drainBacklogs, as
 * bench:scale runs it): an api and a projector process of the backlog's
 * project, then for each worker count a backlog enqueued while the workers are
 * paused and timed until applied; the counters read again 1 s after the last.
 */
async function queuedBacklog(fleet: RuntimeFleet, redis: Redis) {
  const b = BACKLOG;
  log(
    `\n== QUEUED_WRITE backlog drain: ${b.instances} instances × ${b.jobsPerInstance} queuedAdd {by:1} enqueued while no worker runs, ` +
      `then drained by ${b.workers.join(', ')} worker processes (${b.start}) ${stamp()}`,
  );
  const t = performance.now();
  await Promise.all([fleet.start('api'), fleet.start('projector')]);
  log(
    `  ${fleet.topology()} ready in ${fmt((performance.now() - t) / 1000, 1)} s; project ${BACKLOG_PROJECT_ID}, worker concurrency ${process.env.WORKER_CONCURRENCY || WORKER_CONCURRENCY}`,
  );
  const runs: BacklogRun[] = await drainBacklogs(fleet, redis, b);
  await sleep(1000);
  const { lost, doubled } = await recheckBacklogs(fleet, runs);
  const f = backlogFigures(runs);
  const exact = lost === 0 && doubled === 0 && runs.every((r) => r.drained && r.lost === 0 && r.doubled === 0);
  const logs = fleet.logs();
  const warn = logs.reduce((a, l) => a + l.log.warn, 0);
  const error = logs.reduce((a, l) => a + l.log.error, 0);
  log(
    `  jobs/s by workers: ${runs.map((r) => `${r.workers}: ${fmt(r.perS)}`).join(', ')}; re-checked 1 s later: lost ${lost}, doubled ${doubled}` +
      `${exact ? '' : '   !! NOT EXACT'}; more workers not slower (10 %): ${f.moreWorkersNotSlower}`,
  );
  if (warn || error) {
    log(`  backlog processes logged ${warn} warn, ${error} error lines:`);
    for (const l of logs) for (const sample of l.log.samples) log(`    ${sample}`);
  }
  return {
    jobsPerS: f.rates.workers_2 ?? null,
    rates: f.rates,
    detail: { ...f.detail, log_lines: { warn, error } },
    moreWorkersNotSlower: f.moreWorkersNotSlower,
    lost,
    doubled,
    exact,
  };
}

async function sumCounts(redis: Redis, instanceIds: string[]): Promise<number> {
  const pipe = redis.pipeline();
  for (const id of instanceIds) pipe.hget(KEYS.instance('Counter', id), 's');
  const res = (await pipe.exec()) ?? [];
  let sum = 0;
  for (const [err, s] of res) {
    if (err || typeof s !== 'string') continue;
    sum += Number((JSON.parse(s) as { public?: { count?: number } }).public?.count ?? 0);
  }
  return sum;
}

runBench(main);
