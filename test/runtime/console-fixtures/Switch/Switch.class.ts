/** Test fixture: a QUEUED_WRITE that fails until the instance is mended, and an effect whose target refuses it until then (console.test.ts). */
import { ActorClass, ActorError, Init, QueuedWrite, Read, Write, type Ctx } from '../../../../runtime';

const ANYONE = ['integration_user', 'class'] as const;

@ActorClass({ id: 'Switch', description: 'operator console fixture', sensitiveFields: ['pin'] })
export class Switch {
  @Init({ access: [...ANYONE], schema: false })
  open(ctx: Ctx) {
    ctx.state.public.broken = true;
    ctx.state.public.flips = 0;
    return { id: ctx.instanceId };
  }

  /** Refused (not retried) while the switch is broken. */
  @QueuedWrite({ access: [...ANYONE], schema: false, attempts: 1 })
  flip(ctx: Ctx) {
    if (ctx.state.public.broken) throw new ActorError(409, 90409, `switch ${ctx.instanceId} is broken`);
    ctx.state.public.flips = (ctx.state.public.flips as number) + 1;
    return { flips: ctx.state.public.flips };
  }

  @Write({ access: [...ANYONE], schema: false })
  mend(ctx: Ctx) {
    ctx.state.public.broken = false;
    return { mended: true };
  }

  /** Asks for a flip of another switch as a committed effect (its target refuses it while broken). */
  @Write({ access: [...ANYONE], schema: false })
  async poke(ctx: Ctx) {
    const { target } = ctx.request.body as { target: string };
    return { effect: await ctx.effect({ classId: 'Switch', method: 'flipNow', instanceId: target, body: {} }) };
  }

  /** flip as a WRITE (an effect's target) */
  @Write({ access: [...ANYONE], schema: false })
  flipNow(ctx: Ctx) {
    if (ctx.state.public.broken) throw new ActorError(409, 90409, `switch ${ctx.instanceId} is broken`);
    ctx.state.public.flips = (ctx.state.public.flips as number) + 1;
    return { flips: ctx.state.public.flips };
  }

  /** Mends the switch in an hour (a delayed task, for the console's promote). */
  @Write({ access: [...ANYONE], schema: false })
  mendLater(ctx: Ctx) {
    ctx.schedule({ method: 'mend', delaySeconds: 3600, body: {} });
    return { scheduled: true };
  }

  @Read({ access: [...ANYONE], schema: false })
  get(ctx: Ctx) {
    return ctx.state.public;
  }
}
