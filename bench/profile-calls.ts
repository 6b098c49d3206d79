/**
 * Where a call's CPU goes: profiles the runtime (and, with --baseline, the bare
 * express+ioredis server) under the runtime benchmark's READ and WRITE load,
 * one CPU profile per phase, and prints the top functions by self and by total
 * time and self time by area.
 *
 *   npx tsx bench/profile-calls.ts [read] [write] [--seconds=8] [--top=25] [--baseline] [--keep] [--heap]
 *
 * Same set-up as `npm run bench` (embedded Redis or REDIS_URL, the runtime
 * with the example classes, but compiled first (into dist/, bench/tsconfig.profile.json) so that
 * the profile's lines are the source's, LOG_LEVEL=warn, 1000 Counter instances, 50
 * connections rotating over them). Each child is preloaded with
 * bench/profile-hook.mjs; after a warm-up the profiler is started and stopped
 * around the measured load only (SIGUSR2), so start-up and fixtures stay out.
 * The .cpuprofile files are kept with --keep (their paths are printed) and can
 * be read again with bench/profile-summary.ts or Chrome DevTools.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { findFreePort } from '../runtime/redis/embedded-redis';
import {
  describeProfile,
  summariseHeapProfile,
  summariseProfile,
  topRows,
  type CpuProfile,
  type HeapProfile,
} from './profile-summary';
import {
  benchRedisUrl,
  call,
  cannon,
  type Child,
  projectKeyPatterns,
  ROOT,
  deleteKeys,
  describe,
  fmt,
  log,
  rotating,
  runBench,
  startNodeChild,
  tempDirs,
  tracked,
  waitReady,
  waitUntil,
} from './support';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt);
const SECONDS = opt('seconds', 8);
const TOP = opt('top', 25);
const WARM_SECONDS = 2;
const BASELINE = argv.includes('--baseline');
const KEEP = argv.includes('--keep');
/** also a sampling heap profile of the runtime: bytes allocated per request, by function */
const HEAP = argv.includes('--heap');
const phases = argv.filter((a) => !a.startsWith('--'));
for (const p of phases) if (p !== 'read' && p !== 'write') throw new Error(`unknown phase '${p}' (read, write)`);
const PHASES = (phases.length ? phases : ['read', 'write']) as ('read' | 'write')[];

const PROJECT_ID = 'bench';
const API_KEY = 'bench-integration-key-0123456789abcdef';
const AUTH = { 'x-api-key': API_KEY };
const INSTANCES = 1000;
const BASE_PREFIX = 'bench:base:';
const HOOK = ['--import', path.join(__dirname, 'profile-hook.mjs')];

/**
 * Compiles runtime/ and examples/ into dist/ (bench/tsconfig.profile.json: not
 * classes/, which the profile does not load). Type errors are reported but do
 * not stop it (tsc still emits): a profile of work in progress is still a profile.
 */
