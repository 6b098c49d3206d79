/** Test fixture: ctx.limits from every handler kind, and the caller's address as handlers see it. */
import {
  ActorClass,
  Read,
  Static,
  Write,
  type Ctx,
  type RateLimit,
  type ReadCtx,
  type StaticCtx,
} from '../../../../runtime';

const CALLER = { access: ['integration_user'] as const, schema: false as const };

interface HitBody extends RateLimit {
  name: string;
  key: string;
}

const hit = (ctx: { limits: ReadCtx['limits']; request: { body: HitBody } }) => {
  const { name, key, max, windowSeconds } = ctx.request.body;
  return ctx.limits.hit(name, key, { max, windowSeconds });
};

@ActorClass({ id: 'Throttle', description: 'rate limit fixture' })
export class Throttle {
  @Static(CALLER)
  hitStatic(ctx: StaticCtx<HitBody>) {
    return hit(ctx);
  }

  @Read(CALLER)
  hitRead(ctx: ReadCtx<any, HitBody>) {
    return hit(ctx);
  }

  /** counts, then throws: the hit stays counted (counters are not state) */
  @Write({ ...CALLER, upsert: true })
  async hitWrite(ctx: Ctx<any, HitBody & { fail?: boolean }>) {
    const r = await hit(ctx);
    if (ctx.request.body.fail) throw new Error('failed after counting');
    ctx.state.private.hits = (ctx.state.private.hits ?? 0) + 1;
    return r;
  }

  @Static(CALLER)
  async reset(ctx: StaticCtx<{ name: string; key: string }>) {
    await ctx.limits.reset(ctx.request.body.name, ctx.request.body.key);
    return { reset: true };
  }

  @Static(CALLER)
  address(ctx: StaticCtx) {
    return { ip: ctx.request.ip ?? null };
  }
}
