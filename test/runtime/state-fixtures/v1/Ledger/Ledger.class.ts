/** Test fixture: the Ledger class as first written (state version 1: `owner`, `amount` in units). */
import { ActorClass, Init, Read, Write, type Ctx, type ReadCtx, type StateOf } from '../../../../../runtime';

type LedgerState = StateOf<{ owner: string; amount: number }>;

@ActorClass<LedgerState>({
  id: 'Ledger',
  description: 'state version fixture, version 1',
  stream: {
    collections: { ledgers: {} },
    toDocuments: (state, id) => [{ collection: 'ledgers', id, doc: { owner: state.private.owner } }],
  },
})
export class Ledger {
  @Init({ access: ['integration_user'], schema: false })
  open(ctx: Ctx<LedgerState, { owner: string; amount: number }>) {
    ctx.state.private = { owner: ctx.request.body.owner, amount: ctx.request.body.amount };
    return ctx.state.private;
  }

  @Read({ access: ['integration_user'], schema: false })
  show(ctx: ReadCtx<LedgerState>) {
    return ctx.state.private;
  }

  @Write({ access: ['integration_user'], schema: false })
  credit(ctx: Ctx<LedgerState, { amount: number }>) {
    ctx.state.private.amount += ctx.request.body.amount;
    return ctx.state.private;
  }
}
