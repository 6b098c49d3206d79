/**
 * The life cycle of a membership (README "Membership life cycle"), pure: its
 * period arithmetic, renewal, expiry, suspension and reinstatement, and what
 * the member's own status does when its last active membership ends.
 *
 * Statuses (spec 2.1's filter statuses): `active` → `expired` at its end
 * (unless it renews itself), `active` → `suspended` → `active` through the
 * back office's approved suspension and reinstatement; `expired` → `active`
 * by a renewal. `inactive` comes only from the migration import and moves no
 * further here. Each move is kept on the membership as a transition.
 */
import type { DeepReadonly } from '../../runtime';
import type { Actor } from '../_platform/actor';
import { addMonths, paymentSchedule, PERIOD_MONTHS, type Refusal } from './memberships';
import type { Membership, MembershipStatus, MembershipTransition, MemberStatus, PaymentType } from './types';

/** who renews: the member itself, a back-office user, or the expiry task as the company's settings say */
export type RenewalBy = 'member' | 'back_office' | 'automatic';

export const DEFAULT_REMINDER_DAYS = 14;

/** The months one payment period lasts; a period the table does not know (e.g. `once`) lasts a year (own keys only: 'constructor' is an unknown period). */
export function periodMonths(paymentPeriod: string): number {
  const key = paymentPeriod.toLowerCase();
  return Object.hasOwn(PERIOD_MONTHS, key) ? PERIOD_MONTHS[key] : 12;
}

/**
 * The next period of a renewal: from the current end while the membership
 * runs (no gap, no overlap), from now once it has expired; one payment
 * period long, but never past the tier's end.
 */
export function nextPeriod(
  m: Pick<Membership, 'endDate' | 'paymentPeriod' | 'status'>,
  now: string,
  tierEnd: string | null,
): { from: string; to: string } | null {
  const from = m.status === 'expired' && m.endDate < now ? now : m.endDate;
  let to = addMonths(from, periodMonths(m.paymentPeriod));
  if (tierEnd && tierEnd < to) to = tierEnd;
  return to > from ? { from, to } : null;
}

/** The company's setting: which payment types renew automatically. */
export function renewsAutomatically(paymentType: PaymentType, autoRenewal: readonly string[] | undefined): boolean {
  return paymentType !== 'cpg' && (autoRenewal ?? []).includes(paymentType);
}

function refusal(error: Refusal['error'], field: string, message: string, details?: Record<string, unknown>): Refusal {
  return { ok: false, error, field, message, ...(details ? { details } : {}) };
}

/** The membership of `id`, or the refusal naming `membershipId`. */
export function findMembership(
  list: DeepReadonly<Membership[]> | undefined,
  id: string,
): { ok: true; membership: DeepReadonly<Membership>; index: number } | Refusal {
  const index = (list ?? []).findIndex((m) => m.id === id);
  if (index < 0) return refusal('MEMBERSHIP_NOT_FOUND', 'membershipId', `The member has no membership '${id}'`);
  return { ok: true, membership: list![index], index };
}

/**
 * Who may renew which membership: the member only its own self-paid (`cpg`,
 * card) memberships; the back office any; the expiry task the payment types
 * the company renews automatically. Only `active` and `expired` memberships
 * renew (a suspended one is reinstated first; `inactive` is the import's).
 */
