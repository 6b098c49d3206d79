/**
 * What BenefitCategory's use cases share: the handlers' context types, the
 * 400 of input the schema cannot judge, and the audit entry of a change.
 */
import type { Ctx, FieldError, ReadCtx, StaticCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { benefitCategoryError } from '../errors';
import type { BenefitCategoryClassState, BenefitCategoryRecord } from '../types';
import { problemsText } from '../../_platform/paging';

/** a BenefitCategory write's context: one category's state, and the method's body `I` */
export type CategoryCtx<I = Record<string, never>> = Ctx<BenefitCategoryClassState, I>;
/** a BenefitCategory READ's context */
export type CategoryReadCtx<I = Record<string, never>> = ReadCtx<BenefitCategoryClassState, I>;
/** a BenefitCategory STATIC's context */
export type CategoryStaticCtx<I = Record<string, never>> = StaticCtx<I>;

/** entity type of the audit entries */
export const ENTITY_TYPE = 'benefitCategory';

export const now = (): string => new Date().toISOString();

/** 400 18050 naming each field, when there are problems. */
export function refuseProblems(problems: readonly FieldError[]): void {
  if (!problems.length) return;
  throw benefitCategoryError('BENEFIT_CATEGORY_INVALID_INPUT', `Invalid category: ${problemsText(problems)}`, {
    errors: problems,
  });
}

/** The audit entry of a change (nothing personal in a category); `updatedAt` is not logged. */
export async function logCategory(
  ctx: CategoryCtx<unknown>,
  before: BenefitCategoryRecord | null,
  after: BenefitCategoryRecord,
  additionalData: Record<string, unknown>,
): Promise<void> {
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: after.id,
    before,
    after,
    ignore: ['updatedAt'],
    additionalData,
  });
}
