/**
 * Helpers of the benchmarks that run several runtime processes with one role
 * each (bench/scale.bench.ts, and the backlog step of bench/runtime.bench.ts):
 * the port a runtime process listens on (read from /proc, so it can start on
 * PORT=0 without logging every request), Redis's own CPU time, a count of the
 * warnings and errors in a child's log, a bounded-concurrency loop, settings
 * from the environment, a fleet of runtime processes (api, worker, projector)
 * of one project, Counter instances and their queuedAdd jobs with the
 * exactness check (acknowledged vs applied), the QUEUED_WRITE backlog drain
 * with 1, 2, 4 ... worker processes, and a run wrapper that prints the summary
 * as the last stdout line and exits non-zero when a correctness check failed.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import {
  call as httpCall,
  CLK_TCK,
  children,
  cpuSeconds,
  fmt,
  log,
  ROOT,
  round1,
  round3,
  sleep,
  stamp,
  startNodeChild,
  tracked,
  type Child,
} from './support';

/** USER_HZ as `getconf CLK_TCK` says (bench/support.ts's cpuSeconds assumes 100). */
export const CLOCK_TICKS: number = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : CLK_TCK;
})();

/** utime + stime of one process in seconds, with the machine's clock tick. */
export function processCpuSeconds(pid: number): number {
  return (cpuSeconds(pid) * CLK_TCK) / CLOCK_TICKS;
}

