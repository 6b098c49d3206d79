/**
 * Helpers of bench/scale.bench.ts that the other benchmarks do not need: the
 * port a runtime process listens on (read from /proc, so it can start on
 * PORT=0 without logging every request), Redis's own CPU time, a count of the
 * warnings and errors in a child's log, a bounded-concurrency loop, and a run
 * wrapper that prints the summary as the last stdout line and exits non-zero
 * when a correctness check failed.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { CLK_TCK, children, cpuSeconds, round1, sleep, tracked, type Child } from './support';

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

/**
 * The TCP ports `pid` listens on: its socket inodes (/proc/<pid>/fd) matched
 * against the LISTEN entries of /proc/net/tcp and tcp6.
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  let fds: string[] = [];
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
    let text = '';
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
      const o = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } } & Record<string, unknown>;
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
  child.proc.stdout!.on('data', lines((l) => void onJson(l)));
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
        .then(() => tracked.redis?.stop())
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
