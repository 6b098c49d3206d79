/**
 * createCategory (INIT): a category of the given name, subcategories and
 * keywords, `active` unless the body says `inactive`. Spec 6 names no event
 * for the catalogue: the creation applies at once (and is audit-logged).
 */
import { idProblems } from '../../_platform/catalogue';
import { buildCategory } from '../rules';
import type { CreateCategoryInput } from '../../../schemas/BenefitCategory/inputs';
import { logCategory, now, refuseProblems, type CategoryCtx } from './common';

/**
 * The new instance's id (InitOptions.instanceId): the path's when the call
 * names one, else the body's `id`; neither: the runtime's UUID. The handler
 * then refuses a body `id` that is not that id.
 */
export function instanceIdOf(req: { body?: unknown; path?: { instanceId?: string } }): string | undefined {
  if (req.path?.instanceId) return req.path.instanceId;
  const id = (req.body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

export async function createCategory(ctx: CategoryCtx<CreateCategoryInput>) {
  const body = ctx.request.body;
  const id = ctx.instanceId!;
  refuseProblems(idProblems(id, body.id));
  const built = buildCategory(body, id, now());
  refuseProblems(built.problems);
  ctx.state.private.category = built.category;
  await logCategory(ctx, null, built.category, { event: 'benefit_category_create' });
  ctx.response.status = 201;
  return { category: built.category };
}
