/**
 * The membership life cycle (README "Membership life cycle"): the delayed
 * expiry and reminder tasks, renewal (the back office, the member for its
 * card-paid memberships, the company automatically), and the back office's
 * suspension and reinstatement through the workflow. The rules are in
 * ../membership-lifecycle.ts; these handlers read, decide there and write.
 *
 * Tasks carry the end they were scheduled for: a renewal moves the end and
 * schedules new ones, and the old ones, running, find the end moved and do
 * nothing. Each task runs effectively once (the runtime's delayed tasks), so
 * an end is expired or reminded of once.
 */
import { actorFromIdentity, type Actor } from '../../_platform/actor';
import { requestGatedChange, settleGatedChange } from '../../_platform/gated-change';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { inboxOf, notify } from '../../_platform/notify';
import { getCompany, getTier } from '../clients';
import { memberError } from '../errors';
import {
  delayUntil,
  expireMembership,
  expiryDecision,
  findMembership,
  memberStatusAfter,
  moveMembership,
  reminderAt,
  renewMembership as renewRule,
  renewsAutomatically,
  type RenewalBy,
  type SuspensionMove,
} from '../membership-lifecycle';
import { refusalError } from '../memberships';
import { clone, hasActiveMembership, logMemberChange, memberState, type MemberCtx } from '../member-state';
import type { Membership, MemberPrivateState, MemberProfile } from '../types';
import { now, reachable } from './common';
import type { RenewMembershipInput, SuspendMembershipInput } from '../../../schemas/Member/inputs';

export const MEMBERSHIP_SUSPEND_EVENT = 'membership_suspend';
export const MEMBERSHIP_REINSTATE_EVENT = 'membership_reinstate';
export const EXPIRING_TEMPLATE = 'MEMBERSHIP_EXPIRING';
export const EXPIRED_TEMPLATE = 'MEMBERSHIP_EXPIRED';
export const RENEWED_TEMPLATE = 'MEMBERSHIP_RENEWED';

/** the life cycle's configuration (MEMBERSHIP_REMINDER_DAYS) */
export interface LifecycleSettings {
  reminderDays: number;
}

/** the body of the delayed tasks: the membership and the end they were scheduled for */
export interface MembershipTaskBody {
  membershipId: string;
  endDate: string;
}

/** Schedules the expiry task at the membership's end and its reminder `reminderDays` before it (when that lies ahead). */
export function scheduleMembershipTasks(
  ctx: MemberCtx<unknown>,
  m: Pick<Membership, 'id' | 'endDate'>,
  settings: LifecycleSettings,
): void {
  const nowMs = Date.now();
  const body: MembershipTaskBody = { membershipId: m.id, endDate: m.endDate };
  ctx.schedule({ method: 'expireMembership', delaySeconds: delayUntil(m.endDate, nowMs), body });
  const remindAt = reminderAt(m.endDate, settings.reminderDays, nowMs);
  if (remindAt) ctx.schedule({ method: 'remindMembership', delaySeconds: delayUntil(remindAt, nowMs), body });
}

/**
 * Writes one membership's new state on the member: the member's own status
 * follows (memberStatusAfter), and the change is an audit entry of the member.
 */
async function writeMembership(
  ctx: MemberCtx<unknown>,
  index: number,
  next: Membership,
  additionalData: Record<string, unknown>,
): Promise<MemberProfile> {
  const state = memberState(ctx);
  const before = clone(state.profile);
  const memberships = [...before.memberships];
  memberships[index] = next;
  const after: MemberProfile = { ...before, memberships, updatedAt: now() };
  after.status = memberStatusAfter(before.status, hasActiveMembership(before), hasActiveMembership(after));
  state.profile = after;
  await logMemberChange(ctx, before, after, { membershipId: next.id, ...additionalData });
  return after;
}

function tasksOf(state: MemberPrivateState, membershipId: string) {
  state.membershipTasks ??= {};
  return (state.membershipTasks[membershipId] ??= {});
}

async function tell(
  ctx: MemberCtx<unknown>,
  template: string,
  p: MemberProfile,
  m: Membership,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const tier = await getTier(ctx, m.tierId);
  await notify(ctx, template, {
    to: [inboxOf('member', p.id), ...(p.email ? [p.email] : [])],
    parameters: {
      name: p.name ?? '',
      tierName: tier?.name ?? m.tierId,
      endDate: m.endDate.slice(0, 10),
      membershipId: m.id,
      ...extra,
    },
  });
}