/** used_cpu_sys + used_cpu_user of the Redis server (INFO cpu), seconds. */
export async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const get = (f: string) => Number(new RegExp(`^${f}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return get('used_cpu_sys') + get('used_cpu_user');
}

/** What one INFO of a Redis server counts, summed over the servers of a RedisProbe. */
export interface RedisSample {
  /** used_cpu_sys + used_cpu_user, seconds */
  cpu: number;
  /** total_commands_processed */
  commands: number;
  /** calls per command (INFO commandstats, lower case: `wait`, `evalsha`, ...) */
  calls: Record<string, number>;
  /** error replies per error prefix (INFO errorstats: MOVED, ASK, TRYAGAIN, CLUSTERDOWN, CROSSSLOT, ...) */
  errors: Record<string, number>;
}

/** `b - a`, field by field (count maps: only the keys that moved). */
export function sampleDelta(a: RedisSample, b: RedisSample): RedisSample {
  const moved = (x: Record<string, number>, y: Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const k of Object.keys(y)) if ((y[k] ?? 0) - (x[k] ?? 0) !== 0) out[k] = (y[k] ?? 0) - (x[k] ?? 0);
    return out;
  };
  return {
    cpu: b.cpu - a.cpu,
    commands: b.commands - a.commands,
    calls: moved(a.calls, b.calls),
    errors: moved(a.errors, b.errors),
  };
}

/** Parses the cpu, stats, commandstats and errorstats sections of one INFO reply. */
export function parseInfoSample(info: string): RedisSample {
  const num = (f: string) => Number(new RegExp(`^${f}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
  const errors: Record<string, number> = {};
  for (const m of info.matchAll(/^errorstat_([^:]+):count=(\d+)/gm)) errors[m[1]] = Number(m[2]);
  return { cpu: num('used_cpu_sys') + num('used_cpu_user'), commands: num('total_commands_processed'), calls, errors };
}

/**
 * The Redis servers a benchmark's runtime processes use: one server, or every
 * node of a cluster (masters and replicas, each on a plain connection of its
 * own: INFO is per node). `sample()` sums their CPU time and error replies,
 * and the commands of the nodes counted (a cluster's masters: a replica counts
 * again every write it applies), so a load's share is the difference of two
 * samples.
 */
export class RedisProbe {
  private constructor(
    private readonly conns: Redis[],
    /** which of `conns` count commands */
    private readonly counted: boolean[],
    private readonly owned: boolean,
  ) {}

  /** the server behind `redis` (the connection stays the caller's) */
  static ofConnection(redis: Redis): RedisProbe {
    return new RedisProbe([redis], [true], false);
  }

  /** every node of a cluster; commands counted on `countOn` (default: all of them) */
  static ofNodes(nodes: { host: string; port: number }[], countOn: { port: number }[] = nodes): RedisProbe {
    return new RedisProbe(
      nodes.map((n) => new Redis({ host: n.host, port: n.port, maxRetriesPerRequest: 3 })),
      nodes.map((n) => countOn.some((c) => c.port === n.port)),
      true,
    );
  }

  get servers(): number {
    return this.conns.length;
  }

  async sample(): Promise<RedisSample> {
    const infos = await Promise.all(
      this.conns.map((c) => c.call('INFO', 'cpu', 'stats', 'commandstats', 'errorstats') as Promise<string>),
    );
    const total: RedisSample = { cpu: 0, commands: 0, calls: {}, errors: {} };
    infos.forEach((info, i) => {
      const one = parseInfoSample(info);
      total.cpu += one.cpu;
      for (const [k, v] of Object.entries(one.errors)) total.errors[k] = (total.errors[k] ?? 0) + v;
      if (!this.counted[i]) return;
      total.commands += one.commands;
      for (const [k, v] of Object.entries(one.calls)) total.calls[k] = (total.calls[k] ?? 0) + v;
    });
    return total;
  }

  close(): void {
    if (this.owned) for (const c of this.conns) c.disconnect();
  }
}

/**
 * The TCP ports `pid` listens on: its socket inodes (/proc/<pid>/fd) matched
 * against the LISTEN entries of /proc/net/tcp and tcp6.
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9])) continue;
      ports.add(parseInt(cols[1].split(':').pop()!, 16));
    }
  }
  return [...ports];
}

/** What a child wrote at warn level or above (pino JSON lines), and its other stderr lines. */
export interface LogWatch {
  warn: number;
  error: number;
  /** lines on stderr that are not pino JSON (stack traces, tsx or node warnings) */
  stderr: number;
  /** first lines of each kind, shortened */
  samples: string[];
  /** true once the "runtime started" line was seen (written at LOG_LEVEL=info) */
  started: boolean;
}

export function watchLog(child: Child): LogWatch {
  const w: LogWatch = { warn: 0, error: 0, stderr: 0, samples: [], started: false };
  const seen = new Set<string>();
  const sample = (kind: string, text: string) => {
    const key = `${kind} ${text.slice(0, 80)}`;
    if (seen.has(key) || w.samples.length >= 8) return;
    seen.add(key);
    w.samples.push(`${child.name} ${kind}: ${text.slice(0, 300)}`);
  };
  const lines = (onLine: (line: string) => void) => {
    let rest = '';
    return (chunk: Buffer) => {
      rest += chunk.toString('utf8');
      const parts = rest.split('\n');
      rest = parts.pop()!;
      if (rest.length > 1 << 20) rest = '';
      for (const p of parts) if (p.trim()) onLine(p);
    };
  };
  const onJson = (line: string): boolean => {
    if (!line.startsWith('{')) return false;
    try {
      const o = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } } & Record<
        string,
        unknown
      >;
      if (typeof o.level !== 'number') return false;
      if (o.msg === 'runtime started') w.started = true;
      if (o.level >= 40) {
        const { level, time, pid, hostname, msg, err, ...fields } = o;
        void [level, time, pid, hostname];
        const text = `${msg ?? ''}${err?.message ? `: ${err.message}` : ''} ${JSON.stringify(fields)}`;
        if (o.level >= 50) w.error++;
        else w.warn++;
        sample(o.level >= 50 ? 'error' : 'warn', text);
      }
      return true;
    } catch {
      return false;
    }
  };
  child.proc.stdout!.on(
    'data',
    lines((l) => void onJson(l)),
  );
  child.proc.stderr!.on(
    'data',
    lines((l) => {
      if (onJson(l)) return;
      w.stderr++;
      sample('stderr', l);
    }),
  );
  return w;
}

