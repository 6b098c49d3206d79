/** Test fixture: a write reached through a route alias, with its own error envelope (as the HR endpoints have). */
import { randomUUID } from 'node:crypto';
import { ActorClass, ActorError, Read, Static, Write, type Ctx } from '../../../../runtime';

const ANYONE = ['integration_user'] as const;

/** an external contract's envelope: {ok: false, code, message} */
function envelope(err: ActorError): ActorError {
  return new ActorError(err.status, err.code, err.message, {
    body: { ok: false, code: err.code, message: err.message },
  });
}

@ActorClass({
  id: 'Tally',
  description: 'idempotency fixture',
  routes: [{ method: 'POST', path: '/tallies/:instanceId/add', target: 'add' }],
})
export class Tally {
  /** creates its instance on first use */
  @Write({ access: [...ANYONE], schema: false, upsert: true, errorShape: envelope })
  add(ctx: Ctx) {
    const { by } = (ctx.request.body ?? {}) as { by?: number };
    const s = ctx.state.public as { count?: number };
    s.count = (s.count ?? 0) + (by ?? 1);
    return { ok: true, count: s.count };
  }

  @Read({ access: [...ANYONE], schema: false })
  get(ctx: Ctx) {
    return { count: (ctx.state.public as { count?: number }).count ?? 0 };
  }

  /** a public operation whose answer is a secret of its own (as a sign-in's token is) */
  @Static({ access: ['public'], schema: false })
  issue() {
    return { secret: randomUUID() };
  }
}
