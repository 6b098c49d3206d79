/** Test fixture: a class whose changes cause committed effects on Ledger instances. */
import { ActorClass, ActorError, Init, Static, Write, type Ctx } from '../../../../runtime';

const ANYONE = ['integration_user', 'class'] as const;

interface SellBody {
  ledger: string;
  entries: string[];
  delayMs?: number;
  /** a lookup key this change takes (a taken one refuses the commit) */
  slot?: string;
  /** throw after asking for the effects */
  fail?: boolean;
}

@ActorClass({ id: 'Shop', description: 'effect source fixture' })
export class Shop {
  @Init({ access: [...ANYONE], schema: false })
  open(ctx: Ctx) {
    ctx.state.public.sales = 0;
    return { id: ctx.instanceId };
  }

  @Write({ access: [...ANYONE], schema: false })
  async sell(ctx: Ctx) {
    const body = ctx.request.body as SellBody;
    const ids: string[] = [];
    for (const entry of body.entries) {
      ids.push(
        await ctx.effect({
          classId: 'Ledger',
          method: 'post',
          instanceId: body.ledger,
          body: { entry, ...(body.delayMs ? { delayMs: body.delayMs } : {}) },
        }),
      );
    }
    ctx.state.public.sales = (ctx.state.public.sales as number) + 1;
    if (body.slot) ctx.lookup.set('slot', body.slot);
    if (body.fail) throw new ActorError(400, 99001, 'refused after asking for the effects');
    return { effects: ids };
  }

  /** a STATIC's effects are applied once it has answered (it commits nothing) */
  @Static({ access: [...ANYONE], schema: false })
  async note(ctx: Ctx) {
    const body = ctx.request.body as SellBody;
    for (const entry of body.entries)
      await ctx.effect({ classId: 'Ledger', method: 'post', instanceId: body.ledger, body: { entry } });
    if (body.fail) throw new ActorError(400, 99001, 'refused after asking for the effects');
    return { noted: body.entries.length };
  }

  /** effects that are no effects: a READ target, a lookup instead of an id, this very instance */
  @Write({ access: [...ANYONE], schema: false })
  async misuse(ctx: Ctx) {
    const { kind } = ctx.request.body as { kind: 'read' | 'lookup' | 'self' | 'unknown' };
    const target =
      kind === 'read'
        ? { classId: 'Ledger', method: 'get', instanceId: 'l1' }
        : kind === 'lookup'
          ? { classId: 'Ledger', method: 'post', instanceId: 'slot!x' }
          : kind === 'self'
            ? { classId: 'Shop', method: 'sell', instanceId: ctx.instanceId! }
            : { classId: 'Ledger', method: 'nope', instanceId: 'l1' };
    await ctx.effect(target);
    return {};
  }
}