/** Runs `task(i)` for i in 0..n-1 with at most `concurrency` in flight. */
export async function boundedLoop(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, n)) }, lane));
}

/** SIGCONT to every child (one paused by the backlog step would otherwise ignore SIGTERM). */
export function continueAll(): void {
  for (const c of children) {
    try {
      if (c.alive()) process.kill(c.pid, 'SIGCONT');
    } catch {
      /* gone */
    }
  }
}

/** Clean-ups beyond the children and the embedded Redis (a local Redis Cluster) run on SIGINT/SIGTERM too. */
export const extraStops = new Set<() => Promise<void>>();

/**
 * Like support.ts's runBench, but the summary's exit code is the benchmark's:
 * `main` returns the summary and the code (0, or 2 when a correctness check
 * failed); the summary is printed as the last stdout line in every case, with
 * `error` when the benchmark could not finish (exit 1). Children (paused ones
 * too) and the embedded Redis are stopped on SIGINT/SIGTERM.
 */
export function runScaleBench(summary: Record<string, unknown>, main: () => Promise<number>): void {
  let interrupted = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      interrupted = true;
      process.stderr.write(`\n${sig}: stopping child processes\n`);
      continueAll();
      void Promise.all([...children].map((c) => c.stop()))
        .then(() => Promise.all([tracked.redis?.stop(), ...[...extraStops].map((stop) => stop())]))
        .catch(() => undefined)
        .finally(() => process.exit(130));
    });
  }
  const t0 = performance.now();
  const print = () => {
    summary.elapsed_s = round1((performance.now() - t0) / 1000);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  };
  main()
    .then((code) => {
      print();
      process.exit(code);
    })
    .catch(async (err) => {
      if (interrupted) return;
      process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      summary.error = err instanceof Error ? err.message.split('\n')[0] : String(err);
      await sleep(0);
      print();
      process.exit(1);
    });
}

// ---------------------------------------------------------------------------
// settings from the environment
// ---------------------------------------------------------------------------

