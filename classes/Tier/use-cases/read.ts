/** Reading a tier (getTier) and projecting it again (streamTier). */
import type { ReadCtx } from '../../../runtime';
import { quotaUse } from '../quota';
import type { TierClassState } from '../types';
import { now, st, type TierCtx } from './common';

/** The tier (spec 2.3) and the approval it waits for. */
export function getTier(ctx: ReadCtx<TierClassState, Record<string, never>>) {
  const s = ctx.state.private;
  return {
    tier: s.tier,
    pendingApproval: s.pendingApproval ?? null,
    quota: quotaUse(s.tier.eligibilityRules ?? [], s.quotaPlaces ?? []),
  };
}

/**
 * Tier's own READ as a typed client of another tier sees it
 * (`client<TierReader>(ctx, 'Tier')`): typed from the handler the class
 * delegates to, so a use case reading another tier does not import the class
 * file that imports it (no import cycle).
 */
export type TierReader = abstract new () => { getTier: typeof getTier };

/** Projects the tier to the document database again (a changed state is what makes the runtime project it). */
export function streamTier(ctx: TierCtx) {
  const s = st(ctx);
  s.streamedAt = now();
  return { tier: s.tier, pendingApproval: s.pendingApproval ?? null, streamedAt: s.streamedAt };
}