/** The membership renewed by `by`, with its new tasks and the member told. */
async function renew(
  ctx: MemberCtx<unknown>,
  membershipId: string,
  by: RenewalBy,
  actor: Actor,
  settings: LifecycleSettings,
  autoRenewal?: readonly string[],
) {
  const p = memberState(ctx).profile;
  const found = findMembership(p.memberships, membershipId);
  if (!found.ok) throw refusalError(found);
  const tier = await getTier(ctx, found.membership.tierId);
  const r = renewRule(found.membership, { by, actor, now: now(), tier, autoRenewal });
  if (!r.ok) return r;
  const after = await writeMembership(ctx, found.index, r.membership, {
    event: 'membership_renew',
    by,
    endDate: r.membership.endDate,
    previousEndDate: found.membership.endDate,
  });
  scheduleMembershipTasks(ctx, r.membership, settings);
  await tell(ctx, RENEWED_TEMPLATE, after, r.membership);
  return { ok: true as const, membership: r.membership, member: after };
}

/** renewMembership (the back office, any payment type) and renewMyMembership (the member, card-paid only). */
export async function renewMembership(
  ctx: MemberCtx<RenewMembershipInput>,
  by: 'member' | 'back_office',
  settings: LifecycleSettings,
) {
  reachable(ctx);
  const r = await renew(ctx, ctx.request.body.membershipId, by, actorFromIdentity(ctx.identity), settings);
  if (!r.ok) throw refusalError(r);
  return { membership: r.membership, memberStatus: r.member.status };
}

/**
 * The expiry task, at the end it was scheduled for: nothing when the
 * membership is gone, no longer live, or its end moved (a renewal scheduled
 * the next task); again at the end when it ran early; else renewed when the
 * company renews its payment type automatically, otherwise expired and the
 * member told.
 */
export async function expireMembershipTask(ctx: MemberCtx<MembershipTaskBody>, settings: LifecycleSettings) {
  const state = memberState(ctx);
  const body = ctx.request.body;
  if (!state.profile) return { outcome: 'none' };
  const found = findMembership(state.profile.memberships, body.membershipId);
  const m = found.ok ? found.membership : undefined;
  let decision = expiryDecision(m, body.endDate, Date.now());
  let autoRenewal: readonly string[] | undefined;
  if (decision === 'expire' && m!.status === 'active' && m!.paymentType !== 'cpg') {
    autoRenewal = (await getCompany(ctx, state.profile.company.id))?.membershipAutoRenewal ?? [];
    decision = expiryDecision(m, body.endDate, Date.now(), autoRenewal);
  }
  if (m) tasksOf(state, m.id).expiryCheck = { endDate: body.endDate, outcome: decision, at: now() };
  if (decision === 'early') {
    ctx.schedule({ method: 'expireMembership', delaySeconds: delayUntil(body.endDate, Date.now()), body });
    return { outcome: decision };
  }
  if (decision === 'renew') {
    const r = await renew(ctx, m!.id, 'automatic', actorFromIdentity(ctx.identity), settings, autoRenewal);
    if (r.ok) return { outcome: 'renewed', endDate: r.membership.endDate };
    // the tier no longer takes renewals (expired, inactive, gone): the membership ends as any other
    ctx.log.info({ membershipId: m!.id, reason: r.message }, 'automatic renewal refused; the membership expires');
    decision = 'expire';
    tasksOf(state, m!.id).expiryCheck = { endDate: body.endDate, outcome: 'expire', at: now() };
  }
  if (decision !== 'expire') return { outcome: decision };
  const expired = expireMembership(m!, now(), actorFromIdentity(ctx.identity));
  const after = await writeMembership(ctx, (found as { index: number }).index, expired, {
    event: 'membership_expire',
    endDate: expired.endDate,
  });
  await tell(ctx, EXPIRED_TEMPLATE, after, expired);
  return { outcome: 'expired' };
}

/** The reminder task: the member is told once, for the end it was scheduled for, while the membership runs to it. */
export async function remindMembershipTask(ctx: MemberCtx<MembershipTaskBody>) {
  const state = memberState(ctx);
  const body = ctx.request.body;
  if (!state.profile) return { sent: false };
  const found = findMembership(state.profile.memberships, body.membershipId);
  if (!found.ok) return { sent: false };
  const m = found.membership as Membership;
  const record = tasksOf(state, m.id);
  if (m.status !== 'active' || m.endDate !== body.endDate || record.remindedFor === body.endDate)
    return { sent: false };
  record.remindedFor = body.endDate;
  const autoRenewal =
    m.paymentType === 'cpg' ? [] : ((await getCompany(ctx, state.profile.company.id))?.membershipAutoRenewal ?? []);
  // template parameters are strings: 'yes' or '' (a mustache section shows for the first only)
  await tell(ctx, EXPIRING_TEMPLATE, state.profile, m, {
    renewsAutomatically: renewsAutomatically(m.paymentType, autoRenewal) ? 'yes' : '',
  });
  return { sent: true };
}

