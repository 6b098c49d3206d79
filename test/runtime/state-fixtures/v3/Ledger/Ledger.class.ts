/**
 * Test fixture: the Ledger class two shape changes later (state version 3):
 * `owner` became `holder: {name}` (2), `amount` in units became `amountCents` (3).
 */
import { ActorClass, Read, Write, type Ctx, type ReadCtx, type StateOf } from '../../../../../runtime';

type LedgerState = StateOf<{ holder: { name: string }; amountCents: number }>;

@ActorClass<LedgerState>({
  id: 'Ledger',
  description: 'state version fixture, version 3',
  state: {
    version: 3,
    migrations: [
      {
        to: 2,
        description: 'owner becomes holder.name',
        migrate: (s) => {
          s.private.holder = { name: s.private.owner };
          delete s.private.owner;
        },
      },
      {
        to: 3,
        description: 'amount in units becomes amountCents',
        migrate: (s) => ({
          ...s,
          private: { holder: s.private.holder, amountCents: Math.round(s.private.amount * 100) },
        }),
      },
    ],
  },
  stream: {
    collections: { ledgers: {} },
    toDocuments: (state, id) => [{ collection: 'ledgers', id, doc: { holder: state.private.holder.name } }],
  },
})
export class Ledger {
  @Read({ access: ['integration_user'], schema: false })
  show(ctx: ReadCtx<LedgerState>) {
    return ctx.state.private;
  }

  @Write({ access: ['integration_user'], schema: false })
  credit(ctx: Ctx<LedgerState, { cents: number }>) {
    ctx.state.private.amountCents += ctx.request.body.cents;
    return ctx.state.private;
  }

  /** reads only: a write that changes nothing still commits the migrated state */
  @Write({ access: ['integration_user'], schema: false })
  peek(ctx: Ctx<LedgerState>) {
    return { amountCents: ctx.state.private.amountCents };
  }
}
