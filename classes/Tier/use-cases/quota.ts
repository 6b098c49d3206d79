/**
 * Places under eligibility rule quotas (quota.ts), taken by Member when it
 * grants a membership under a rule with a quota, and given back when that
 * membership was never committed.
 */
import { client, isUnknownInstance, type InstanceState, type ReadCtx } from '../../../runtime';
import { claimPlace, releasePlace } from '../quota';
import { tierError } from '../errors';
import { now, st, type TierCtx } from './common';

/** claimQuotaPlace's and confirmQuotaPlace's body */
export interface QuotaPlaceBody {
  ruleId: string;
  membershipId: string;
  memberId: string;
}

/** after this long the tier asks the member whether the membership holding a place was committed */
export const QUOTA_CONFIRM_SECONDS = 120;

/** INTERNAL, class:Member: a place for the membership under its rule; 409 7018 when every place is taken. */
export function claimQuotaPlace(ctx: TierCtx<QuotaPlaceBody>) {
  const s = st(ctx);
  const { ruleId, membershipId, memberId } = ctx.request.body;
  const r = claimPlace(s.tier.eligibilityRules ?? [], s.quotaPlaces ?? [], { ruleId, membershipId, memberId }, now());
  if (!r.ok) {
    if (r.reason === 'rule_not_found')
      throw tierError('TIER_RULE_NOT_FOUND', `Tier ${s.tier.id} has no eligibility rule ${ruleId}`, { ruleId });
    throw tierError(
      'TIER_QUOTA_FULL',
      `Every place under eligibility rule ${ruleId} of tier ${s.tier.id} is taken (quota ${r.quota})`,
      { ruleId, quota: r.quota },
    );
  }
  if (r.taken) {
    s.quotaPlaces = r.places;
    // committed with the place: given back unless the membership shows up on the member
    ctx.schedule({
      method: 'confirmQuotaPlace',
      body: { ruleId, membershipId, memberId } satisfies QuotaPlaceBody,
      delaySeconds: QUOTA_CONFIRM_SECONDS,
    });
  }
  return { ruleId, membershipId, remaining: r.remaining };
}

/** What Member answers of a membership (Member.holdsMembership). */
type MemberReader = abstract new () => {
  holdsMembership(ctx: ReadCtx<InstanceState, { membershipId: string }>): { held: boolean; pending: boolean };
};

/**
 * INTERNAL, class:Tier (the task claimQuotaPlace schedules): the place is
 * given back when its member does not hold the membership (the member's
 * change that took it failed or was rejected, or the member is gone); kept
 * when it does, and asked again later while the change adding it waits for
 * its approval.
 */
export async function confirmQuotaPlace(ctx: TierCtx<QuotaPlaceBody>) {
  const s = st(ctx);
  const { membershipId, memberId } = ctx.request.body;
  if (!(s.quotaPlaces ?? []).some((p) => p.membershipId === membershipId)) return { kept: false, released: false };
  let held = { held: false, pending: false };
  try {
    held = await client<MemberReader>(ctx, 'Member').holdsMembership(memberId, { membershipId });
  } catch (err) {
    if (!isUnknownInstance(err)) throw err;
  }
  if (held.pending) {
    // the change adding it waits for an approval: asked again later, and given back if it was rejected
    ctx.schedule({ method: 'confirmQuotaPlace', body: ctx.request.body, delaySeconds: QUOTA_CONFIRM_SECONDS });
    return { kept: true, released: false, waiting: true };
  }
  if (held.held) return { kept: true, released: false };
  s.quotaPlaces = releasePlace(s.quotaPlaces ?? [], membershipId);
  return { kept: false, released: true };
}
