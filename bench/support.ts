/**
 * Plumbing shared by the benchmarks: child processes (stopped with the
 * benchmark), readiness, autocannon runs with exact percentiles and the
 * server's CPU per request, HTTP and Redis helpers, and the run wrapper that
 * prints the summary JSON as the last stdout line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { Redis } from 'ioredis';
import { Keys } from '../runtime/actor/state-store';
import { redisBuckets } from '../runtime/config';
import { startEmbeddedRedis, type EmbeddedRedis } from '../runtime/redis/embedded-redis';

export const ROOT = path.resolve(__dirname, '..');

export function log(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function fmt(n: number, digits = 0): string {
  return Number.isFinite(n) ? n.toFixed(digits) : String(n);
}

const T0 = performance.now();
/** seconds since the benchmark started, for the section headers */
export function stamp(): string {
  return `[+${((performance.now() - T0) / 1000).toFixed(1)} s]`;
}

export function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * A benchmark's positive integer flag, given as `--name=N` or `--name N`:
 * undefined when absent, an error naming the flag when not a positive integer.
 */
export function positiveIntFlag(argv: readonly string[], name: string): number | undefined {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const raw = argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got '${raw}'`);
  return n;
}

// ---------------------------------------------------------------------------
// child processes
// ---------------------------------------------------------------------------

export interface Child {
  name: string;
  pid: number;
  proc: ChildProcess;
  alive(): boolean;
  tail(): string;
  /** the exit code once exited (null: still running, or killed by a signal) */
  exitCode(): number | null;
  exited: Promise<void>;
  stop(): Promise<void>;
}

export const children = new Set<Child>();
/** the embedded redis-server, once started (stopped on SIGINT/SIGTERM too) */
export const tracked: { redis?: EmbeddedRedis } = {};
export const tempDirs = new Set<string>();

export function findSetpriv(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const f = path.join(dir, 'setpriv');
    try {
      fs.accessSync(f, fs.constants.X_OK);
      return f;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** A node child running a TypeScript file through tsx; terminated with us (setpriv --pdeathsig) when possible. */
export function startNodeChild(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  scriptArgs: string[] = [],
): Child {
  // a compiled script (dist/…/*.js) runs on plain node, as deployed; a TypeScript one through tsx
  const nodeArgv = script.endsWith('.js')
    ? [...nodeArgs, script, ...scriptArgs]
    : [...nodeArgs, '--import', 'tsx', script, ...scriptArgs];
  const setpriv = findSetpriv();
  // setpriv execs node: the pid we get is node's own, so /proc/<pid>/status is the runtime's memory
  const [cmd, args] = setpriv
    ? [setpriv, ['--pdeathsig', 'TERM', '--', process.execPath, ...nodeArgv]]
    : [process.execPath, nodeArgv];
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS; // tsx's own loader flags for this process; the child gets --import tsx
  const proc = spawn(cmd, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 64 * 1024) output = output.slice(-32 * 1024);
  };
  proc.stdout.on('data', collect);
  proc.stderr.on('data', collect);
  let done = false;
  let exitCode: number | null = null;
  const exited = new Promise<void>((resolve) => {
    proc.once('exit', (code) => {
      exitCode = code;
      done = true;
      resolve();
    });
    proc.once('error', (err) => {
      output += `\nspawn error: ${err.message}`;
      done = true;
      resolve();
    });
  });
  let stopping: Promise<void> | undefined;
  const child: Child = {
    name,
    pid: proc.pid ?? -1,
    proc,
    exited,
    alive: () => !done,
    tail: () => output.trim().slice(-4000),
    exitCode: () => exitCode,
    stop: () => {
      stopping ??= (async () => {
        if (!done) {
          proc.kill('SIGTERM');
          proc.kill('SIGCONT'); // a child paused with SIGSTOP (a backlog's workers) acts on the SIGTERM only once continued
          const timer = sleep(10_000).then(() => 'timeout' as const);
          if ((await Promise.race([exited.then(() => 'exited' as const), timer])) === 'timeout' && !done) {
            proc.kill('SIGKILL');
            await Promise.race([exited, sleep(5_000)]);
          }
        }
        children.delete(child);
      })();
      return stopping;
    },
  };
  children.add(child);
  return child;
}

process.on('exit', () => {
  for (const c of children) {
    if (c.alive()) {
      try {
        process.kill(c.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Poll `check` until it is truthy, or throw after `timeoutMs`. */
export async function waitUntil<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let wait = 50;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(wait);
    wait = Math.min(wait * 2, 1000);
  }
}

/** The pids answering GET /health over `n` fresh connections (the runtime processes behind one port). */
export async function healthPids(base: string, n: number): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < n; i++) {
    const r = await call(base, 'GET', '/health', undefined, { connection: 'close' });
    const pid = (r.body as { pid?: unknown } | null)?.pid;
    if (r.status === 200 && typeof pid === 'number') pids.add(pid);
  }
  return pids;
}

/**
 * The benchmark's Redis: REDIS_URL, or an embedded redis-server without
 * persistence (tracked, so it is stopped with the benchmark).
 */
export async function benchRedisUrl(): Promise<string> {
  const url = process.env.REDIS_URL;
  if (url) {
    log(`redis: REDIS_URL ${url.replace(/\/\/[^@]*@/, '//***@')}`);
    return url;
  }
  tracked.redis = await startEmbeddedRedis({});
  log(`redis: embedded redis-server pid ${tracked.redis.pid} on ${tracked.redis.url} (no persistence)`);
  return tracked.redis.url;
}

export async function waitReady(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let wait = 20;
  for (;;) {
    if (!child.alive()) throw new Error(`${child.name} exited before it was ready:\n${child.tail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) {
        await res.arrayBuffer();
        return;
      }
      await res.arrayBuffer();
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline)
      throw new Error(`${child.name} not ready at ${url} within ${timeoutMs} ms:\n${child.tail()}`);
    await Promise.race([sleep(wait), child.exited]);
    wait = Math.min(wait * 2, 250);
  }
}

