/**
 * Memberships (spec 4.5): addMembership (member_update), listMemberships; and a
 * member choosing its own tier (listMyTierChoices, chooseTier: the onboarding
 * step of pending_tier, README "Choosing a tier").
 */
import { randomUUID } from 'node:crypto';
import { actorFromIdentity } from '../../_platform/actor';
import { claimQuotaPlace, getTier, getTierWithQuota, listActiveTierIds, type TierRecord } from '../clients';
import { freeFamilyMemberIds } from '../family';
import type { AddMembershipInput, ChooseTierInput, ListMembershipsInput } from '../../../schemas/Member/inputs';
import { membershipListQuery, pageAnswer } from '../listing-rules';
import { memberState, type MemberCtx, type MemberReadCtx } from '../member-state';
import { filterMemberships, newMembership, refusalError, tierOptions } from '../memberships';
import { memberError } from '../errors';
import { nextMemberStatus } from '../status-machine';
import type { MemberProfile } from '../types';
import { MEMBER_UPDATE_EVENT, now, reachable, refuseWhilePending, requireCompany } from './common';
import type { hrPrimaryFamily } from './family';
import { changeProfile } from './profile-change';
import { scheduleMembershipTasks, type LifecycleSettings } from './membership-lifecycle';
import { members } from './self-client';

export async function addMembership(
  ctx: MemberCtx<AddMembershipInput>,
  settings: LifecycleSettings,
  input: AddMembershipInput = ctx.request.body,
) {
  const p = reachable(ctx);
  const state = memberState(ctx);
  refuseWhilePending(state);
  const company = await requireCompany(ctx, p.company.id);
  const found = await getTierWithQuota(ctx, input.tierId);
  let dependantIsFree = false;
  if (p.primaryMemberId && input.paymentType === 'company_paid') {
    const { familyMembers } = await members<{ hrPrimaryFamily: typeof hrPrimaryFamily }>(ctx).hrPrimaryFamily(
      p.primaryMemberId,
    );
    dependantIsFree = freeFamilyMemberIds(company, familyMembers).includes(p.id);
  }
  const quota = found?.quota ?? [];
  const r = newMembership({
    profile: p,
    company,
    tier: found?.tier ?? null,
    input,
    dependantIsFree,
    quota,
    actor: actorFromIdentity(ctx.identity),
    now: now(),
    id: randomUUID(),
  });
  if (!r.ok) throw refusalError(r);
  const ruleId = r.membership.eligibilityRuleId;
  // the place is the tier's to count (its writes are exclusive): taken before this change commits, and given back
  // by the tier if the membership never shows up here
  if (
    ruleId &&
    quota.some((q) => q.ruleId === ruleId) &&
    !(await claimQuotaPlace(ctx, input.tierId, { ruleId, membershipId: r.membership.id, memberId: p.id }))
  ) {
    throw refusalError({
      ok: false,
      error: 'QUOTA_FULL',
      field: 'tierId',
      message: `Every place under eligibility rule '${ruleId}' of tier '${input.tierId}' is taken`,
    });
  }
  const requested: MemberProfile = { ...p, memberships: [...(p.memberships ?? []), r.membership], updatedAt: now() };
  const moved = nextMemberStatus(p.status, { type: 'membershipAdded' });
  if (moved.ok) requested.status = moved.to;
  const out = await changeProfile(ctx, requested, MEMBER_UPDATE_EVENT, {
    section: 'memberships',
    membershipId: r.membership.id,
  });
  if (out.pendingApprovalId && state.pendingChange) state.pendingChange.membershipId = r.membership.id;
  // also while the change waits for its approval: a task finding no such membership (or another end) does nothing
  scheduleMembershipTasks(ctx, r.membership, settings);
  return { membership: r.membership, ...out };
}

/**
 * Does the member hold the membership, or a change adding it that waits for
 * its approval (`pending`)? (READ, class:Tier: a quota place's confirmation)
 */
export function holdsMembership(ctx: MemberReadCtx<{ membershipId: string }>) {
  const state = memberState(ctx);
  const { membershipId } = ctx.request.body;
  if (state.profile?.memberships?.some((m) => m.id === membershipId)) return { held: true, pending: false };
  const pending = state.pendingChange?.membershipId === membershipId;
  return { held: pending, pending };
}

export async function listMemberships(ctx: MemberReadCtx<ListMembershipsInput>) {
  const p = reachable(ctx);
  const page = membershipListQuery(ctx.request.body);
  const all = filterMemberships(p.memberships ?? [], {
    tierId: page.tierId,
    tierGroup: page.tierGroup,
    status: page.status,
  });
  const slice = all.slice(page.skip, page.skip + page.limit);
  const tiers = new Map<string, TierRecord | null>();
  for (const id of new Set(slice.map((m) => m.tierId))) tiers.set(id, await getTier(ctx, id));
  const waiting = memberState(ctx).membershipChanges ?? {};
  const memberships = slice.map((m) => {
    const t = tiers.get(m.tierId);
    const pending = waiting[m.id];
    return {
      ...m,
      transitions: m.transitions ?? [],
      // a suspension or reinstatement waiting for its approval
      pendingChange: pending
        ? {
            approvalId: pending.approvalId,
            move: pending.move,
            reason: pending.reason,
            requestedAt: pending.requestedAt,
          }
        : null,
      tierName: t?.name ?? null,
      tierType: t?.tierType ?? null,
      fee: t?.fee ?? null,
    };
  });
  return pageAnswer('memberships', memberships, all.length, page);
}

/** member statuses that choose a tier themselves: onboarding's last step, and an active member adding one */
const CHOOSING_STATUSES: readonly string[] = ['pending_tier', 'active'];

/**
 * The active tiers the member may take itself, each with the ways it may
 * (tierOptions: payment type, the eligibility rule it falls under, period).
 * The tiers come from the listing, and each is read again from its instance
 * and judged by the rules addMembership applies, so what is offered is what
 * chooseTier admits at that moment.
 */
export async function listMyTierChoices(ctx: MemberReadCtx) {
  const p = reachable(ctx);
  const company = await requireCompany(ctx, p.company.id);
  const at = now();
  const tiers = [];
  for (const id of await listActiveTierIds(ctx)) {
    const found = await getTierWithQuota(ctx, id);
    if (!found) continue;
    const { tier, quota } = found;
    const options = tierOptions({
      profile: p as MemberProfile,
      company,
      tier,
      quota,
      dependantIsFree: false,
      actor: actorFromIdentity(ctx.identity),
      now: at,
    });
    if (!options.length) continue;
    tiers.push({
      id: tier.id,
      name: tier.name,
      description: tier.description ?? null,
      tierType: tier.tierType,
      fee: tier.fee,
      startDate: tier.startDate,
      endDate: tier.endDate,
      options,
    });
  }
  return { memberStatus: p.status, tiers };
}

/**
 * The member takes a tier itself: addMembership's rules and workflow
 * (member_update) with a payment type of its own (never company_paid), for a
 * member in pending_tier (which the membership makes active) or active; 400
 * 5001 for any other status (a member still waiting for its photo chooses
 * once the photo is in).
 */
export async function chooseTier(ctx: MemberCtx<ChooseTierInput>, settings: LifecycleSettings) {
  const p = reachable(ctx);
  if (!CHOOSING_STATUSES.includes(p.status)) {
    throw memberError(
      'INVALID_STATUS_TRANSITION',
      `A member chooses a tier while pending_tier or active; this member is ${p.status}`,
      { status: p.status },
    );
  }
  const { tierId, paymentType } = ctx.request.body;
  return addMembership(ctx, settings, { tierId, paymentType });
}
