/** Test fixture: QUEUED_WRITEs and delayed tasks that fail, for the log lines of their failed attempts (job-failure-log.test.ts). */
import { ActorClass, ActorError, Init, QueuedWrite, Write, type Ctx } from '../../../../runtime';

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

  /** Schedules `method` (crashTask or refuseTask) as a delayed task, with the body given. */
  @Write({ access: ['class'], schema: false })
  later(ctx: Ctx) {
    const { method, ...body } = ctx.request.body as { method: string };
    ctx.schedule({ method, delaySeconds: 0, body });
    return { scheduled: true };
  }

  /** As a task: fails with an unexpected error (retried with the tasks' backoff). */
  @Write({ access: ['class'], schema: false })
  crashTask(ctx: Ctx) {
    ctx.state.public.touched = true;
    throw new TypeError(`task crashed on ${ctx.instanceId}`);
  }

  /** As a task: refuses its input (not retried). */
  @Write({ access: ['class'], schema: false })
  refuseTask(ctx: Ctx) {
    throw new ActorError(400, 90401, `task refused for instance ${ctx.instanceId}`);
  }
}