/**
 * suspendMembership / reinstateMembership: the back office asks with a
 * reason; the move is checked now (400 naming membershipId) and goes through
 * the workflow (membership_suspend, membership_reinstate): applied at once
 * when approved at once, else held on the membership until
 * settleMembershipChange. One change at a time per membership (409 5003).
 */
export async function requestMembershipMove(ctx: MemberCtx<SuspendMembershipInput>, move: SuspensionMove) {
  const p = reachable(ctx);
  const state = memberState(ctx);
  const { membershipId, reason } = ctx.request.body;
  const found = findMembership(p.memberships, membershipId);
  if (!found.ok) throw refusalError(found);
  const actor = actorFromIdentity(ctx.identity);
  const at = now();
  const preview = moveMembership(found.membership, move, reason, at, actor);
  if (!preview.ok) throw refusalError(preview);
  const event = move === 'suspend' ? MEMBERSHIP_SUSPEND_EVENT : MEMBERSHIP_REINSTATE_EVENT;
  const pending = state.membershipChanges?.[membershipId];
  const change = await requestGatedChange<Membership>(ctx, {
    event,
    entityId: membershipId,
    oldEntity: clone(found.membership as Membership),
    newEntity: preview.membership,
    pendingApprovalId: pending?.approvalId,
    whilePending: (approvalId) =>
      memberError(
        'APPROVAL_PENDING',
        `Membership ${membershipId} waits for approval ${approvalId} (${pending?.move})`,
        { approvalId, errors: [{ field: 'membershipId', reason: 'waits for an approval' }] },
      ),
    approveCallback: 'settleMembershipChange',
    rejectCallback: 'settleMembershipChange',
    additionalData: { memberId: p.id, membershipId, reason, move },
  });
  if (change.applied) {
    const moved = moveMembership(found.membership, move, reason, at, actor, change.approvalRecord.id);
    if (!moved.ok) throw refusalError(moved);
    await writeMembership(ctx, found.index, moved.membership, { event, reason, approvalId: change.approvalRecord.id });
    return { membership: moved.membership, approval: change.approval, pendingApprovalId: null };
  }
  state.membershipChanges = {
    ...(state.membershipChanges ?? {}),
    [membershipId]: { approvalId: change.approvalId, move, reason, requestedBy: actor, requestedAt: at },
  };
  return { membership: found.membership, approval: change.approval, pendingApprovalId: change.approvalId };
}

/**
 * Approval callback of membership_suspend / membership_reinstate: approve
 * moves the membership as asked when its status still allows it (an
 * expiry or renewal meanwhile drops the change: it no longer fits); reject
 * leaves it. A redelivered callback changes nothing.
 */
export async function settleMembershipChange(ctx: MemberCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const state = memberState(ctx);
  const entry = Object.entries(state.membershipChanges ?? {}).find(([, c]) => c.approvalId === body.approvalId);
  const settled = state.settledMembershipApprovals ?? [];
  const current = entry ? state.profile.memberships.find((m) => m.id === entry[0]) : undefined;
  // the patch is only checked here: an approved move is made again on the membership as it is now (moveMembership)
  const outcome = settleGatedChange(current ?? {}, body, {
    pendingApprovalId: entry?.[1].approvalId,
    lastSettledApprovalId: settled.includes(body.approvalId) ? body.approvalId : null,
    mismatch: () =>
      memberError(
        'APPROVAL_MISMATCH',
        `Member ${ctx.instanceId} has no membership change waiting for approval ${body.approvalId}`,
      ),
  });
  if (outcome.kind === 'settled') return { ignored: true, approvalId: body.approvalId };
  const [membershipId, pending] = entry!;
  const { [membershipId]: _settled, ...rest } = state.membershipChanges ?? {};
  state.membershipChanges = rest;
  state.settledMembershipApprovals = [...settled, body.approvalId].slice(-20);
  const event = pending.move === 'suspend' ? MEMBERSHIP_SUSPEND_EVENT : MEMBERSHIP_REINSTATE_EVENT;
  if (body.action !== 'approve')
    return { approvalId: body.approvalId, action: body.action, membershipId, applied: false };
  const found = findMembership(state.profile.memberships, membershipId);
  if (!found.ok) return { approvalId: body.approvalId, membershipId, applied: false, conflict: found.message };
  const moved = moveMembership(
    found.membership,
    pending.move,
    pending.reason,
    now(),
    pending.requestedBy,
    body.approvalId,
  );
  if (!moved.ok) {
    ctx.log.warn(
      { approvalId: body.approvalId, membershipId, problem: moved.message },
      'approved membership change no longer applies',
    );
    return { approvalId: body.approvalId, membershipId, applied: false, conflict: moved.message };
  }
  await writeMembership(ctx, found.index, moved.membership, {
    event,
    reason: pending.reason,
    approvalId: body.approvalId,
    action: body.action,
  });
  return { approvalId: body.approvalId, membershipId, applied: true, membership: moved.membership };
}
