/** Runtime processes for tests that need several processes or a crash. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { projectRoot } from '../../runtime/config';
import { findFreePort } from '../../runtime/redis/embedded-redis';
import { testEnv, waitFor } from './harness';

export interface RuntimeProcess {
  proc: ChildProcess;
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

export async function spawnRuntime(projectId: string, env: Record<string, string> = {}): Promise<RuntimeProcess> {
  const port = await findFreePort();
  const root = projectRoot();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'runtime/main.ts')], {
    cwd: root,
    env: { ...process.env, ...testEnv(projectId, { LOG_LEVEL: 'info', PORT: String(port), ...env }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const handle: RuntimeProcess = {
    proc,
    port,
    base: `http://127.0.0.1:${port}`,
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
    await waitFor(
      () => {
        if (proc.exitCode !== null) throw new Error(`runtime process exited early: ${out.slice(-2000)}`);
        return out.includes('"msg":"runtime started"');
      },
      { timeoutMs: 30_000, what: 'runtime process start' },
    );
  } catch (err) {
    await handle.kill();
    throw err;
  }
  return handle;
}
