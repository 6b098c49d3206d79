/** Test fixture: a method that takes form-encoded bodies (formBody) and one that does not. */
import { ActorClass, Static, type StaticCtx } from '../../../../runtime';

const ANYONE = ['public'] as const;

@ActorClass({ id: 'FormEcho', description: 'form body fixture' })
export class FormEcho {
  @Static({ access: [...ANYONE], schema: false, formBody: true })
  echoForm(ctx: StaticCtx<Record<string, unknown>>) {
    const body = ctx.request.body;
    return { fields: { ...body }, nullPrototype: Object.getPrototypeOf(body) === null };
  }

  @Static({ access: [...ANYONE], schema: false })
  echoJson(ctx: StaticCtx<Record<string, unknown>>) {
    return { fields: { ...ctx.request.body } };
  }
}
