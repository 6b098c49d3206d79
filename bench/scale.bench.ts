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
 *      from their release until every job is applied, with 1, 2, 4 workers;
 *   5. cluster column: the many-instance WRITE load (topology a, fresh
 *      processes each) on 1 node (this run's Redis) against a local 3-master
 *      Redis Cluster, then on 3 masters + 3 replicas with commits waiting for
 *      a replica (REDIS_WAIT_REPLICAS=auto: WAIT 1) against not (=0); each
 *      pair at once, in alternating slices; the clusters (appendonly yes, as
 *      the 1 node) are started by the benchmark (test/support/redis-cluster.js)
 *      and stopped.
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
 *   SCALE_CLUSTER=1             0: no cluster column
 *   SCALE_CLUSTER_SECONDS=3     seconds of load per cluster-column configuration
 *   SCALE_CLUSTER_SLICES=2      slices per configuration, alternating within a pair (A B B A ...)
 *   WORKER_CONCURRENCY, JOB_LOCK_MS, REDIS_BUCKETS, ...  passed through to the runtime processes
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { redisBuckets } from '../runtime/config';
import { startEmbeddedRedis } from '../runtime/redis/embedded-redis';
import {
  command as clusterCommand,
  parseClusterNodes,
  startRedisCluster,
  type LocalRedisCluster,
} from '../test/support/redis-cluster';
import {
  call as httpCall,
  cannon,
  deleteKeys,
  fmt,
  log,
  percentile,
  rotating,
  round1,
  round3,
  sleep,
  stamp,
  tempDirs,
  tracked,
} from './support';
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
  extraStops,
  ids,
  type LogWatch,
  processCpuSeconds,
  type Proc,
  readCounts,
  recheckBacklogs,
  RedisProbe,
  type RedisSample,
  RuntimeFleet,
  runScaleBench,
  sampleDelta,
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
  cluster: process.env.SCALE_CLUSTER !== '0',
  clusterSeconds: envNumber('SCALE_CLUSTER_SECONDS', 3, 0.5),
  clusterSlices: envInt('SCALE_CLUSTER_SLICES', 2),
};

/** topology b; topology a is 1 api + 1 worker + 1 projector */
const B_APIS = 3;
const B_WORKERS = 2;
const PROJECT_ID = `scale-${Date.now().toString(36)}`;
const API_KEY = 'bench-scale-integration-key-0123456789abcdef';
const JWT_SECRET = 'bench-scale-jwt-secret-0123456789-0123456789-0123';
const AUTH = { 'x-api-key': API_KEY };
const READ_CONCURRENCY = 16;

/** what the job poll reads of GET /JOBS/<id> */
interface JobAnswer {
  status?: string;
}

function call(base: string, method: 'GET' | 'POST', pathname: string, body?: unknown) {
  return httpCall(base, method, pathname, body, AUTH);
}

// ---------------------------------------------------------------------------
// runtime processes: bench/scale-support.ts's RuntimeFleet, made once Redis is up
// ---------------------------------------------------------------------------

let fleet: RuntimeFleet;

