/** Test fixture: a second identity source for program_management_user, which the runtime refuses at start. */
import { ActorClass, Read, type ReadCtx } from '../../../../runtime';

@ActorClass({
  id: 'Staff2',
  description: 'duplicate identity source fixture',
  identitySource: { tokenType: 'program_management_user', method: 'identity' },
})
export class Staff2 {
  @Read({ access: ['class:Staff2'], schema: false })
  identity(_ctx: ReadCtx) {
    return { active: true, roles: [] };
  }
}
