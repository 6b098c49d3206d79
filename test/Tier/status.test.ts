/** The Tier status machine of spec 3.3 (classes/Tier/status.ts), table-driven. */
import { isLive, transition, type StatusTrigger } from '../../classes/Tier/status';
import type { TierStatus } from '../../classes/Tier/types';

type Row = [from: TierStatus | null, trigger: StatusTrigger, expected: TierStatus | string];

const S: TierStatus[] = ['pending', 'active', 'inactive', 'expired'];
const upd = (to: string): StatusTrigger => ({ type: 'update_status', to });

const rows: Row[] = [
  // creation
  [null, { type: 'create' }, 'pending'],
  ['pending', { type: 'create' }, 'TIER_APPROVAL_CONFLICT'],
  // creation approval / rejection
  ['pending', { type: 'approve_create' }, 'active'],
  ['pending', { type: 'reject_create' }, 'inactive'],
  ['active', { type: 'approve_create' }, 'TIER_APPROVAL_CONFLICT'],
  ['inactive', { type: 'reject_create' }, 'TIER_APPROVAL_CONFLICT'],
  ['expired', { type: 'approve_create' }, 'TIER_EXPIRED'],
  ['expired', { type: 'reject_create' }, 'TIER_EXPIRED'],
  [null, { type: 'approve_create' }, 'TIER_APPROVAL_CONFLICT'],
  // updateStatus: active, inactive, pending only; never to the same status; never from expired
  ['pending', upd('active'), 'active'],
  ['pending', upd('inactive'), 'inactive'],
  ['pending', upd('pending'), 'TIER_STATUS_UNCHANGED'],
  ['active', upd('inactive'), 'inactive'],
  ['active', upd('pending'), 'pending'],
  ['active', upd('active'), 'TIER_STATUS_UNCHANGED'],
  ['inactive', upd('active'), 'active'],
  ['inactive', upd('pending'), 'pending'],
  ['inactive', upd('inactive'), 'TIER_STATUS_UNCHANGED'],
  ...S.filter((s) => s !== 'expired').map((s): Row => [s, upd('expired'), 'TIER_STATUS_NOT_SETTABLE']),
  ['active', upd('archived'), 'TIER_STATUS_NOT_SETTABLE'],
  ['expired', upd('active'), 'TIER_EXPIRED'],
  ['expired', upd('inactive'), 'TIER_EXPIRED'],
  ['expired', upd('pending'), 'TIER_EXPIRED'],
  ['expired', upd('expired'), 'TIER_EXPIRED'],
  // the expiry task: any live or inactive tier past its endDate expires; before it, nothing changes
  ['pending', { type: 'expire', endDatePassed: true }, 'expired'],
  ['active', { type: 'expire', endDatePassed: true }, 'expired'],
  ['inactive', { type: 'expire', endDatePassed: true }, 'expired'],
  ['expired', { type: 'expire', endDatePassed: true }, 'expired'],
  ['active', { type: 'expire', endDatePassed: false }, 'active'],
  ['inactive', { type: 'expire', endDatePassed: false }, 'inactive'],
  ['pending', { type: 'expire', endDatePassed: false }, 'pending'],
];

describe('spec 3.3 Tier status machine', () => {
  test.each(rows)('%s --%j--> %s', (from, trigger, expected) => {
    const r = transition(from, trigger);
    if (S.includes(expected as TierStatus)) {
      expect(r).toEqual({ ok: true, to: expected });
    } else {
      expect(r).toMatchObject({ ok: false, error: expected, message: expect.any(String) });
    }
  });

  test('every status and every settable target is covered by the table', () => {
    for (const from of S) {
      for (const to of ['active', 'inactive', 'pending', 'expired']) {
        expect(rows.some(([f, t]) => f === from && t.type === 'update_status' && t.to === to)).toBe(true);
      }
    }
  });

  test.each([
    ['pending', true],
    ['active', true],
    ['inactive', false],
    ['expired', false],
    [null, false],
  ] as const)('%s holds its date range for the overlap rule: %s', (status, live) => {
    expect(isLive(status)).toBe(live);
  });
});
