/**
 * updateTier (event tier_update): name, description (null removes it), fee,
 * startDate, endDate; the tier type cannot change. New dates of a live tier
 * are claimed on its type's schedule when the tier publishes (use-cases/schedule.ts).
 */
import { applyTierUpdate, checkDateRange, sameTier } from '../rules';
import type { UpdateTierInput } from '../../../schemas/Tier/inputs';
import { tierError } from '../errors';
import { answer, guard, now, requestChange, st, type TierCtx } from './common';

export async function updateTier(ctx: TierCtx<UpdateTierInput>) {
  guard(ctx);
  const body = ctx.request.body;
  const tier = st(ctx).tier;
  const dates = checkDateRange(body.startDate ?? tier.startDate, body.endDate ?? tier.endDate);
  if (!dates.ok)
    throw tierError('TIER_INVALID_DATE_RANGE', 'startDate must be before endDate', { errors: dates.problems });
  const requested = applyTierUpdate(tier, body, dates, now());
  if (sameTier(requested, tier)) throw tierError('TIER_NO_CHANGES', `The update changes nothing on tier ${tier.id}`);
  return answer(ctx, await requestChange(ctx, 'tier_update', requested));
}