/** A numeric setting `name` from the environment (unset or empty: `def`), at least `min`. */
export function envNumber(name: string, def: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}, got '${raw}'`);
  return n;
}

/** A whole-number setting `name` from the environment (unset or empty: `def`), at least `min`. */
export function envInt(name: string, def: number, min = 1): number {
  const n = envNumber(name, def, min);
  if (!Number.isInteger(n)) throw new Error(`${name} must be a whole number, got '${process.env[name]}'`);
  return n;
}

/** A comma-separated list of worker counts from 1 to 16 (unset: `def`; set but empty: none). */
export function envWorkerCounts(name: string, def: string): number[] {
  return (process.env[name] ?? def)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const n = Number(s);
      if (!Number.isInteger(n) || n < 1 || n > 16)
        throw new Error(`${name}: '${s}' is not a worker count from 1 to 16`);
      return n;
    });
}

export type BacklogStart = 'resume' | 'spawn';

/** How a backlog's workers start: `resume` (default) or `spawn`. */
export function envBacklogStart(name: string): BacklogStart {
  const v = process.env[name] || 'resume';
  if (v !== 'resume' && v !== 'spawn') throw new Error(`${name} must be resume or spawn, got '${v}'`);
  return v;
}

// ---------------------------------------------------------------------------
// a fleet of runtime processes, one role each
// ---------------------------------------------------------------------------

export type Role = 'api' | 'worker' | 'projector';

export interface Proc {
  name: string;
  role: Role;
  child: Child;
  log: LogWatch;
  /** api only: http://127.0.0.1:<port> */
  base: string;
}

export interface FleetOptions {
  projectId: string;
  /** the Redis server (REDIS_URL), or */
  redisUrl?: string;
  /** a Redis Cluster's seed nodes (REDIS_CLUSTER_NODES: host:port,...) */
  clusterNodes?: string;
  /** each process's DATA_DIR is made under it */
  runDir: string;
  apiKey: string;
  jwtSecret: string;
  /** more environment for every process (WORKER_CONCURRENCY, ...); the benchmark's own environment passes through */
  env?: Record<string, string>;
  /** put before each process's name (`<prefix>worker2`), to tell two fleets of one benchmark apart */
  namePrefix?: string;
}

/**
 * Runtime processes of one project (`node --import tsx runtime/main.ts`, the
 * example classes and schemas, `ROLES=<role>`, `PORT=0`): an api process at
 * LOG_LEVEL=warn (info writes a line per request), ready once it answers
 * /ready on the port read from /proc; a worker or projector at info, ready at
 * its "runtime started" line.
 */
export class RuntimeFleet {
  readonly procs: Proc[] = [];
  /** the logs of processes stopped so far */
  readonly stoppedLogs: { name: string; log: LogWatch }[] = [];
  private readonly counters: Record<Role, number> = { api: 0, worker: 0, projector: 0 };

  constructor(readonly opts: FleetOptions) {
    if (!opts.redisUrl === !opts.clusterNodes)
      throw new Error('a RuntimeFleet needs one Redis: redisUrl or clusterNodes');
  }

  get projectId(): string {
    return this.opts.projectId;
  }

  /** An HTTP call with the fleet's API key. */
  call(base: string, method: 'GET' | 'POST', pathname: string, body?: unknown) {
    return httpCall(base, method, pathname, body, { 'x-api-key': this.opts.apiKey });
  }

  async start(role: Role): Promise<Proc> {
    const name = `${this.opts.namePrefix ?? ''}${role}${++this.counters[role]}`;
    const dataDir = path.join(this.opts.runDir, name);
    fs.mkdirSync(dataDir, { recursive: true });
    const child = startNodeChild(name, 'runtime/main.ts', {
      ...this.opts.env,
      PROJECT_ID: this.opts.projectId,
      // one Redis named, the other blanked (the benchmark's own environment, passed through, may name either)
      REDIS_URL: this.opts.redisUrl ?? '',
      REDIS_CLUSTER_NODES: this.opts.clusterNodes ?? '',
      JWT_SECRET: this.opts.jwtSecret,
      INTEGRATION_API_KEYS: this.opts.apiKey,
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
    this.procs.push(p);
    const deadline = Date.now() + 90_000;
    for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
      if (!child.alive()) throw new Error(`${name} exited before it was ready:\n${child.tail()}`);
      if (role === 'api') {
        for (const port of listeningPorts(child.pid)) {
          const r = await this.call(`http://127.0.0.1:${port}`, 'GET', '/ready').catch(() => undefined);
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

  async stop(p: Proc): Promise<void> {
    try {
      process.kill(p.child.pid, 'SIGCONT');
    } catch {
      /* gone */
    }
    await p.child.stop();
    const i = this.procs.indexOf(p);
    if (i >= 0) this.procs.splice(i, 1);
    this.stoppedLogs.push({ name: p.name, log: p.log });
    if (p.child.exitCode() !== 0 && p.child.exitCode() !== null)
      log(`  !! ${p.name} exited with code ${p.child.exitCode()}`);
  }

  /** Every process, paused ones included (SIGCONT first, so SIGTERM is acted on). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.procs].map((p) => this.stop(p)));
  }

  byRole(role: Role): Proc[] {
    return this.procs.filter((p) => p.role === role);
  }

  startMany(role: Role, n: number): Promise<Proc[]> {
    return Promise.all(Array.from({ length: n }, () => this.start(role)));
  }

  /** Stops the newest workers, or starts more, until `n` run. */
  async setWorkers(n: number): Promise<void> {
    const ws = this.byRole('worker');
    for (const w of ws.slice(n).reverse()) await this.stop(w);
    if (ws.length < n) await this.startMany('worker', n - ws.length);
  }

  topology(): string {
    const n = (r: Role) => this.byRole(r).length;
    return `${n('api')} api + ${n('worker')} worker + ${n('projector')} projector`;
  }

  /** SIGSTOP or SIGCONT to each of `ps`. */
  signal(ps: Proc[], sig: 'SIGSTOP' | 'SIGCONT'): void {
    for (const p of ps) process.kill(p.child.pid, sig);
  }

  /** Every process's log watch, stopped ones included. */
  logs(): { name: string; log: LogWatch }[] {
    return [...this.stoppedLogs, ...this.procs.map((p) => ({ name: p.name, log: p.log }))];
  }
}