// ---------------------------------------------------------------------------
// load generation
// ---------------------------------------------------------------------------

export interface Measured {
  label: string;
  /** 2xx responses per second */
  rps: number;
  /** latency percentiles of the 2xx responses, ms */
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
  /** CPU time (user+sys) of the server process over the run, s; NaN when not sampled */
  cpu: number;
  /** server CPU per 2xx response, µs */
  cpuUsPerReq: number;
  /** every 2xx latency, ms (for exact percentiles over slices) */
  latencies: number[];
}

export const CLK_TCK = 100; // Linux USER_HZ for /proc/<pid>/stat

/** utime + stime of a process in seconds (/proc/<pid>/stat); NaN when unreadable. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return NaN;
  }
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export type RequestSpec = NonNullable<autocannon.Options['requests']>[number];

/** A request whose path cycles through `n` instances (one counter shared by all connections). */
export function rotating(n: number, method: string, makePath: (i: number) => string, body?: string): RequestSpec {
  let i = 0;
  return {
    method: method as autocannon.Request['method'],
    ...(body !== undefined ? { body } : {}),
    setupRequest: (req: autocannon.Request) => {
      req.path = makePath(i);
      i = (i + 1) % n;
      return req;
    },
  };
}

export interface CannonOpts {
  label: string;
  url: string;
  request: RequestSpec;
  connections?: number;
  seconds?: number;
  amount?: number;
  /** server process whose CPU time is sampled around the run */
  pid?: number;
  /** extra request headers (an API key, a bearer token) */
  headers?: Record<string, string>;
}

/**
 * One autocannon run. Throughput is 2xx responses over the time from start to
 * the last response (autocannon's own duration is rounded up to its 1 s
 * sampling tick, which matters for `amount` runs).
 */
