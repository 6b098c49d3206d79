/** Test fixture: a class whose own sensitive fields must be masked in what its handlers log. */
import { ActorClass, Static, type StaticCtx } from '../../../../runtime';

@ActorClass({ id: 'Secretive', description: 'log masking fixture', sensitiveFields: ['cardNumber', 'pin'] })
export class Secretive {
  @Static({ access: ['integration_user'], schema: false })
  logBody(ctx: StaticCtx<Record<string, unknown>>) {
    ctx.log.info({ body: ctx.request.body, cardNumber: ctx.request.body.cardNumber }, 'secretive body');
    return { logged: true };
  }
}
