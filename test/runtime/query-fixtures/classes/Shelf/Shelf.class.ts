/** Test fixture: GET methods whose input is their query, coerced to the schema (or as given without one). */
import { ActorClass, ActorError, Read, Static, type ReadCtx, type StaticCtx } from '../../../../../runtime';

const ANYONE = ['integration_user'] as const;

@ActorClass({ id: 'Shelf', description: 'query input fixture' })
export class Shelf {
  /** answers its input as the handler receives it */
  @Static({ access: [...ANYONE] })
  list(ctx: StaticCtx) {
    return { input: ctx.request.body, prototype: Object.getPrototypeOf(ctx.request.body) === null };
  }

  /** the same input, refused with the class's own error */
  @Static({
    access: [...ANYONE],
    schema: 'list',
    onValidationError: (errors) => new ActorError(400, 4711, 'Invalid shelf query', { details: { errors } }),
  })
  listOwnError(ctx: StaticCtx) {
    return { input: ctx.request.body };
  }

  @Static({ access: [...ANYONE], schema: false })
  unchecked(ctx: StaticCtx) {
    return { input: ctx.request.body };
  }

  @Read({ access: [...ANYONE], schema: 'list', emptyWhenMissing: true })
  read(ctx: ReadCtx) {
    return { input: ctx.request.body };
  }
}
