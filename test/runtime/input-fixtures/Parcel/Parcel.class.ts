/** Test fixture: methods with their own body limits (MethodOptions.bodyLimit), through CALL and route aliases. */
import { ActorClass, ActorError, Static, Write, type Ctx } from '../../../../runtime';

const ANYONE = ['integration_user'] as const;

const size = (ctx: Ctx) => ({ bytes: JSON.stringify(ctx.request.body ?? null).length });

/** an external contract's envelope: {ok: false, code, message} */
function envelope(err: ActorError): ActorError {
  return new ActorError(err.status === 413 ? 400 : err.status, err.code, err.message, {
    body: { ok: false, code: err.code, message: err.message },
  });
}

@ActorClass({
  id: 'Parcel',
  description: 'body limit fixture',
  routes: [
    { method: 'POST', path: '/parcels/small', target: 'small' },
    { method: 'POST', path: '/parcels/shaped', target: 'shaped' },
    { method: 'POST', path: '/parcels/:instanceId/note', target: 'note' },
  ],
})
export class Parcel {
  @Static({ access: [...ANYONE], schema: false, bodyLimit: '1kb' })
  small(ctx: Ctx) {
    return size(ctx);
  }

  @Static({ access: [...ANYONE], schema: false, bodyLimit: '1kb', errorShape: envelope })
  shaped(ctx: Ctx) {
    return size(ctx);
  }

  /** no limit of its own: BODY_LIMIT */
  @Static({ access: [...ANYONE], schema: false })
  plain(ctx: Ctx) {
    return size(ctx);
  }

  /** a limit above BODY_LIMIT: BODY_LIMIT still holds */
  @Static({ access: [...ANYONE], schema: false, bodyLimit: '100mb' })
  huge(ctx: Ctx) {
    return size(ctx);
  }

  /** reached through a route alias with a path parameter; creates its instance */
  @Write({ access: [...ANYONE], schema: false, upsert: true, bodyLimit: 1024 })
  note(ctx: Ctx) {
    ctx.state.public.note = ctx.request.body;
    return size(ctx);
  }
}
