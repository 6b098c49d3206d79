/** Test fixture: writes whose repeats are answered from the first call (MethodOptions.replayWindowSeconds). */
import { ActorClass, ActorError, Read, Write, type Ctx, type InstanceState, type ReadCtx } from '../../../../runtime';

type Totals = InstanceState & { public: { total?: number; calls?: number } };

interface Bump {
  by: number;
  /** keeps the handler running this long, so that repeats arrive while it runs */
  holdMs?: number;
  fail?: boolean;
}

@ActorClass({ id: 'Repeat', description: 'replay window fixture' })
export class Repeat {
  @Write({ access: ['integration_user'], schema: false, upsert: true, replayWindowSeconds: 60 })
  async bump(ctx: Ctx<Totals, Bump>) {
    const { by, holdMs, fail } = ctx.request.body;
    if (holdMs) await new Promise((resolve) => setTimeout(resolve, holdMs));
    if (fail) throw new ActorError(409, 4009, 'refused');
    ctx.state.public.total = (ctx.state.public.total ?? 0) + by;
    ctx.state.public.calls = (ctx.state.public.calls ?? 0) + 1;
    return { total: ctx.state.public.total, calls: ctx.state.public.calls };
  }

  @Write({ access: ['integration_user'], schema: false, upsert: true, replayWindowSeconds: 1 })
  async bumpBriefly(ctx: Ctx<Totals, Bump>) {
    ctx.state.public.total = (ctx.state.public.total ?? 0) + ctx.request.body.by;
    return { total: ctx.state.public.total };
  }

  @Read({ access: ['integration_user'], schema: false })
  get(ctx: ReadCtx<Totals>) {
    return ctx.state.public;
  }
}
