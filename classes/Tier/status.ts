/**
 * The Tier status machine (spec 3.3), pure.
 *
 *   (none)   --createTier-------------------------> pending
 *   pending  --tier_create approved---------------> active
 *   pending  --tier_create rejected---------------> inactive   (our choice: a refused tier frees its date range)
 *   pending|active|inactive --updateStatus(s)-----> s           (s in active, inactive, pending; s ≠ current; through workflow)
 *   pending|active|inactive --expire, endDate passed--> expired (scheduled task; no workflow: system transition)
 *   expired  --anything---------------------------> refused     (expired is final)
 *
 * updateStatus may not set `expired` (spec 2.3 UpdatableTierStatus).
 */
import type { TierErrorName } from './errors';
import { UPDATABLE_TIER_STATUSES, type TierStatus } from './types';

export type StatusTrigger =
  | { type: 'create' }
  | { type: 'approve_create' }
  | { type: 'reject_create' }
  | { type: 'update_status'; to: string }
  | { type: 'expire'; endDatePassed: boolean };

export type TransitionResult = { ok: true; to: TierStatus } | { ok: false; error: TierErrorName; message: string };

const refuse = (error: TierErrorName, message: string): TransitionResult => ({ ok: false, error, message });

export function transition(from: TierStatus | null, trigger: StatusTrigger): TransitionResult {
  if (trigger.type === 'create') {
    return from === null ? { ok: true, to: 'pending' } : refuse('TIER_APPROVAL_CONFLICT', 'the tier exists already');
  }
  if (from === null) return refuse('TIER_APPROVAL_CONFLICT', 'the tier does not exist');
  if (from === 'expired') {
    if (trigger.type === 'expire') return { ok: true, to: 'expired' };
    return refuse('TIER_EXPIRED', 'the tier has expired; expired tiers cannot change');
  }
  switch (trigger.type) {
    case 'approve_create':
      return from === 'pending'
        ? { ok: true, to: 'active' }
        : refuse('TIER_APPROVAL_CONFLICT', `a tier in status ${from} cannot be approved as created`);
    case 'reject_create':
      return from === 'pending'
        ? { ok: true, to: 'inactive' }
        : refuse('TIER_APPROVAL_CONFLICT', `a tier in status ${from} cannot be rejected as created`);
    case 'update_status': {
      const to = trigger.to;
      if (!(UPDATABLE_TIER_STATUSES as readonly string[]).includes(to)) {
        return refuse(
          'TIER_STATUS_NOT_SETTABLE',
          `status '${to}' cannot be set; allowed: ${UPDATABLE_TIER_STATUSES.join(', ')}`,
        );
      }
      if (to === from) return refuse('TIER_STATUS_UNCHANGED', `the tier is already ${from}`);
      return { ok: true, to: to as TierStatus };
    }
    case 'expire':
      return { ok: true, to: trigger.endDatePassed ? 'expired' : from };
  }
}

/** Statuses that hold a date range for the overlap rule (README "Overlap rule"). */
export const LIVE_STATUSES: readonly TierStatus[] = ['pending', 'active'];

export function isLive(status: TierStatus | undefined | null): boolean {
  return !!status && LIVE_STATUSES.includes(status);
}