/** A fleet and the Redis servers behind it (their CPU and command counts around a load). */
interface LoadTarget {
  fleet: RuntimeFleet;
  probe: RedisProbe;
}

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
  /** what the Redis servers counted over the load (commands and calls: masters only on a cluster) */
  redis: RedisSample;
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
async function writeLoad(
  target: LoadTarget,
  apis: Proc[],
  list: string[],
  seconds: number,
  check = true,
): Promise<WriteRun> {
  const { fleet } = target;
  const before = check ? await readCounts(fleet, apis, list) : undefined;
  const conns = split(S.connections, apis.length);
  const cpu0 = apis.map((p) => processCpuSeconds(p.child.pid));
  const r0 = await target.probe.sample();
  const runs = await Promise.all(
    apis.map((p, k) => {
      const offset = Math.floor((k * list.length) / apis.length);
      return cannon({
        label: p.name,
        url: p.base,
        connections: conns[k],
        seconds,
        headers: AUTH,
        request: rotating(
          list.length,
          'POST',
          (i) => `/${fleet.projectId}/CALL/Counter/increment/${list[(i + offset) % list.length]}`,
          '{}',
        ),
      });
    }),
  );
  const apiCpu = apis.reduce((a, p, k) => a + (processCpuSeconds(p.child.pid) - cpu0[k]), 0);
  const redisDelta = sampleDelta(r0, await target.probe.sample());
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
    redisCpu: redisDelta.cpu,
    redis: redisDelta,
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
    perApi[name] = {
      share: round3(e.ok / Math.max(1, ok)),
      p99_ms: round1(percentile(own, 99)),
      max_ms: round1(own.length ? own[own.length - 1] : NaN),
    };
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
      const r = await call(
        apis[n++ % apis.length].base,
        'GET',
        `/${PROJECT_ID}/JOBS/${encodeURIComponent(jobId)}`,
      ).catch(() => undefined);
      const status =
        r?.status === 200
          ? String((r.body as JobAnswer | null)?.status)
          : r && r.status >= 400 && r.status < 500
            ? 'unknown'
            : 'unreadable';
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
// cluster column
// ---------------------------------------------------------------------------

/**
 * The clusters' cluster-node-timeout: Redis's default (15 s), not the tests'
 * 1 s, so a node slowed down by this load on a shared machine is not failed over.
 */
const CLUSTER_NODE_TIMEOUT_MS = 15_000;
const CLUSTER_MASTERS = 3;

function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** One configuration's figures in the cluster column (camelCase, as `cluster` in the JSON). */
interface ClusterEntry {
  writesPerSec: number;
  p99Ms: number;
  p50Ms: number;
  maxMs: number;
  cpuMsPerWriteApi: number;
  /** every node's CPU (replicas included) per write */
  cpuMsPerWriteRedis: number;
  /** commands the masters processed per write (the worker's and projector's polls included) */
  redisCommandsPerWrite: number;
  /** WAIT commands per write: about 1 when commits wait for a replica, 0 when not */
  waitPerWrite: number;
  /** error replies of every node over the load, by prefix (MOVED, ASK, TRYAGAIN, CLUSTERDOWN, ...); {} when none */
  redisErrorReplies: Record<string, number>;
  writes: number;
  non2xx: number;
  errors: number;
  lost: number;
  runsPerSec?: number[];
  nodes: number;
  buckets: number;
  waitReplicas: string;
}

function clusterEntry(runs: WriteRun[], setup: Pick<ClusterEntry, 'nodes' | 'buckets' | 'waitReplicas'>): ClusterEntry {
  const f = figures(runs);
  const r = runs
    .map((x) => x.redis)
    .reduce((a, b) => ({
      cpu: a.cpu + b.cpu,
      commands: a.commands + b.commands,
      calls: addCounts(a.calls, b.calls),
      errors: addCounts(a.errors, b.errors),
    }));
  const per = (n: number) => round3(n / Math.max(1, f.writes));
  return {
    writesPerSec: f.writes_per_s,
    p99Ms: f.p99_ms,
    p50Ms: f.p50_ms,
    maxMs: f.max_ms,
    cpuMsPerWriteApi: f.cpu_ms_per_write_api,
    cpuMsPerWriteRedis: f.cpu_ms_per_write_redis,
    redisCommandsPerWrite: per(r.commands),
    waitPerWrite: per(r.calls.wait ?? 0),
    redisErrorReplies: r.errors,
    writes: f.writes,
    non2xx: f.non2xx,
    errors: f.errors,
    lost: f.lost,
    ...(f.runs_per_s ? { runsPerSec: f.runs_per_s } : {}),
    ...setup,
  };
}

function clusterRow(label: string, e: ClusterEntry): string {
  const errs = Object.entries(e.redisErrorReplies)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const bad = e.non2xx || e.errors || e.lost ? `   !! non2xx ${e.non2xx}, errors ${e.errors}, lost ${e.lost}` : '';
  return (
    `  ${label.padEnd(34)} ${fmt(e.writesPerSec).padStart(6)}   ${fmt(e.p50Ms, 1).padStart(6)}   ${fmt(e.p99Ms, 1).padStart(6)}   ${fmt(e.maxMs, 1).padStart(6)}` +
    `   ${fmt(e.cpuMsPerWriteApi, 3).padStart(6)}   ${fmt(e.cpuMsPerWriteRedis, 3).padStart(6)}   ${fmt(e.redisCommandsPerWrite, 1).padStart(5)}   ${fmt(e.waitPerWrite, 2).padStart(5)}   ${errs || '-'}${bad}`
  );
}

const CLUSTER_HEADER = `  ${'Redis'.padEnd(34)} ${'w/s'.padStart(6)}   ${'p50 ms'.padStart(6)}   ${'p99 ms'.padStart(6)}   ${'max ms'.padStart(6)}   ${'api ms'.padStart(6)}   ${'rds ms'.padStart(6)}   ${'cmd/w'.padStart(5)}   ${'WAIT'.padStart(5)}   error replies`;

interface ClusterColumn {
  json: Record<string, unknown>;
  /** the table, printed again in the summary */
  lines: string[];
  /** acknowledged WRITEs missing from their counters, every configuration */
  lost: number;
}

/** What CLUSTER NODES and CLUSTER INFO of a cluster say: a failover changes the masters and raises the epoch. */
interface ClusterView {
  /** ids of the masters serving slots, sorted */
  masters: string;
  /** cluster_current_epoch */
  epoch: number;
  /** nodes some node flags fail or fail? (`<port> fail?`) */
  suspects: string[];
}

async function clusterView(c: LocalRedisCluster): Promise<ClusterView> {
  const suspects = new Set<string>();
  let masters = '';
  let epoch = 0;
  for (const n of c.nodes) {
    const [nodes, info] = await Promise.all([
      clusterCommand(n.port, ['CLUSTER', 'NODES'], 3000),
      clusterCommand(n.port, ['CLUSTER', 'INFO'], 3000),
    ]);
    if (typeof nodes !== 'string' || typeof info !== 'string') {
      suspects.add(`${n.port} not answering`);
      continue;
    }
    const view = parseClusterNodes(nodes);
    for (const r of view) for (const f of ['fail', 'fail?']) if (r.flags.includes(f)) suspects.add(`${r.port} ${f}`);
    masters ||= view
      .filter((r) => r.flags.includes('master') && r.slots.length)
      .map((r) => r.id)
      .sort()
      .join(',');
    epoch = Math.max(epoch, Number(/^cluster_current_epoch:(\d+)/m.exec(info)?.[1] ?? 0));
  }
  return { masters, epoch, suspects: [...suspects] };
}

/** The lines of the cluster's node logs about failure detection and failover (the last `max`). */
function failoverLogLines(c: LocalRedisCluster, max = 12): string[] {
  const out: string[] = [];
  for (const n of c.nodes) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(c.dir, `node-${n.port}.log`), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n'))
      if (/fail|election|promot|marking node|configEpoch/i.test(line)) out.push(`${n.port}: ${line.trim()}`);
  }
  return out.slice(-max);
}