export function renewalRefusal(
  m: DeepReadonly<Membership>,
  by: RenewalBy,
  autoRenewal?: readonly string[],
): Refusal | null {
  if (m.status !== 'active' && m.status !== 'expired') {
    return refusal(
      'INVALID_MEMBERSHIP_TRANSITION',
      'membershipId',
      `Membership '${m.id}' is ${m.status}: only active and expired memberships renew${m.status === 'suspended' ? ' (reinstate it first)' : ''}`,
    );
  }
  if (by === 'member' && m.paymentType !== 'cpg') {
    const who = m.paymentType === 'company_paid' ? 'the company pays it' : 'it is paid by salary deduction';
    return refusal(
      'RENEWAL_NOT_ALLOWED',
      'membershipId',
      `Membership '${m.id}' cannot be renewed by the member: ${who}; the back office or the company's automatic renewal renews it`,
      {
        paymentType: m.paymentType,
      },
    );
  }
  if (by === 'automatic' && !renewsAutomatically(m.paymentType, autoRenewal)) {
    return refusal(
      'RENEWAL_NOT_ALLOWED',
      'membershipId',
      `The company does not renew ${m.paymentType} memberships automatically`,
      { paymentType: m.paymentType },
    );
  }
  return null;
}

export interface RenewalContext {
  by: RenewalBy;
  actor: Actor;
  now: string;
  /** the tier as it is now (null: gone) */
  tier: { id: string; status: string; endDate?: string | null; fee?: number | null } | null;
  autoRenewal?: readonly string[];
}

function transition(
  from: MembershipStatus,
  to: MembershipStatus,
  event: MembershipTransition['event'],
  at: string,
  actor: Actor,
  extra: Partial<MembershipTransition> = {},
): MembershipTransition {
  return { at, from, to, event, actor, ...extra };
}

/** The membership renewed for another payment period, or why not. */
export function renewMembership(
  m: DeepReadonly<Membership>,
  c: RenewalContext,
): { ok: true; membership: Membership } | Refusal {
  const refused = renewalRefusal(m, c.by, c.autoRenewal);
  if (refused) return refused;
  if (!c.tier)
    return refusal('TIER_NOT_FOUND', 'membershipId', `Tier '${m.tierId}' of membership '${m.id}' no longer exists`);
  if (c.tier.status !== 'active')
    return refusal(
      'TIER_NOT_ACTIVE',
      'membershipId',
      `Tier '${c.tier.id}' of membership '${m.id}' is ${c.tier.status}: it takes no renewals`,
    );
  const tierEnd =
    c.tier.endDate && !Number.isNaN(Date.parse(c.tier.endDate)) ? new Date(c.tier.endDate).toISOString() : null;
  const period = nextPeriod(m, c.now, tierEnd);
  if (!period)
    return refusal(
      'INVALID_MEMBERSHIP_PERIOD',
      'membershipId',
      `Tier '${c.tier.id}' ends ${tierEnd}: no period is left to renew membership '${m.id}' for`,
    );
  const copy = JSON.parse(JSON.stringify(m)) as Membership;
  const added = paymentSchedule(period.from, period.to, copy.paymentPeriod, c.tier.fee ?? 0, copy.paymentType);
  return {
    ok: true,
    membership: {
      ...copy,
      status: 'active',
      endDate: period.to,
      lastRenewal: c.now,
      paymentSchedule: [...copy.paymentSchedule, ...added],
      transitions: [
        ...(copy.transitions ?? []),
        transition(copy.status, 'active', 'renewed', c.now, c.actor, {
          by: c.by,
          endDate: period.to,
          previousEndDate: copy.endDate,
        }),
      ],
      updatedAt: c.now,
    },
  };
}

/** What the expiry task does when it runs: nothing (not live, or its end moved on), expire it, or renew it. */
export function expiryDecision(
  m: DeepReadonly<Membership> | undefined,
  scheduledFor: string,
  nowMs: number,
  autoRenewal?: readonly string[],
): 'none' | 'moved' | 'early' | 'expire' | 'renew' {
  if (!m || (m.status !== 'active' && m.status !== 'suspended')) return 'none';
  if (m.endDate !== scheduledFor) return 'moved';
  if (Date.parse(m.endDate) > nowMs) return 'early';
  if (m.status === 'active' && renewsAutomatically(m.paymentType, autoRenewal)) return 'renew';
  return 'expire';
}

