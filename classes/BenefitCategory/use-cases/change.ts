/**
 * updateCategory and updateCategoryStatus: applied at once (spec 6 names no
 * workflow event for the catalogue) and audit-logged.
 */
import { benefitCategoryError } from '../errors';
import { applyCategoryUpdate, categoryStatusMove } from '../rules';
import type { UpdateCategoryInput, UpdateCategoryStatusInput } from '../../../schemas/BenefitCategory/inputs';
import type { BenefitCategoryRecord } from '../types';
import { logCategory, now, refuseProblems, type CategoryCtx } from './common';

/** name, subcategories, keywords: any of them; a list given replaces the one held. */
export async function updateCategory(ctx: CategoryCtx<UpdateCategoryInput>) {
  const s = ctx.state.private;
  const before = s.category;
  const r = applyCategoryUpdate(before, ctx.request.body, now());
  refuseProblems(r.problems);
  if (!r.changed.length)
    throw benefitCategoryError('BENEFIT_CATEGORY_NO_CHANGES', `The update changes nothing on category ${before.id}`);
  s.category = r.next;
  await logCategory(ctx, before, r.next, { event: 'benefit_category_update', changed: r.changed });
  return { category: r.next };
}

/** `active` ↔ `inactive` (409 18052 for the status it has). */
export async function updateCategoryStatus(ctx: CategoryCtx<UpdateCategoryStatusInput>) {
  const s = ctx.state.private;
  const before = s.category;
  const { status } = ctx.request.body;
  const move = categoryStatusMove(before.status, status);
  if (!move.ok)
    throw benefitCategoryError('BENEFIT_CATEGORY_STATUS_UNCHANGED', `Category ${before.id}: ${move.reason}`, {
      status,
    });
  const next: BenefitCategoryRecord = { ...before, status: move.to, updatedAt: now() };
  s.category = next;
  await logCategory(ctx, before, next, {
    event: 'benefit_category_status_update',
    fromStatus: before.status,
    toStatus: move.to,
  });
  return { category: next };
}