/**
 * The many-instance WRITE load of topology a (1 api + 1 worker + 1 projector,
 * fresh processes and SCALE_INSTANCES new Counter instances each, a warm-up,
 * then SCALE_CLUSTER_SECONDS of load) in two pairs, each pair's two fleets up
 * at once and measured in alternating slices (A B B A ...), so the machine's
 * drift falls on both sides of a ratio alike:
 *   1. 1 node (this run's Redis: embedded with AOF everysec, or REDIS_URL)
 *      against a local 3-master Redis Cluster (appendonly yes, everysec);
 *   2. a 3 masters + 3 replicas cluster, two projects: REDIS_WAIT_REPLICAS=auto
 *      (commits WAIT for 1 replica) against 0.
 * Each cluster is stopped (and its directory removed) once measured.
 */
async function clusterColumn(redis: Redis, redisUrl: string, runDir: string): Promise<ClusterColumn> {
  const list = ids('c-', S.instances);
  const fleets = new Set<RuntimeFleet>();
  const logs: { name: string; log: LogWatch }[] = [];
  const clusters = new Map<LocalRedisCluster, RedisProbe>();
  /** each cluster's entry in extraStops (kept, as the same function has to be deleted from there again) */
  const stops = new Map<LocalRedisCluster, () => Promise<void>>();
  const stopCluster = async (c: LocalRedisCluster) => {
    clusters.get(c)?.close();
    clusters.delete(c);
    extraStops.delete(stops.get(c)!);
    stops.delete(c);
    await c.stop();
  };
  const startCluster = async (replicas: number): Promise<{ cluster: LocalRedisCluster; probe: RedisProbe }> => {
    const t = performance.now();
    const c = await startRedisCluster({
      masters: CLUSTER_MASTERS,
      replicasPerMaster: replicas,
      appendonly: true,
      nodeTimeoutMs: CLUSTER_NODE_TIMEOUT_MS,
      timeoutMs: 60_000,
    });
    const stop = () => c.stop();
    stops.set(c, stop);
    extraStops.add(stop);
    // commands are counted on the masters (what the clients sent; a replica counts what it applies again), CPU on every node
    const probe = RedisProbe.ofNodes(c.nodes, c.nodes.slice(0, CLUSTER_MASTERS));
    clusters.set(c, probe);
    log(
      `  ${CLUSTER_MASTERS} masters${replicas ? ` + ${CLUSTER_MASTERS * replicas} replicas` : ''}: ${c.nodesEnv} up in ${fmt((performance.now() - t) / 1000, 1)} s (appendonly yes, cluster-node-timeout ${CLUSTER_NODE_TIMEOUT_MS} ms)`,
    );
    return { cluster: c, probe };
  };
  const startFleet = async (
    tag: string,
    where: { redisUrl: string } | { clusterNodes: string },
    env: Record<string, string> = {},
  ) => {
    const f = new RuntimeFleet({
      projectId: `${PROJECT_ID}-${tag}`,
      ...where,
      runDir,
      apiKey: API_KEY,
      jwtSecret: JWT_SECRET,
      env,
      namePrefix: `${tag}-`,
    });
    fleets.add(f);
    await Promise.all([f.start('api'), f.start('worker'), f.start('projector')]);
    await createCounters(f, f.byRole('api'), list);
    return f;
  };
  /** both fleets of a pair, started at once */
  const startPair = async (
    specs: [string, { redisUrl: string } | { clusterNodes: string }, Record<string, string>?][],
  ) => {
    const t = performance.now();
    const fs2 = await Promise.all(specs.map(([tag, where, env]) => startFleet(tag, where, env)));
    log(
      `  ${specs.map(([tag]) => tag).join(' and ')}: ${fs2[0].topology()} each ready, ${list.length} Counter instances each created, in ${fmt((performance.now() - t) / 1000, 1)} s`,
    );
    return fs2;
  };
  const stopFleet = async (f: RuntimeFleet) => {
    await f.stopAll();
    logs.push(...f.logs());
    fleets.delete(f);
  };
  /** a warm-up of each target, then S.clusterSlices slices of each, alternating (A B B A ...); S.clusterSeconds per target in all */
  const alternating = async (targets: LoadTarget[]): Promise<WriteRun[][]> => {
    if (S.warmSeconds > 0)
      for (const t of targets) await writeLoad(t, t.fleet.byRole('api'), list, S.warmSeconds, false);
    const runs = targets.map(() => [] as WriteRun[]);
    for (let k = 0; k < S.clusterSlices; k++) {
      const order = targets.map((_, i) => i);
      if (k % 2 === 1) order.reverse();
      for (const i of order)
        runs[i].push(
          await writeLoad(targets[i], targets[i].fleet.byRole('api'), list, S.clusterSeconds / S.clusterSlices),
        );
    }
    return runs;
  };
  const failovers: string[] = [];
  const suspects: string[] = [];
  /** a failover (other masters, a higher epoch) or nodes flagged failing since `before`: printed, with the nodes' log lines about it */
  const checkCluster = async (name: string, c: LocalRedisCluster, before: ClusterView) => {
    const after = await clusterView(c);
    const failedOver = after.masters !== before.masters || after.epoch !== before.epoch;
    if (failedOver)
      failovers.push(
        `${name}: epoch ${before.epoch} -> ${after.epoch}${after.masters !== before.masters ? ', other masters' : ''}`,
      );
    for (const x of after.suspects) suspects.push(`${name}: ${x}`);
    if (failedOver || after.suspects.length) {
      log(
        `  !! ${name}: ${failedOver ? `failover during the load (epoch ${before.epoch} -> ${after.epoch})` : 'no failover'}${after.suspects.length ? `; flagged: ${after.suspects.join(', ')}` : ''}; node logs:`,
      );
      for (const l of failoverLogLines(c)) log(`     ${l}`);
    }
  };

  const singleBuckets = redisBuckets(process.env, false);
  const clusterBuckets = redisBuckets(process.env, true);
  const waitEnv = process.env.REDIS_WAIT_REPLICAS || 'auto';
  const lines: string[] = [CLUSTER_HEADER];
  const rows = (entries: [string, ClusterEntry][]) => {
    log(CLUSTER_HEADER);
    for (const [label, e] of entries) {
      const line = clusterRow(label, e);
      lines.push(line);
      log(line);
    }
  };
  try {
    log(
      `\n== ${stamp()} cluster column: the WRITE load of topology a (${S.instances} instances, ${S.connections} connections, ${S.clusterSeconds} s in ${S.clusterSlices} slices after ${S.warmSeconds} s of warm-up) ` +
        `on 1 node vs ${CLUSTER_MASTERS} masters, then ${CLUSTER_MASTERS} masters + ${CLUSTER_MASTERS} replicas with vs without WAIT; fresh processes, each pair at once in alternating slices`,
    );
    // 1 node vs 3 masters
    const a = await startCluster(0);
    const aBefore = await clusterView(a.cluster);
    const [f1, f3] = await startPair([
      ['c1', { redisUrl }],
      ['c3', { clusterNodes: a.cluster.nodesEnv }],
    ]);
    const [singleRuns, m3Runs] = await alternating([
      { fleet: f1, probe: RedisProbe.ofConnection(redis) },
      { fleet: f3, probe: a.probe },
    ]);
    await Promise.all([stopFleet(f1), stopFleet(f3)]);
    await checkCluster('3 masters', a.cluster, aBefore);
    await stopCluster(a.cluster);
    const single = clusterEntry(singleRuns, { nodes: 1, buckets: singleBuckets, waitReplicas: waitEnv });
    const masters3 = clusterEntry(m3Runs, { nodes: CLUSTER_MASTERS, buckets: clusterBuckets, waitReplicas: waitEnv });
    rows([
      [`1 node (${singleBuckets} bucket${singleBuckets > 1 ? 's' : ''})`, single],
      [`${CLUSTER_MASTERS} masters (${clusterBuckets} buckets)`, masters3],
    ]);

    // 3 masters + 3 replicas: WAIT (auto: 1 replica) vs no WAIT
    const b = await startCluster(1);
    const bBefore = await clusterView(b.cluster);
    const [fw, fn] = await startPair([
      ['c6w', { clusterNodes: b.cluster.nodesEnv }, { REDIS_WAIT_REPLICAS: 'auto' }],
      ['c6n', { clusterNodes: b.cluster.nodesEnv }, { REDIS_WAIT_REPLICAS: '0' }],
    ]);
    const [waitRuns, noWaitRuns] = await alternating([
      { fleet: fw, probe: b.probe },
      { fleet: fn, probe: b.probe },
    ]);
    await Promise.all([stopFleet(fw), stopFleet(fn)]);
    await checkCluster('3 masters + 3 replicas', b.cluster, bBefore);
    await stopCluster(b.cluster);
    const nodes6 = CLUSTER_MASTERS * 2;
    const wait = clusterEntry(waitRuns, { nodes: nodes6, buckets: clusterBuckets, waitReplicas: 'auto' });
    const noWait = clusterEntry(noWaitRuns, { nodes: nodes6, buckets: clusterBuckets, waitReplicas: '0' });
    rows([
      [`${CLUSTER_MASTERS}+${CLUSTER_MASTERS} replicas, WAIT (auto)`, wait],
      [`${CLUSTER_MASTERS}+${CLUSTER_MASTERS} replicas, no WAIT (0)`, noWait],
    ]);

    const ratio = (x: number, y: number) => round3(x / y);
    const waitVsNoWait = {
      writesPerSec: ratio(wait.writesPerSec, noWait.writesPerSec),
      p99Ms: ratio(wait.p99Ms, noWait.p99Ms),
    };
    const masters3VsSingle = {
      writesPerSec: ratio(masters3.writesPerSec, single.writesPerSec),
      p99Ms: ratio(masters3.p99Ms, single.p99Ms),
    };
    const ratios = [
      `  ${CLUSTER_MASTERS} masters ÷ 1 node (at once, alternating slices): writes/s ${fmt(masters3VsSingle.writesPerSec, 2)}, p99 ${fmt(masters3VsSingle.p99Ms, 2)}`,
      `  WAIT ÷ no WAIT (one cluster, at once, alternating slices): writes/s ${fmt(waitVsNoWait.writesPerSec, 2)}, p99 ${fmt(waitVsNoWait.p99Ms, 2)}`,
      ...(failovers.length ? [`  !! failovers: ${failovers.join('; ')}`] : []),
      ...(suspects.length ? [`  !! nodes flagged failing: ${suspects.join('; ')}`] : []),
    ];
    for (const l of ratios) log(l);
    lines.push(...ratios);

    const logLines = { warn: 0, error: 0, stderr: 0 };
    for (const l of logs) for (const k of ['warn', 'error', 'stderr'] as const) logLines[k] += l.log[k];
    if (logLines.warn + logLines.error + logLines.stderr) {
      log(
        `  cluster column's processes: ${logLines.warn} warn, ${logLines.error} error lines, ${logLines.stderr} other stderr lines`,
      );
      for (const l of logs) for (const smp of l.log.samples) log(`    ${smp}`);
    }
    return {
      json: {
        single,
        masters3,
        masters3Replicas: { wait, noWait, waitVsNoWait },
        masters3VsSingle,
        failovers: failovers.length,
        ...(failovers.length ? { failoverDetail: failovers } : {}),
        ...(suspects.length ? { flaggedNodes: suspects } : {}),
        logLines,
        settings: {
          topology: '1 api + 1 worker + 1 projector',
          seconds: S.clusterSeconds,
          slices: S.clusterSlices,
          warmSeconds: S.warmSeconds,
          instances: S.instances,
          connections: S.connections,
          appendonly: true,
          nodeTimeoutMs: CLUSTER_NODE_TIMEOUT_MS,
        },
      },
      lines,
      lost: [single, masters3, wait, noWait].reduce((x, e) => x + e.lost, 0),
    };
  } finally {
    for (const f of [...fleets]) await stopFleet(f).catch(() => undefined);
    for (const c of [...clusters.keys()]) await stopCluster(c).catch(() => undefined);
  }
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
      log(
        `redis: REDIS_URL ${redisUrl.replace(/\/\/[^@]*@/, '//***@')} (this run's keys, *${PROJECT_ID}*, are deleted at the end)`,
      );
    } else {
      tracked.redis = await startEmbeddedRedis({
        dataDir: path.join(runDir, 'redis'),
        appendOnly: true,
        appendfsync: 'everysec',
      });
      redisUrl = tracked.redis.url;
      log(
        `redis: embedded redis-server pid ${tracked.redis.pid} on ${tracked.redis.url} (appendonly yes, appendfsync everysec)`,
      );
    }
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    fleet = new RuntimeFleet({ projectId: PROJECT_ID, redisUrl, runDir, apiKey: API_KEY, jwtSecret: JWT_SECRET });
    const mainTarget: LoadTarget = { fleet, probe: RedisProbe.ofConnection(redis) };

    // --- topology a ---------------------------------------------------------
    let t = performance.now();
    await Promise.all([fleet.start('api'), fleet.start('worker'), fleet.start('projector')]);
    log(
      `\n${stamp()} topology a: ${fleet.topology()} ready in ${fmt((performance.now() - t) / 1000, 1)} s (${fleet.procs.map((p) => `${p.name} pid ${p.child.pid}`).join(', ')})`,
    );
    const many = ids('w-', S.instances);
    const hot = ids('hot-', S.hot);
    const hot1 = ['hot1-0'];
    const queuedIds = ids('q-', S.queuedInstances);
    t = performance.now();
    await createCounters(fleet, fleet.byRole('api'), [...many, ...hot, ...hot1, ...queuedIds]);
    log(
      `  created ${many.length + hot.length + 1 + queuedIds.length} Counter instances in ${fmt((performance.now() - t) / 1000, 1)} s`,
    );

    const measureAll = async (tag: string) => {
      const apis = fleet.byRole('api');
      if (S.warmSeconds > 0) await writeLoad(mainTarget, apis, many, S.warmSeconds, false);
      const m = await writeLoad(mainTarget, apis, many, S.seconds);
      log(describeWrites(`${tag}: ${S.instances} instances`, figures([m])));
      const h = await writeLoad(mainTarget, apis, hot, S.seconds);
      log(describeWrites(`${tag}: ${S.hot} hot`, figures([h])));
      const h1 = await writeLoad(mainTarget, apis, hot1, S.seconds);
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
    log(
      `\n== ${stamp()} queued exactness: ${S.queuedJobs} queuedAdd {by:1} on ${S.queuedInstances} instances through ${fleet.byRole('api').length} api ports, ${S.queuedConcurrency} in flight; ${fleet.topology()}`,
    );
    t = performance.now();
    const q = await enqueueQueuedAdds(fleet, fleet.byRole('api'), queuedIds, S.queuedJobs, S.queuedConcurrency);
    const enqueueS = q.seconds;
    log(
      `  enqueued: ${q.jobIds.length} acknowledged (202), ${q.refused} not, in ${fmt(enqueueS, 1)} s (${fmt(q.jobIds.length / enqueueS)} /s)${q.firstRefusal ? `; first refusal: ${q.firstRefusal}` : ''}`,
    );
    const jobs = await waitJobs(fleet.byRole('api'), q.jobIds, Date.now() + S.queuedTimeoutS * 1000);
    const queuedS = (performance.now() - t) / 1000;
    log(
      `  job states: ${JSON.stringify(jobs.states)}${jobs.unfinished ? `, ${jobs.unfinished} unfinished at the ${S.queuedTimeoutS} s deadline` : ''} after ${fmt(queuedS, 1)} s${jobs.firstFailure ? `; first not completed: ${jobs.firstFailure}` : ''}`,
    );
    const qCounts = await readCounts(fleet, fleet.byRole('api'), queuedIds);
    const qx = exactness(q.acked, qCounts);
    // a job /JOBS calls failed (or unknown) whose instance shows it applied anyway: its caller was told wrong
    const notCompletedPer = new Map<string, number>();
    for (const j of jobs.notCompleted)
      notCompletedPer.set(q.instanceOf.get(j)!, (notCompletedPer.get(q.instanceOf.get(j)!) ?? 0) + 1);
    let failedYetApplied = 0;
    for (const [id, f] of notCompletedPer)
      failedYetApplied += Math.min(f, Math.max(0, qCounts.get(id)! - (q.acked.get(id)! - f)));
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
    const a2 = await writeLoad(mainTarget, fleet.byRole('api'), many, S.seconds);
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

    // --- cluster column -----------------------------------------------------
    let cl: ClusterColumn | undefined;
    if (S.cluster) {
      await fleet.stopAll(); // done with: the column's own processes get the machine
      cl = await clusterColumn(redis, redisUrl, runDir);
      summary.cluster = cl.json;
    }

    const allLogs = fleet.logs();
    const logTotals = { warn: 0, error: 0, stderr: 0 };
    for (const l of allLogs) for (const k of ['warn', 'error', 'stderr'] as const) logTotals[k] += l.log[k];
    summary.log_lines = logTotals;
    const inlineLost = [a1.many, a1.hot, a1.hot1, b.many, b.hot, b.hot1, a2].reduce((s, r) => s + r.lost, 0);
    summary.inline_lost = inlineLost;
    const clusterLost = cl?.lost ?? 0;
    const exact =
      queued.lost === 0 &&
      queued.doubled === 0 &&
      blLost === 0 &&
      blDoubled === 0 &&
      inlineLost === 0 &&
      clusterLost === 0;
    summary.exact = exact;

    log(`\n== ${stamp()} summary`);
    log(describeWrites('one api (a, first+last)', oneApi));
    log(describeWrites('three api (b)', threeApi));
    log(
      `  three api ÷ one api: writes/s ${fmt(ratios.writes_per_s, 2)} (${S.hot} hot ${fmt(ratios.hot_writes_per_s, 2)}, 1 hot ${fmt(ratios.hot1_writes_per_s, 2)}), p99 ${fmt(ratios.p99_ms, 2)}, ` +
        `CPU per write api ${fmt(ratios.cpu_ms_per_write_api, 2)}, redis ${fmt(ratios.cpu_ms_per_write_redis, 2)}`,
    );
    log(
      `  topology a writes/s first ${oneApi.runs_per_s?.[0]}, last ${oneApi.runs_per_s?.[1]} (the machine's drift over the run)`,
    );
    log(
      `  queued: acknowledged ${queued.acknowledged}, applied ${queued.applied}, lost ${queued.lost}, doubled ${queued.doubled}; ${queued.jobs_per_s} jobs/s end to end`,
    );
    log(
      `  backlog jobs/s by workers: ${S.backlogWorkers.map((w) => `${w}: ${backlog[`workers_${w}`]}`).join(', ')}; lost ${blLost}, doubled ${blDoubled}; more workers not slower: ${bl.moreWorkersNotSlower}`,
    );
    log(
      `  process logs: ${logTotals.warn} warn, ${logTotals.error} error lines, ${logTotals.stderr} other stderr lines`,
    );
    for (const l of allLogs) for (const s of l.log.samples) log(`    ${s}`);
    if (cl) {
      log(
        `  cluster column (the same WRITE load, ${S.clusterSeconds} s each; CPU per write of the api process and of every Redis node; commands and WAITs per write on the masters):`,
      );
      for (const l of cl.lines) log(l);
    }
    if (!exact) {
      log(
        `  !! NOT EXACT: queued lost ${queued.lost}, doubled ${queued.doubled}; backlog lost ${blLost}, doubled ${blDoubled}; acknowledged WRITEs missing ${inlineLost}` +
          `${clusterLost ? `, in the cluster column ${clusterLost}` : ''}`,
      );
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
