/** Runtime processes for tests that need several processes or a crash. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { testEnv, waitFor } from './harness';

export interface RuntimeProcess {
  proc: ChildProcess;
  /** the HTTP port it listens on (0 for a process without the api role, which serves none) */
  port: number;
  base: string;
  output(): string;
  /** SIGTERM and wait for exit */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit: a crash */
  kill(): Promise<void>;
}

function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

/** The first complete "runtime started" log line's fields, or undefined while there is none. */
function startedLine(out: string): { port?: number } | undefined {
  // the last piece may be a line still being written
  for (const line of out.split('\n').slice(0, -1)) {
    if (!line.includes('"msg":"runtime started"')) continue;
    try {
      return JSON.parse(line) as { port?: number };
    } catch {
      // not a log line of its own
    }
  }
  return undefined;
}

/**
 * Starts `runtime/main.ts` on PORT 0, so the kernel picks a port no other
 * listener holds, and reads that port from its "runtime started" line (with
 * PROCESSES=N the cluster's processes share the one port the first was given).
 * A port found free here and handed to the child was bound seconds later, and
 * another jest worker's listen(0) could take it in between.
 */
export async function spawnRuntime(
  projectId: string,
  env: Record<string, string> = {},
  opts: { script?: string } = {},
): Promise<RuntimeProcess> {
  const root = projectRoot();
  // `script`: another entry point that logs the same "runtime started" line (a test fixture)
  const proc = spawn(process.execPath, ['--import', 'tsx', opts.script ?? path.join(root, 'runtime/main.ts')], {
    cwd: root,
    env: { ...process.env, ...testEnv(projectId, { LOG_LEVEL: 'info', PORT: '0', ...env }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const handle: RuntimeProcess = {
    proc,
    port: 0,
    base: 'http://127.0.0.1:0',
    output: () => out,
    stop: async () => {
      proc.kill('SIGTERM');
      await exited(proc);
    },
    kill: async () => {
      proc.kill('SIGKILL');
      await exited(proc);
    },
  };
  try {
    const started = await waitFor(
      () => {
        if (proc.exitCode !== null) throw new Error(`runtime process exited early: ${out.slice(-2000)}`);
        return startedLine(out);
      },
      { timeoutMs: 30_000, what: 'runtime process start' },
    );
    handle.port = started?.port ?? 0;
    handle.base = `http://127.0.0.1:${handle.port}`;
  } catch (err) {
    await handle.kill();
    throw err;
  }
  return handle;
}

/** How a process started by runUntilExit ended, with everything it wrote. */
export interface Exit {
  code: number | null;
  stderr: string;
  stdout: string;
}

/**
 * Starts `command` (default: the service, runtime/main.ts) with `env` over the
 * test environment of project `projectId` (PORT 0 unless `env` names one) and
 * waits up to `deadlineMs` for it to exit: for start-ups that must stop.
 */
export async function runUntilExit(
  projectId: string,
  env: Record<string, string>,
  opts: { deadlineMs?: number; command?: string[] } = {},
): Promise<Exit> {
  const deadlineMs = opts.deadlineMs ?? 20_000;
  const [script, ...args] = opts.command ?? ['runtime/main.ts'];
  const root = projectRoot();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, script), ...args], {
    cwd: root,
    env: { ...process.env, ...testEnv(projectId, { LOG_LEVEL: 'info', PORT: '0', ...env }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (c) => (stdout += c));
  proc.stderr!.on('data', (c) => (stderr += c));
  let timer: NodeJS.Timeout | undefined;
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      proc.once('exit', (c) => resolve(c));
      timer = setTimeout(
        () => reject(new Error(`still running after ${deadlineMs} ms: ${(stdout + stderr).slice(-2000)}`)),
        deadlineMs,
      );
    });
    // the pipes may still hold the last bytes
    await Promise.all(
      [proc.stdout, proc.stderr].map((s) => (s!.readableEnded ? undefined : new Promise((r) => s!.once('end', r)))),
    );
    return { code, stderr, stdout };
  } finally {
    clearTimeout(timer);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
}
