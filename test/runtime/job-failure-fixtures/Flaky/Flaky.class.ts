/** Test fixture: QUEUED_WRITEs that fail, for the log lines of their failed attempts (job-failure-log.test.ts). */
import { ActorClass, ActorError, Init, QueuedWrite, type Ctx } from '../../../../runtime';

@ActorClass({ id: 'Flaky', description: 'failing queued write fixture', sensitiveFields: ['secret'] })
export class Flaky {
  @Init({ access: ['class'], schema: false })
  open(ctx: Ctx) {
    ctx.state.public.opened = true;
    return { id: ctx.instanceId };
  }

  /** Fails with an unexpected error on every attempt: retried, then failed for good. */
  @QueuedWrite({ access: ['class'], schema: false, attempts: 2 })
  crash(ctx: Ctx) {
    ctx.state.public.touched = true;
    throw new TypeError(`Cannot read properties of undefined (reading 'event')`);
  }

  /** Refuses its input: not retried. */
  @QueuedWrite({ access: ['class'], schema: false, attempts: 5 })
  refuse(ctx: Ctx) {
    throw new ActorError(400, 90400, `refused for instance ${ctx.instanceId}`);
  }
}
