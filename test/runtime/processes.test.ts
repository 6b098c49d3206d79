/**
 * PROCESSES=N: `npm start` supervises N runtime processes sharing the port and
 * Redis; one that dies is replaced; SIGTERM stops them all.
 */
import { randomUUID } from 'node:crypto';
import { TEST_API_KEY, waitFor } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** pids answering /health over fresh connections (the cluster spreads connections) */
async function healthPids(base: string, n: number): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < n; i++) {
    try {
      const r = await fetch(`${base}/health`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(2000) });
      pids.add(((await r.json()) as { pid: number }).pid);
    } catch {
      // a connection handed to the process being killed: ask again
    }
  }
  return pids;
}

describe('PROCESSES=2', () => {
  let svc: RuntimeProcess;
  const projectId = `procs-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    svc = await spawnRuntime(projectId, { PROCESSES: '2' });
    await waitFor(() => (svc.output().match(/"msg":"runtime started"/g) ?? []).length >= 2, {
      timeoutMs: 30_000,
      what: 'both runtime processes',
    });
  }, 60_000);
  afterAll(async () => {
    if (svc.proc.exitCode === null) await svc.kill();
  });

  test('two processes answer on one port, and writes to one instance from both stay exclusive', async () => {
    const pids = await waitFor(
      async () => {
        const p = await healthPids(svc.base, 20);
        return p.size === 2 ? p : undefined;
      },
      { timeoutMs: 20_000, what: 'answers from both processes' },
    );
    expect([...pids!].every((pid) => pid !== svc.proc.pid)).toBe(true);

    const call = (m: string, id: string, body: unknown) =>
      fetch(`${svc.base}/${projectId}/CALL/Counter/${m}/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY, connection: 'close' },
        body: JSON.stringify(body),
      });
    expect((await call('init', 'shared', {})).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 40 }, () => call('increment', 'shared', { by: 1 })));
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    const got = await fetch(`${svc.base}/${projectId}/CALL/Counter/get/shared`, {
      headers: { 'x-api-key': TEST_API_KEY },
    });
    expect(await got.json()).toMatchObject({ count: 40, version: 41 });
  }, 60_000);

  test('a process that dies is replaced; SIGTERM stops the supervisor and every process', async () => {
    const before = await waitFor(
      async () => {
        const p = await healthPids(svc.base, 20);
        return p.size === 2 ? p : undefined;
      },
      { timeoutMs: 20_000, what: 'answers from both processes' },
    );
    const [victim] = [...before!];
    process.kill(victim!, 'SIGKILL');
    const after = await waitFor(
      async () => {
        const p = await healthPids(svc.base, 20);
        return p.size === 2 && !p.has(victim!) ? p : undefined;
      },
      { timeoutMs: 30_000, what: 'a replacement process' },
    );
    expect(svc.output()).toContain('a runtime process died; starting another');

    await svc.stop();
    expect(svc.proc.exitCode).toBe(0);
    await waitFor(() => [...after!].every((pid) => !alive(pid)), {
      timeoutMs: 20_000,
      what: 'every runtime process gone',
    });
  }, 90_000);
});
