/**
 * The scheduled expiry task (README "Expiry"): expires the tier once endDate
 * has passed, else waits for the (moved) endDate. A system transition outside
 * the workflow, audit-logged with additionalData.event = tier_expire.
 */
import { transition } from '../status';
import type { Tier as TierRecord } from '../types';
import { ensureExpiry, logTierChange, now, st, type TierCtx } from './common';

export async function expire(ctx: TierCtx) {
  const s = st(ctx);
  s.expiryCheckAt = null;
  const before = s.tier;
  if (before.status === 'expired') return { status: before.status, expired: false };
  const move = transition(before.status, { type: 'expire', endDatePassed: Date.parse(before.endDate) <= Date.now() });
  if (!move.ok || move.to !== 'expired') {
    ensureExpiry(ctx);
    return { status: before.status, expired: false, nextCheckAt: s.expiryCheckAt };
  }
  const after: TierRecord = { ...before, status: 'expired', updatedAt: now() };
  s.tier = after;
  await logTierChange(ctx, before, after, { event: 'tier_expire', endDate: after.endDate });
  return { status: after.status, expired: true };
}