/** The membership expired at its end (an active or a suspended one). */
export function expireMembership(m: DeepReadonly<Membership>, now: string, actor: Actor): Membership {
  const copy = JSON.parse(JSON.stringify(m)) as Membership;
  return {
    ...copy,
    status: 'expired',
    transitions: [
      ...(copy.transitions ?? []),
      transition(copy.status, 'expired', 'expired', now, actor, { endDate: copy.endDate }),
    ],
    updatedAt: now,
  };
}

/** Suspension (active → suspended) and reinstatement (suspended → active) by the back office, with a reason. */
export type SuspensionMove = 'suspend' | 'reinstate';

const MOVES: Record<
  SuspensionMove,
  { from: MembershipStatus; to: MembershipStatus; event: MembershipTransition['event'] }
> = {
  suspend: { from: 'active', to: 'suspended', event: 'suspended' },
  reinstate: { from: 'suspended', to: 'active', event: 'reinstated' },
};

/** The membership after a suspension or reinstatement, or why it cannot move so (its status, or an end already passed). */
export function moveMembership(
  m: DeepReadonly<Membership>,
  move: SuspensionMove,
  reason: string,
  now: string,
  actor: Actor,
  approvalId?: string,
): { ok: true; membership: Membership } | Refusal {
  const rule = MOVES[move];
  if (m.status !== rule.from) {
    return refusal(
      'INVALID_MEMBERSHIP_TRANSITION',
      'membershipId',
      `Membership '${m.id}' is ${m.status}: only ${rule.from} memberships can be ${rule.event}`,
    );
  }
  if (move === 'reinstate' && m.endDate <= now) {
    return refusal(
      'INVALID_MEMBERSHIP_TRANSITION',
      'membershipId',
      `Membership '${m.id}' ended ${m.endDate}: renew it instead`,
    );
  }
  const copy = JSON.parse(JSON.stringify(m)) as Membership;
  return {
    ok: true,
    membership: {
      ...copy,
      status: rule.to,
      transitions: [
        ...(copy.transitions ?? []),
        transition(copy.status, rule.to, rule.event, now, actor, { reason, ...(approvalId ? { approvalId } : {}) }),
      ],
      updatedAt: now,
    },
  };
}

/**
 * The member's own status when its memberships change. A member that was
 * `active` and has no active membership left (the last one expired or was
 * suspended) goes back to `pending_tier`, the status spec 3.1 gives a member
 * waiting for a tier; one that gets an active membership again (renewal,
 * reinstatement, a new membership) leaves `pending_tier` for `active`. Every
 * other status (inactive, suspended, rejected, the onboarding ones) is the
 * back office's or onboarding's and stays as it is.
 */
export function memberStatusAfter(status: MemberStatus, hadActive: boolean, hasActive: boolean): MemberStatus {
  if (status === 'active' && hadActive && !hasActive) return 'pending_tier';
  if (status === 'pending_tier' && hasActive) return 'active';
  return status;
}

/**
 * When the reminder of a period goes out: `leadDays` before its end, or null
 * when that moment has passed already (a membership made or renewed inside
 * the lead time gets no reminder for that period: it was just decided on).
 */
export function reminderAt(endDate: string, leadDays: number, nowMs: number): string | null {
  if (!(leadDays > 0)) return null;
  const at = Date.parse(endDate) - leadDays * 86_400_000;
  return at > nowMs ? new Date(at).toISOString() : null;
}

/** MEMBERSHIP_REMINDER_DAYS: days before a membership's end its member is told (default 14; 0 sends none; fractions allowed). */
export function reminderDaysFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.MEMBERSHIP_REMINDER_DAYS?.trim();
  if (!raw) return DEFAULT_REMINDER_DAYS;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 365)
    throw new Error(`MEMBERSHIP_REMINDER_DAYS must be a number of days from 0 to 365, got '${raw}'`);
  return n;
}

/** Seconds from now until `iso` (0 when past). */
export function delayUntil(iso: string, nowMs: number): number {
  return Math.max(0, (Date.parse(iso) - nowMs) / 1000);
}
