/** Test fixture: a class that projects no documents (reproject refuses it). */
import { ActorClass, Read, type Ctx } from '../../../../runtime';

@ActorClass({ id: 'Plain', description: 'a class without a projection' })
export class Plain {
  @Read({ access: ['integration_user'], schema: false })
  get(ctx: Ctx) {
    return ctx.state.public;
  }
}
