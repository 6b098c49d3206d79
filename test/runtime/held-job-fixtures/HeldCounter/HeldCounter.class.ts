/**
 * Test fixture for killing a worker in the middle of a job (multiprocess.test.ts):
 * `add`, a QUEUED_WRITE, holds until the test sets a Redis key, so the job is
 * surely still running when its worker is killed, however slow the machine,
 * and runs at once when delivered again after the test has set the key.
 */
import { Redis } from 'ioredis';
import { ActorClass, Init, QueuedWrite, Read, type Ctx } from '../../../../runtime';

const ANYONE = ['integration_user', 'class'] as const;

/** the longest a hold lasts: a test that never sets its key does not keep a worker busy for ever */
const HOLD_LIMIT_MS = 25_000;

interface HeldState {
  count: number;
  history: number[];
}

function held(ctx: Ctx): HeldState {
  return ctx.state.public as HeldState;
}

/** Resolves once `key` exists (polled every 50 ms on a connection of its own); throws past HOLD_LIMIT_MS. */
async function holdUntil(key: string): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL!);
  try {
    const deadline = Date.now() + HOLD_LIMIT_MS;
    while (!(await redis.exists(key))) {
      if (Date.now() > deadline) throw new Error(`held past ${HOLD_LIMIT_MS} ms: ${key} was never set`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    redis.disconnect();
  }
}

@ActorClass({ id: 'HeldCounter', description: 'a counter whose queued write holds until a Redis key is set' })
export class HeldCounter {
  @Init({ access: [...ANYONE], timeoutSeconds: 5, schema: false })
  open(ctx: Ctx) {
    ctx.state.public.count = 0;
    ctx.state.public.history = [];
    return { id: ctx.instanceId };
  }

  @Read({ access: [...ANYONE], schema: false })
  get(ctx: Ctx) {
    return { id: ctx.instanceId, version: ctx.version, ...held(ctx) };
  }

  /** body {by, releaseKey}: waits until `releaseKey` exists in Redis, then adds `by` */
  @QueuedWrite({ access: [...ANYONE], timeoutSeconds: 30, attempts: 4, schema: false })
  async add(ctx: Ctx) {
    const { by, releaseKey } = ctx.request.body as { by: number; releaseKey: string };
    await holdUntil(releaseKey);
    const s = held(ctx);
    s.count += by;
    s.history.push(by);
    return { count: s.count };
  }
}
