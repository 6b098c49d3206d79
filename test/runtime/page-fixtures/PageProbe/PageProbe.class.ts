/** A class for the page mechanism's test: answers who called it and from where. */
import { ActorClass, Static, type StaticCtx } from '../../../../runtime';

@ActorClass({ id: 'PageProbe' })
export class PageProbe {
  @Static({ access: ['public'], schema: false })
  whoami(ctx: StaticCtx) {
    const ua = ctx.request.headers?.['user-agent'];
    return {
      type: ctx.identity.type,
      userId: ctx.identity.userId ?? null,
      ip: ctx.request.ip ?? null,
      userAgent: ua ?? null,
      body: ctx.request.body,
    };
  }

  @Static({ access: ['enduser'], schema: false })
  membersOnly(_ctx: StaticCtx) {
    return { ok: true };
  }
}
