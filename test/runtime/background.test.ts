/**
 * Work a process starts after answering (runtime/background.ts) is waited for
 * when it stops: a short-lived process (the CLI) that commits a delayed task
 * and stops at once hands the task to the queue itself, instead of cutting the
 * hand-over off ("Connection is closed") and leaving it to another process's
 * sweeper.
 */
import { Redis } from 'ioredis';
import { Background } from '../../runtime/background';
import { loadConfig } from '../../runtime/config';
import { Runtime } from '../../runtime/runtime';
import { testEnv } from '../support/harness';
import { capturedLogger } from '../support/log-lines';
import { uniqueProjectId } from '../support/redis';

describe('Background', () => {
  /** a promise the test settles itself (no timers: nothing here depends on how fast the machine is) */
  const gate = () => {
    let open!: (value: string) => void;
    const promise = new Promise<string>((resolve) => (open = resolve));
    return { promise, open };
  };

  it("settles once the work tracked, and the work started meanwhile, has ended; a rejection is the caller's", async () => {
    const bg = new Background();
    const a = gate();
    const first = bg.track(a.promise);
    const failing = bg.track(Promise.reject(new Error('failed')));
    await expect(failing).rejects.toThrow('failed');
    expect(bg.size).toBe(1);
    // work the first one starts when it ends, itself ended a little later
    const b = gate();
    void first.then(() => {
      bg.track(b.promise);
      setImmediate(() => b.open('done'));
    });
    const settled = bg.settled(5_000);
    a.open('done');
    expect(await settled).toBe(true);
    expect(bg.size).toBe(0);
    expect(await first).toBe('done');
  });

  it('answers false when work is still running at the deadline, and keeps it', async () => {
    const bg = new Background();
    let release!: () => void;
    bg.track(new Promise<void>((r) => (release = r)));
    expect(await bg.settled(50)).toBe(false);
    expect(bg.size).toBe(1);
    release();
    expect(await bg.settled(5_000)).toBe(true);
  });
});

test('a process that commits a delayed task and stops at once hands the task to the queue before closing it', async () => {
  const projectId = uniqueProjectId('bg');
  // the CLI's roles: no worker, so nothing but the hand-over puts the task in the queue
  const env = testEnv(projectId, { ROLES: 'api' });
  const { lines, logger } = capturedLogger();
  const rt = await Runtime.create(loadConfig(env), env.REDIS_URL, { logger });
  const redis = new Redis(env.REDIS_URL);
  try {
    await rt.call('Counter', 'init', 'bg1', {});
    expect((await rt.call('Counter', 'later', 'bg1', { delaySeconds: 3600, by: 1 })).body).toEqual({ scheduled: true });
    await rt.stop();

    // handed over by this process: the queue holds the delayed task and the task outbox is empty
    const delayed = await redis.zrange(rt.jobs.queue.keys.delayed!, '0', '-1');
    expect(delayed).toHaveLength(1);
    expect(delayed[0]).toMatch(/^task-/);
    expect(await redis.xlen(rt.store.keys.bucket(0).tasks)).toBe(0);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  } finally {
    await rt.stop();
    redis.disconnect();
  }
});