function build(): number {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'bench/tsconfig.profile.json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const main = path.join(ROOT, 'dist/runtime/main.js');
  if (!fs.existsSync(main) || fs.statSync(main).mtimeMs < t0 - 1000)
    throw new Error(`build failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  if (r.status !== 0)
    log(`(tsc reported type errors, compiled anyway:\n${r.stdout.trim().split('\n').slice(0, 5).join('\n')})`);
  return (Date.now() - t0) / 1000;
}

/** calls per command from INFO commandstats */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    out.set(m[1], Number(m[2]));
  return out;
}

/** Redis commands per request over a phase (scripts count as evalsha, plus the commands they run) */
function perRequest(before: Map<string, number>, after: Map<string, number>, requests: number): string {
  return [...after]
    .map(([cmd, n]) => [cmd, (n - (before.get(cmd) ?? 0)) / requests] as const)
    .filter(([cmd, r]) => r >= 0.01 && cmd !== 'info')
    .sort((a, b) => b[1] - a[1])
    .map(([cmd, r]) => `${cmd} ${r.toFixed(2)}`)
    .join(', ');
}

/** Starts the child's profiler, runs `load`, stops the profiler and returns the profile. */
async function profiled<T>(
  child: Child,
  dir: string,
  n: number,
  load: () => Promise<T>,
): Promise<{ result: T; profile: CpuProfile; file: string }> {
  process.kill(child.pid, 'SIGUSR2');
  await waitUntil(
    () => Promise.resolve(fs.existsSync(path.join(dir, `started-${n}`))),
    10_000,
    `${child.name}: profiler start`,
  );
  const result = await load();
  process.kill(child.pid, 'SIGUSR2');
  const file = path.join(dir, `profile-${n}.cpuprofile`);
  await waitUntil(() => Promise.resolve(fs.existsSync(file)), 30_000, `${child.name}: profile written`);
  return { result, profile: JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, file };
}

async function main(): Promise<Record<string, unknown>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rt-prof-data-'));
  const profDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rt-prof-'));
  tempDirs.add(dataDir);
  if (!KEEP) tempDirs.add(profDir);
  const started: Child[] = [];
  let redis: Redis | undefined;
  const out: Record<string, unknown> = {};
  try {
    const redisUrl = await benchRedisUrl();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    await deleteKeys(redis, [...projectKeyPatterns(PROJECT_ID), `${BASE_PREFIX}*`]);
    const [rtPort, basePort] = [await findFreePort(), await findFreePort()];
    const rtDir = path.join(profDir, 'runtime');
    const baseDir = path.join(profDir, 'baseline');
    fs.mkdirSync(rtDir);
    fs.mkdirSync(baseDir);
    // compiled, as deployed: under tsx every function of a file sits on one line of its
    // transformed code, so a profile could not tell the anonymous ones apart
    log(`compiled runtime/ and examples/ into dist/ in ${fmt(build(), 1)} s`);
    const runtime = startNodeChild(
      'runtime',
      'dist/runtime/main.js',
      {
        PORT: String(rtPort),
        PROJECT_ID,
        REDIS_URL: redisUrl,
        JWT_SECRET: 'bench-jwt-secret-0123456789-0123456789-0123456789',
        INTEGRATION_API_KEYS: API_KEY,
        CLASS_DIRS: 'dist/examples/classes',
        SCHEMA_DIRS: 'examples/schemas',
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        WORKER_CONCURRENCY: '16',
        ROLES: 'api,worker,projector',
        PROFILE_DIR: rtDir,
        PROFILE_HEAP: HEAP ? '1' : '',
      },
      HOOK,
    );
    started.push(runtime);
    const baseline = startNodeChild(
      'baseline-server',
      'bench/baseline-server.ts',
      { PORT: String(basePort), REDIS_URL: redisUrl, BASE_PREFIX, PROFILE_DIR: baseDir },
      HOOK,
    );
    started.push(baseline);
    const RT = `http://127.0.0.1:${rtPort}`;
    const BASE = `http://127.0.0.1:${basePort}`;
    await Promise.all([waitReady(runtime, `${RT}/ready`), waitReady(baseline, `${BASE}/ready`)]);

    // fixtures: the benchmark's 1000 counters, and the baseline's values of the same size
    let next = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < INSTANCES) {
          const id = `w-${next++}`;
          const r = await call(RT, 'POST', `/${PROJECT_ID}/CALL/Counter/init/${id}`, {}, AUTH);
          if (r.status !== 200 && r.status !== 201)
            throw new Error(`INIT ${id}: ${r.status} ${JSON.stringify(r.body)}`);
        }
      }),
    );
    const sample = await call(RT, 'GET', `/${PROJECT_ID}/CALL/Counter/get/w-0`, undefined, AUTH);
    const pipe = redis.pipeline();
    for (let i = 0; i < INSTANCES; i++)
      pipe.set(`${BASE_PREFIX}w-${i}`, JSON.stringify({ ...(sample.body as Record<string, unknown>), id: `w-${i}` }));
    await pipe.exec();

    const counters = new Map<Child, number>();
    for (const phase of PHASES) {
      const sides: { child: Child; dir: string; url: string; label: string; path: (i: number) => string }[] = [
        {
          child: runtime,
          dir: rtDir,
          url: RT,
          label: `runtime ${phase.toUpperCase()}`,
          path: (i) => `/${PROJECT_ID}/CALL/Counter/${phase === 'read' ? 'get' : 'increment'}/w-${i}`,
        },
      ];
      if (BASELINE)
        sides.push({
          child: baseline,
          dir: baseDir,
          url: BASE,
          label: `baseline ${phase}`,
          path: (i) => `/${phase}/w-${i}`,
        });
      for (const side of sides) {
        const method = phase === 'read' ? 'GET' : 'POST';
        const body = phase === 'read' ? undefined : '{}';
        const load = (seconds: number) =>
          cannon({
            label: side.label,
            url: side.url,
            pid: side.child.pid,
            seconds,
            headers: AUTH,
            request: rotating(INSTANCES, method, side.path, body),
          });
        await load(WARM_SECONDS);
        const n = (counters.get(side.child) ?? 0) + 1;
        counters.set(side.child, n);
        const stats0 = await commandCalls(redis);
        const { result, profile, file } = await profiled(side.child, side.dir, n, () => load(SECONDS));
        const stats1 = await commandCalls(redis);
        const summary = summariseProfile(profile);
        log(`\n===== ${side.label}: ${describe(result)}`);
        log(`      Redis commands per request: ${perRequest(stats0, stats1, result.ok)}`);
        log(`      profiled CPU per request: ${fmt(summary.busyUs / result.ok, 1)} µs (the profiler adds some)`);
        log(`      profile ${KEEP ? file : '(not kept; --keep keeps it)'}`);
        for (const line of describeProfile(summary, TOP)) log(line);
        const heapFile = file.replace(/\.cpuprofile$/, '.heapprofile');
        if (fs.existsSync(heapFile)) {
          const heap = summariseHeapProfile(JSON.parse(fs.readFileSync(heapFile, 'utf8')) as HeapProfile);
          log(`\nallocated by function (sampled; ${fmt(heap.total / result.ok)} bytes per request in all)`);
          for (const line of topRows(heap.byFunction, heap.total, TOP)) log(line);
        }
        out[side.label.replace(/ /g, '_')] = {
          per_s: Math.round(result.rps),
          cpu_us_per_req: Math.round(result.cpuUsPerReq),
          profile_busy_s: summary.busyUs / 1e6,
        };
      }
    }
    return out;
  } finally {
    await Promise.all(started.map((c) => c.stop()));
    redis?.disconnect();
    await tracked.redis?.stop();
    if (KEEP) log(`\nprofiles kept in ${profDir}`);
    log(`done (${fmt(process.uptime(), 1)} s)`);
  }
}

runBench(main);
