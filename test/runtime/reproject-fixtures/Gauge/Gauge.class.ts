/**
 * Test fixture for reproject and the projector lag: a streamed class whose
 * projection can be made to fail (`poisoned`), so the projector stays behind
 * on its outbox entries until a later write clears it.
 */
import { ActorClass, Init, Static, Write, type Ctx } from '../../../../runtime';

const ANYONE = ['integration_user'] as const;

interface GaugeState {
  value?: number;
  poisoned?: boolean;
}

@ActorClass({
  id: 'Gauge',
  description: 'reproject fixture',
  stream: {
    collections: { gauges: { indexes: [{ keys: { value: 1 } }] } },
    toDocuments: (state, id) => {
      const s = state.public as GaugeState;
      if (s.poisoned) throw new Error(`gauge ${id} is poisoned: its projection fails`);
      return [{ collection: 'gauges', id, doc: { value: s.value ?? 0 } }];
    },
  },
})
export class Gauge {
  @Init({ access: [...ANYONE], schema: false })
  init(ctx: Ctx) {
    const { value } = (ctx.request.body ?? {}) as { value?: number };
    (ctx.state.public as GaugeState).value = value ?? 0;
    return { value: value ?? 0 };
  }

  @Write({ access: [...ANYONE], schema: false })
  set(ctx: Ctx) {
    const { value, poisoned } = (ctx.request.body ?? {}) as GaugeState;
    const s = ctx.state.public as GaugeState;
    if (value !== undefined) s.value = value;
    s.poisoned = poisoned === true;
    return { value: s.value };
  }

  @Static({ access: [...ANYONE], schema: false })
  async list(ctx: Ctx) {
    return ctx.documents.find('gauges', {}, { sort: { _id: 1 }, limit: 100 });
  }
}
