/** getCategory (READ): the category. */
import type { CategoryReadCtx } from './common';

export function getCategory(ctx: CategoryReadCtx) {
  return { category: ctx.state.private.category };
}