export async function cannon(o: CannonOpts): Promise<Measured> {
  const cpu0 = treeCpuSeconds(o.pid);
  const started = performance.now();
  let last = started;
  const latencies: number[] = [];
  const opts: autocannon.Options = {
    url: o.url,
    connections: o.connections ?? 50,
    pipelining: 1,
    timeout: 20,
    headers: { 'content-type': 'application/json', ...o.headers },
    requests: [o.request],
    ...(o.amount ? { amount: o.amount } : { duration: o.seconds ?? 1 }),
  };
  const instance = autocannon(opts);
  (instance as unknown as NodeJS.EventEmitter).on(
    'response',
    (_client: unknown, status: number, _bytes: number, ms: number) => {
      last = performance.now();
      if (status >= 200 && status < 300) latencies.push(ms);
    },
  );
  const r = await instance;
  const seconds = Math.max(1e-3, (last - started) / 1000);
  return summarise(o.label, [
    { ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, seconds, cpu: treeCpuSeconds(o.pid) - cpu0, latencies },
  ]);
}

export function summarise(
  label: string,
  parts: Pick<Measured, 'ok' | 'non2xx' | 'errors' | 'seconds' | 'cpu' | 'latencies'>[],
): Measured {
  const sum = (f: (m: (typeof parts)[number]) => number) => parts.reduce((a, m) => a + f(m), 0);
  const ok = sum((m) => m.ok);
  const seconds = sum((m) => m.seconds);
  const cpu = sum((m) => m.cpu);
  const latencies = parts.flatMap((m) => m.latencies);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    label,
    rps: ok / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    ok,
    non2xx: sum((m) => m.non2xx),
    errors: sum((m) => m.errors),
    seconds,
    cpu,
    cpuUsPerReq: (cpu * 1e6) / Math.max(1, ok),
    latencies,
  };
}

export function describe(m: Measured): string {
  const bad = m.non2xx || m.errors ? `  !! non2xx=${m.non2xx} errors=${m.errors}` : '';
  const cpu = Number.isFinite(m.cpuUsPerReq) ? `   cpu ${fmt(m.cpuUsPerReq).padStart(4)} µs/req` : '';
  return `${m.label.padEnd(30)} ${fmt(m.rps).padStart(6)} req/s   p50 ${fmt(m.p50, 1).padStart(5)} ms   p99 ${fmt(m.p99, 1).padStart(5)} ms${cpu}   (${m.ok} ok in ${fmt(m.seconds, 1)} s)${bad}`;
}

export function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

// ---------------------------------------------------------------------------
// HTTP helpers
// ---------------------------------------------------------------------------

export async function call(
  base: string,
  method: 'GET' | 'POST',
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + pathname, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed };
}

// ---------------------------------------------------------------------------
// Redis helpers
// ---------------------------------------------------------------------------

export async function infoField(redis: Redis, section: string, field: string): Promise<number> {
  const info = await redis.info(section);
  const m = new RegExp(`^${field}:(\\d+)`, 'm').exec(info);
  if (!m) throw new Error(`INFO ${section} has no ${field}`);
  return Number(m[1]);
}

