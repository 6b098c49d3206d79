/** Test fixture: the target of committed effects (runtime/actor/effects.ts). */
import { ActorClass, Init, Read, Write, type Ctx } from '../../../../runtime';

const ANYONE = ['integration_user', 'class'] as const;

@ActorClass({ id: 'Ledger', description: 'effect target fixture' })
export class Ledger {
  @Init({ access: [...ANYONE], schema: false })
  open(ctx: Ctx) {
    ctx.state.public.entries = [];
    return { id: ctx.instanceId };
  }

  /** body {entry, delayMs?}: appends the entry (after waiting delayMs, to let a test kill the process mid-apply) */
  @Write({ access: [...ANYONE], schema: false, timeoutSeconds: 15 })
  async post(ctx: Ctx) {
    const { entry, delayMs } = ctx.request.body as { entry: string; delayMs?: number };
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    (ctx.state.public.entries as string[]).push(entry);
    return { entries: ctx.state.public.entries };
  }

  @Read({ access: [...ANYONE], schema: false })
  get(ctx: Ctx) {
    return { entries: ctx.state.public.entries, version: ctx.version };
  }
}
