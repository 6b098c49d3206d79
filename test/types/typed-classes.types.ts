/**
 * Type-level test of typed classes, checked by tsc (this
 * file is in tsconfig.json's `include`; typed-classes.test.ts compiles it in
 * `npm test` too). Each `@ts-expect-error` line must fail to compile: if it
 * compiled, tsc would report the unused directive. Nothing here runs.
 */
import {
  ActorClass,
  client,
  Init,
  Read,
  Static,
  Write,
  type Ctx,
  type ReadCtx,
  type StateOf,
  type StaticCtx,
} from '../../runtime';

interface Wallet {
  balance: number;
  history: { amount: number; at: string }[];
}
type WalletState = StateOf<{ wallet: Wallet }>;

@ActorClass<WalletState>({
  id: 'TypedWallet',
  // the options see the class's state
  stream: {
    collections: { wallets: {} },
    toDocuments: (state, id) => [{ collection: 'wallets', id, doc: { balance: state.private.wallet.balance } }],
  },
})
export class TypedWallet {
  @Init({ access: ['program_management_user'] })
  open(ctx: Ctx<WalletState, { opening?: number }>) {
    ctx.state.private.wallet = { balance: ctx.request.body.opening ?? 0, history: [] };
    // @ts-expect-error the body is typed: no such field
    void ctx.request.body.closing;
  }

  @Write({ access: ['enduser'] })
  credit(ctx: Ctx<WalletState, { amount: number }>) {
    const w = ctx.state.private.wallet;
    w.balance += ctx.request.body.amount;
    w.history.push({ amount: ctx.request.body.amount, at: new Date().toISOString() });
    ctx.lookup.set('owner', 'u1');
    ctx.emit('credited', { amount: ctx.request.body.amount });
    // @ts-expect-error state is typed: balance is a number
    w.balance = 'lots';
    return { balance: w.balance };
  }

  @Read({ access: ['enduser', 'class'] })
  balance(ctx: ReadCtx<WalletState>) {
    // @ts-expect-error a READ's state is read-only
    ctx.state.private.wallet.balance = 0;
    // @ts-expect-error ... at any depth
    ctx.state.private.wallet.history.push({ amount: 1, at: '' });
    // @ts-expect-error ... and so are its partitions
    ctx.state.private.wallet = { balance: 0, history: [] };
    // @ts-expect-error a READ cannot set lookup keys
    ctx.lookup.set('owner', 'u2');
    // @ts-expect-error ... nor remove them
    ctx.lookup.remove('owner');
    // @ts-expect-error a READ cannot schedule a task
    ctx.schedule({ method: 'credit', delaySeconds: 1 });
    // @ts-expect-error ... nor queue a write
    void ctx.enqueue('TypedWallet', 'credit', 'w1', { amount: 1 });
    // @ts-expect-error ... nor emit an event
    ctx.emit('read');
    // @ts-expect-error ... nor cause an effect
    void ctx.effect({ classId: 'LogManager', method: 'record', instanceId: 'x' });
    // reading, resolving a lookup key and calling other classes stay open
    void ctx.lookup.resolve('owner', 'u1');
    void ctx.lookup.resolve('staffId', 'E1', 'Member');
    return { balance: ctx.state.private.wallet.balance };
  }

  @Read({ access: ['enduser', 'class'] })
  history(ctx: ReadCtx<WalletState, { limit?: number }>) {
    return { items: ctx.state.private.wallet.history.slice(0, ctx.request.body.limit ?? 10) };
  }

  // @ts-expect-error a READ handler whose context could write does not compile
  @Read({ access: ['enduser'] })
  sneakyRead(ctx: Ctx<WalletState>) {
    ctx.state.private.wallet.balance = 0;
  }

  @Static({ access: ['public'] })
  rates(ctx: StaticCtx<{ currency: string }>) {
    // @ts-expect-error a STATIC has no instance state to write
    ctx.state.private.rate = 1;
    // @ts-expect-error ... nor lookup keys
    ctx.lookup.set('currency', ctx.request.body.currency);
    return { currency: ctx.request.body.currency, rate: 1 };
  }

  // @ts-expect-error a STATIC handler cannot ask for instance state
  @Static({ access: ['public'] })
  sneakyStatic(ctx: ReadCtx<WalletState>) {
    return ctx.state.private.wallet;
  }
}

type OtherState = StateOf<{ other: string }>;

// @ts-expect-error a handler declared for another state than the class's does not fit the class
@ActorClass<WalletState>({ id: 'MixedWallet' })
export class MixedWallet {
  @Write({ access: ['enduser'] })
  credit(ctx: Ctx<OtherState>) {
    ctx.state.private.other = 'x';
  }
}

@ActorClass<WalletState>({
  id: 'OwnedWallet',
  // @ts-expect-error the class options are typed by the class's state
  tenancy: { kind: 'owned', owner: (state) => state.private.wallet.company },
})
export class OwnedWallet {}

/** A caller: the client is typed from the callee's declarations. */
export async function caller(ctx: ReadCtx<WalletState>): Promise<number> {
  const wallets = client<typeof TypedWallet>(ctx, 'TypedWallet');
  const { balance } = await wallets.balance('w1');
  const { items } = await wallets.history('w1', { limit: 5 });
  const credited: { balance: number } = await wallets.credit('w1', { amount: 5 });
  await wallets.rates(undefined, { currency: 'EUR' });
  // @ts-expect-error the answer is typed: balance is a number
  const wrong: string = balance;
  // @ts-expect-error the input is typed: amount is a number
  await wallets.credit('w1', { amount: '5' });
  // @ts-expect-error ... and required
  await wallets.credit('w1');
  // @ts-expect-error only the callee's methods exist
  await wallets.debit('w1', { amount: 5 });
  void wrong;
  return balance + items.length + credited.balance;
}