// ---------------------------------------------------------------------------
// Counter instances and their queued jobs
// ---------------------------------------------------------------------------

export function ids(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${i}`);
}

/** INIT Counter instances `{}`, through the api processes in turn. */
export async function createCounters(
  fleet: RuntimeFleet,
  apis: Proc[],
  list: string[],
  concurrency = 32,
): Promise<void> {
  let failed = 0;
  let first = '';
  await boundedLoop(list.length, concurrency, async (i) => {
    const r = await fleet.call(
      apis[i % apis.length].base,
      'POST',
      `/${fleet.projectId}/CALL/Counter/init/${list[i]}`,
      {},
    );
    if (r.status !== 200 && r.status !== 201) {
      failed++;
      first ||= `${r.status} ${JSON.stringify(r.body)}`;
    }
  });
  if (failed) throw new Error(`${failed} of ${list.length} INIT calls failed; first: ${first}`);
}

/** Each instance's count (READ Counter.get), read through the given api processes in turn. */
export async function readCounts(
  fleet: RuntimeFleet,
  apis: Proc[],
  list: string[],
  concurrency = 16,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await boundedLoop(list.length, concurrency, async (i) => {
    const r = await fleet.call(apis[i % apis.length].base, 'GET', `/${fleet.projectId}/CALL/Counter/get/${list[i]}`);
    const count = (r.body as { count?: unknown } | null)?.count;
    if (r.status !== 200 || typeof count !== 'number')
      throw new Error(`READ ${list[i]}: ${r.status} ${JSON.stringify(r.body)}`);
    out.set(list[i], count);
  });
  return out;
}

export const sumOf = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

export interface Enqueued {
  /** 202 answers per instance */
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
export async function enqueueQueuedAdds(
  fleet: RuntimeFleet,
  apis: Proc[],
  list: string[],
  total: number,
  concurrency: number,
): Promise<Enqueued> {
  const acked = new Map<string, number>(list.map((id) => [id, 0]));
  const jobIds: string[] = [];
  const instanceOf = new Map<string, string>();
  let refused = 0;
  let firstRefusal = '';
  const t0 = performance.now();
  await boundedLoop(total, concurrency, async (j) => {
    const id = list[j % list.length];
    const api = apis[Math.floor(j / list.length) % apis.length];
    try {
      const r = await fleet.call(api.base, 'POST', `/${fleet.projectId}/CALL/Counter/queuedAdd/${id}`, { by: 1 });
      const jobId = (r.body as { jobId?: unknown } | null)?.jobId;
      if (r.status === 202 && typeof jobId === 'string') {
        acked.set(id, acked.get(id)! + 1);
        jobIds.push(jobId);
        instanceOf.set(jobId, id);
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

export interface Exactness {
  acknowledged: number;
  applied: number;
  /** Σ max(0, acknowledged − applied) per instance */
  lost: number;
  /** Σ max(0, applied − acknowledged) per instance */
  doubled: number;
}

/** Acknowledged jobs (per instance) against the counters (which start at 0 and only these jobs add to). */
export function exactness(acked: Map<string, number>, counts: Map<string, number>): Exactness {
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

// ---------------------------------------------------------------------------
// QUEUED_WRITE backlog drain
// ---------------------------------------------------------------------------

export interface BacklogSettings {
  /** instances per backlog */
  instances: number;
  /** queuedAdd jobs per instance */
  jobsPerInstance: number;
  /** worker counts, in this order */
  workers: number[];
  start: BacklogStart;
  /** enqueue requests in flight */
  concurrency: number;
  /** deadline for each backlog to be applied */
  timeoutS: number;
}

export interface BacklogRun extends Exactness {
  workers: number;
  /** jobs ÷ seconds until all were applied; 0 when not drained by the deadline */
  perS: number;
  seconds: number;
  drained: boolean;
  enqueuePerS: number;
  refused: number;
  /** spawn only: seconds until the workers were ready (part of `seconds`) */
  startS?: number;
  /** utime+stime of the worker processes over the drain, per job applied */
  workerCpuMsPerJob: number;
  /** Redis's CPU (INFO cpu) over the drain, per job applied */
  redisCpuMsPerJob: number;
  /** the machine's 1-minute load average when the drain ended */
  loadAvg: number;
  /** for the re-check */
  ids: string[];
  acked: Map<string, number>;
}

/**
 * For each worker count: `instances` new Counter instances, `instances ×
 * jobsPerInstance` queuedAdd {by:1} enqueued through the fleet's api
 * processes while no worker runs, then timed until every counter shows its
 * acknowledged jobs (read every 100 ms through the api processes).
 *
 * `resume`: the workers are started first and paused (SIGSTOP) while enqueuing,
 * and the time runs from their SIGCONT, so node and tsx start-up is not in it
 * (2-10 s a process here, more with 4 starting at once on 2 cores).
 * `spawn`: the workers are stopped while enqueuing and spawned after, timed
 * from the spawn (start-up included, `startS`).
 * The fleet keeps its api (and projector) processes; the workers left running
 * are the last count's.
 */
export async function drainBacklogs(
  fleet: RuntimeFleet,
  redis: Redis,
  s: BacklogSettings,
  idPrefix = 'bl',
): Promise<BacklogRun[]> {
  const runs: BacklogRun[] = [];
  for (const workers of s.workers) {
    const apis = fleet.byRole('api');
    const blIds = ids(`${idPrefix}${workers}-`, s.instances);
    await createCounters(fleet, apis, blIds);
    if (s.start === 'resume') {
      await fleet.setWorkers(workers);
      fleet.signal(fleet.byRole('worker'), 'SIGSTOP');
    } else {
      await fleet.setWorkers(0);
    }
    log(
      `\n== ${stamp()} backlog: ${s.instances} × ${s.jobsPerInstance} queuedAdd while no worker runs, then ${workers} worker${workers > 1 ? 's' : ''} (${s.start}); ${fleet.topology()}`,
    );
    const e = await enqueueQueuedAdds(fleet, apis, blIds, s.instances * s.jobsPerInstance, s.concurrency);
    const acked = sumOf(e.acked);
    log(
      `  enqueued ${acked} in ${fmt(e.seconds, 1)} s${e.refused ? `, ${e.refused} refused (first: ${e.firstRefusal})` : ''}`,
    );
    const cpuOf = () => fleet.byRole('worker').reduce((a, p) => a + (processCpuSeconds(p.child.pid) || 0), 0);
    const redis0 = await redisCpuSeconds(redis);
    let cpu0 = s.start === 'resume' ? cpuOf() : 0;
    const t0 = performance.now();
    if (s.start === 'resume') fleet.signal(fleet.byRole('worker'), 'SIGCONT');
    else await fleet.setWorkers(workers);
    const startS = (performance.now() - t0) / 1000;
    if (s.start === 'spawn') cpu0 = cpuOf(); // their start-up is not the drain's CPU
    const deadline = Date.now() + s.timeoutS * 1000;
    let counts = new Map<string, number>();
    let drained = false;
    for (;;) {
      counts = await readCounts(fleet, apis, blIds);
      if (blIds.every((id) => counts.get(id)! >= e.acked.get(id)!)) {
        drained = true;
        break;
      }
      if (Date.now() > deadline) break;
      await sleep(100);
    }
    const seconds = (performance.now() - t0) / 1000;
    const workerCpu = cpuOf() - cpu0;
    const redisCpu = (await redisCpuSeconds(redis)) - redis0;
    const x = exactness(e.acked, counts);
    const perS = drained ? acked / seconds : 0;
    const run: BacklogRun = {
      workers,
      perS,
      seconds,
      drained,
      enqueuePerS: acked / e.seconds,
      refused: e.refused,
      ...(s.start === 'spawn' ? { startS } : {}),
      workerCpuMsPerJob: (workerCpu * 1000) / Math.max(1, x.applied),
      redisCpuMsPerJob: (redisCpu * 1000) / Math.max(1, x.applied),
      loadAvg: os.loadavg()[0],
      ...x,
      ids: blIds,
      acked: e.acked,
    };
    runs.push(run);
    log(
      `  ${drained ? `applied all ${x.applied} in ${fmt(seconds, 2)} s: ${fmt(perS)} jobs/s` : `!! not drained within ${s.timeoutS} s: ${x.applied} of ${acked} applied`}` +
        `${x.doubled ? `   !! ${x.doubled} applied twice` : ''}${s.start === 'spawn' ? ` (worker start-up ${fmt(startS, 1)} s included)` : ''}` +
        `; CPU per job: workers ${fmt(run.workerCpuMsPerJob, 3)} ms, redis ${fmt(run.redisCpuMsPerJob, 3)} ms; load average ${fmt(run.loadAvg, 2)}`,
    );
  }
  return runs;
}

/** The backlogs' counters read once more (a job applied twice after it was counted shows here). */
export async function recheckBacklogs(
  fleet: RuntimeFleet,
  runs: BacklogRun[],
): Promise<{ lost: number; doubled: number }> {
  let lost = 0;
  let doubled = 0;
  for (const r of runs) {
    const x = exactness(r.acked, await readCounts(fleet, fleet.byRole('api'), r.ids));
    lost += x.lost;
    doubled += x.doubled;
  }
  return { lost, doubled };
}

/**
 * The backlog figures: jobs/s per worker count (`workers_<n>`), the detail of
 * each run, and whether more workers were never slower than fewer: each larger
 * count at least 0.9 × the next smaller one's rate (10 % for the machine's noise).
 */
export function backlogFigures(runs: BacklogRun[]): {
  rates: Record<string, number>;
  detail: Record<string, Record<string, unknown>>;
  moreWorkersNotSlower: boolean;
} {
  const rates: Record<string, number> = {};
  const detail: Record<string, Record<string, unknown>> = {};
  for (const r of runs) {
    rates[`workers_${r.workers}`] = Math.round(r.perS);
    detail[`workers_${r.workers}`] = {
      seconds: round3(r.seconds),
      enqueue_per_s: Math.round(r.enqueuePerS),
      drained: r.drained,
      acknowledged: r.acknowledged,
      applied: r.applied,
      lost: r.lost,
      doubled: r.doubled,
      ...(r.refused ? { not_acknowledged: r.refused } : {}),
      ...(r.startS !== undefined ? { start_s: round3(r.startS) } : {}),
      worker_cpu_ms_per_job: round3(r.workerCpuMsPerJob),
      redis_cpu_ms_per_job: round3(r.redisCpuMsPerJob),
      load_avg_1m: round1(r.loadAvg),
    };
  }
  const sorted = [...runs].sort((x, y) => x.workers - y.workers);
  const moreWorkersNotSlower = sorted.every((r, i) => i === 0 || r.perS >= 0.9 * sorted[i - 1].perS);
  return { rates, detail, moreWorkersNotSlower };
}