/** used_memory minus client buffers (query/output buffers of busy connections are not data). */
export async function dataMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  const get = (f: string) => Number(new RegExp(`^${f}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return get('used_memory') - get('mem_clients_normal') - get('mem_clients_slaves');
}

/** The keyspace hash table of the connection's db (entries + bucket array), from MEMORY STATS. */
export async function mainDict(redis: Redis): Promise<{ overhead: number; keys: number }> {
  const db = `db.${redis.options.db ?? 0}`;
  const stats = (await redis.call('MEMORY', 'STATS')) as unknown[];
  let overhead = 0;
  for (let i = 0; i + 1 < stats.length; i += 2) {
    if (stats[i] !== db || !Array.isArray(stats[i + 1])) continue;
    const fields = stats[i + 1] as unknown[];
    for (let j = 0; j + 1 < fields.length; j += 2)
      if (fields[j] === 'overhead.hashtable.main') overhead = Number(fields[j + 1]);
  }
  return { overhead, keys: await redis.dbsize() };
}

export async function memoryUsage(redis: Redis, key: string): Promise<number> {
  const v = (await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) as number | null;
  return v ?? 0;
}

/**
 * The key names of project `projectId` as its runtime processes (started with
 * this benchmark's environment, on one redis-server) name them: REDIS_BUCKETS
 * buckets (default 1), each instance's keys, streams and QUEUED_WRITE queue
 * under its bucket's hash tag `rt:{<project>:<b>}`.
 */
export function benchKeys(projectId: string): Keys {
  return new Keys(projectId, redisBuckets(process.env, false));
}

/**
 * SCAN patterns of every key of project `projectId`: project-wide keys
 * (`rt:<p>:…`: roles, API keys, lookups, the layout marker), the keys under a
 * hash tag (`rt:{<p>:<b>}…` of each bucket and its BullMQ queue,
 * `rt:{<p>:msg}…` of the mail queue), and the names from before the hash tags
 * (`bull:rt-<p>:…`, `bull:msg-<p>:…`), which a runtime renames into its
 * buckets at start: a leftover of an older run would otherwise land in this one.
 */
export function projectKeyPatterns(projectId: string): string[] {
  return [`rt:${projectId}:*`, `rt:{${projectId}:*`, `bull:rt-${projectId}:*`, `bull:msg-${projectId}:*`];
}

/** Delete the keys matching `patterns` (a benchmark's own keys, when REDIS_URL is external). */
export async function deleteKeys(redis: Redis, patterns: string[]): Promise<number> {
  let n = 0;
  for (const pattern of patterns) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length) n += await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  return n;
}

/** A process and its descendants (Linux /proc/<pid>/task/<tid>/children). */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of fs.readdirSync(`/proc/${out[i]}/task`)) {
        const kids = fs.readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Resident memory of a process and its descendants, summed (a supervisor and its runtime processes). */
export function treeVmStatus(pid: number): { rssMb: number; hwmMb: number; processes: number } {
  const pids = processTree(pid);
  let rssMb = 0;
  let hwmMb = 0;
  for (const p of pids) {
    try {
      const m = vmStatus(p);
      rssMb += m.rssMb;
      hwmMb += m.hwmMb;
    } catch {
      /* gone */
    }
  }
  return { rssMb, hwmMb, processes: pids.length };
}

/** CPU seconds of a process and its descendants. */
export function treeCpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  return processTree(pid).reduce((sum, p) => sum + (cpuSeconds(p) || 0), 0);
}

export function vmStatus(pid: number): { rssMb: number; hwmMb: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (f: string) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

let interrupted = false;

/**
 * Runs a benchmark's main: stops children and the embedded Redis on SIGINT or
 * SIGTERM, prints the summary as the last stdout line, exits 0 once figures
 * are measured and 1 when the benchmark could not run.
 */
export function runBench(main: () => Promise<Record<string, unknown>>): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      interrupted = true;
      process.stderr.write(`\n${sig}: stopping child processes\n`);
      void Promise.all([...children].map((c) => c.stop()))
        .then(() => tracked.redis?.stop())
        .catch(() => undefined)
        .finally(() => process.exit(130));
    });
  }
  const benchStart = performance.now();
  main()
    .then((summary) => {
      summary.elapsed_s = round1((performance.now() - benchStart) / 1000);
      process.stdout.write(`${JSON.stringify(summary)}\n`);
      process.exit(0);
    })
    .catch((err) => {
      if (!interrupted)
        process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    });
}

/**
 * Compiles the service as `npm start` does (`npm run build`: dist/), so a
 * benchmark measures what is deployed: plain node, no tsx loader and no
 * esbuild process beside it. Returns the seconds it took.
 */
export function buildService(): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return (performance.now() - t0) / 1000;
}
