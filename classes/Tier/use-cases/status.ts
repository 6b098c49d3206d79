/**
 * updateStatus (event tier_status_update): active, inactive or pending;
 * expired is set by the expiry task only. A move to a live status claims the
 * tier's range when the tier publishes (use-cases/schedule.ts).
 */
import { tierError } from '../errors';
import { transition } from '../status';
import type { Tier as TierRecord } from '../types';
import { answer, guard, now, requestChange, st, type TierCtx } from './common';

export async function updateStatus(ctx: TierCtx<{ status: string }>) {
  const { status } = ctx.request.body;
  const tier = st(ctx).tier;
  const move = transition(tier.status, { type: 'update_status', to: status });
  if (!move.ok) throw tierError(move.error, move.message, { from: tier.status, to: status });
  guard(ctx);
  const requested: TierRecord = { ...tier, status: move.to, updatedAt: now() };
  return answer(
    ctx,
    await requestChange(ctx, 'tier_status_update', requested, { fromStatus: tier.status, toStatus: move.to }),
  );
}
