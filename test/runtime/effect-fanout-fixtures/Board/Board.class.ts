/**
 * Test fixture for the effects of one commit on many targets
 * (test/runtime/effects-fanout.test.ts): a board of entries whose `post` can
 * wait for, or require, an entry on another board.
 */
import { ActorClass, ActorError, Init, Read, Write, type Ctx } from '../../../../runtime';

const ANYONE = ['integration_user', 'class'] as const;

interface PostBody {
  entry: string;
  /** wait (up to 5 s) until this board holds this entry: only possible when that effect is applied meanwhile */
  after?: { board: string; entry: string };
  /** refused (503, retried) while this board does not hold this entry */
  requires?: { board: string; entry: string };
  delayMs?: number;
}

async function holds(ctx: Ctx, where: { board: string; entry: string }): Promise<boolean> {
  const r = await ctx.call('Board', 'get', where.board, {});
  return ((r.body as { entries: string[] }).entries ?? []).includes(where.entry);
}

@ActorClass({ id: 'Board', description: 'fan-out effect target fixture' })
export class Board {
  @Init({ access: [...ANYONE], schema: false })
  open(ctx: Ctx) {
    ctx.state.public.entries = [];
    return { id: ctx.instanceId };
  }

  @Write({ access: [...ANYONE], schema: false, timeoutSeconds: 15 })
  async post(ctx: Ctx) {
    const { entry, after, requires, delayMs } = ctx.request.body as PostBody;
    if (after) {
      const deadline = Date.now() + 5000;
      while (!(await holds(ctx, after))) {
        if (Date.now() > deadline)
          throw new ActorError(503, 99002, `${after.board} never got ${after.entry}`, { retryable: true });
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    if (requires && !(await holds(ctx, requires)))
      throw new ActorError(503, 99003, `${requires.board} has no ${requires.entry} yet`, { retryable: true });
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    (ctx.state.public.entries as string[]).push(entry);
    return { entries: ctx.state.public.entries };
  }

  @Read({ access: [...ANYONE], schema: false })
  get(ctx: Ctx) {
    return { entries: ctx.state.public.entries };
  }
}
