/** The membership life cycle's pure rules (classes/Member/membership-lifecycle.ts). */
import {
  expireMembership,
  expiryDecision,
  memberStatusAfter,
  moveMembership,
  nextPeriod,
  periodMonths,
  reminderAt,
  reminderDaysFrom,
  renewalRefusal,
  renewMembership,
} from '../../classes/Member/membership-lifecycle';
import type { Membership, PaymentType } from '../../classes/Member/types';

const SYSTEM = { type: 'system', name: 'test' } as const;
const PM = { type: 'program_management_user', id: 'pm1' } as never;

function membership(over: Partial<Membership> = {}): Membership {
  return {
    id: 'm1',
    tierId: 'gold',
    tierGroup: 'base',
    status: 'active',
    paymentType: 'cpg',
    eligibilityRuleId: 'r1',
    paymentPeriod: 'monthly',
    startDate: '2026-01-31T00:00:00.000Z',
    endDate: '2026-03-31T00:00:00.000Z',
    paymentSchedule: [],
    lastRenewal: null,
    createdBy: SYSTEM as never,
    createdAt: '2026-01-31T00:00:00.000Z',
    updatedAt: '2026-01-31T00:00:00.000Z',
    ...over,
  };
}

const TIER = { id: 'gold', status: 'active', endDate: '2099-01-01T00:00:00.000Z', fee: 10 };

describe('period arithmetic', () => {
  test.each([
    ['monthly', 1],
    ['Quarterly', 3],
    ['semi_annual', 6],
    ['yearly', 12],
    ['once', 12],
    ['constructor', 12],
  ])('%s lasts %d months', (period, months) => expect(periodMonths(period)).toBe(months));

  test('an active membership renews from its end, clamped to the month (no gap, no overlap)', () => {
    expect(nextPeriod(membership(), '2026-03-01T00:00:00.000Z', null)).toEqual({
      from: '2026-03-31T00:00:00.000Z',
      to: '2026-04-30T00:00:00.000Z',
    });
  });

  test('an expired membership renews from now', () => {
    const m = membership({ status: 'expired', paymentPeriod: 'quarterly' });
    expect(nextPeriod(m, '2026-05-10T00:00:00.000Z', null)).toEqual({
      from: '2026-05-10T00:00:00.000Z',
      to: '2026-08-10T00:00:00.000Z',
    });
  });

  test("never past the tier's end; nothing when the tier ends before", () => {
    expect(nextPeriod(membership(), '2026-03-01T00:00:00.000Z', '2026-04-10T00:00:00.000Z')!.to).toBe(
      '2026-04-10T00:00:00.000Z',
    );
    expect(nextPeriod(membership(), '2026-03-01T00:00:00.000Z', '2026-03-31T00:00:00.000Z')).toBeNull();
  });
});

describe('who renews what', () => {
  const cases: [PaymentType, 'member' | 'back_office' | 'automatic', string[], boolean][] = [
    ['cpg', 'member', [], true],
    ['dds', 'member', ['dds'], false],
    ['company_paid', 'member', ['company_paid'], false],
    ['cpg', 'back_office', [], true],
    ['dds', 'back_office', [], true],
    ['company_paid', 'back_office', [], true],
    ['company_paid', 'automatic', ['company_paid'], true],
    ['company_paid', 'automatic', ['dds'], false],
    ['dds', 'automatic', ['dds'], true],
    ['dds', 'automatic', [], false],
    ['cpg', 'automatic', ['company_paid', 'dds'], false],
  ];
  test.each(cases)('%s by %s with company setting %j: allowed %s', (paymentType, by, setting, allowed) => {
    const r = renewalRefusal(membership({ paymentType }), by, setting);
    expect(r === null).toBe(allowed);
    if (r) expect(r).toMatchObject({ error: 'RENEWAL_NOT_ALLOWED', field: 'membershipId' });
  });

  test.each(['suspended', 'inactive'] as const)('a %s membership does not renew', (status) => {
    expect(renewalRefusal(membership({ status }), 'back_office')).toMatchObject({
      error: 'INVALID_MEMBERSHIP_TRANSITION',
      field: 'membershipId',
    });
  });
});

describe('renewal', () => {
  test('moves the end by one payment period, records the renewal and adds the period payments', () => {
    const r = renewMembership(membership(), { by: 'member', actor: PM, now: '2026-03-20T00:00:00.000Z', tier: TIER });
    if (!r.ok) throw new Error(r.message);
    expect(r.membership).toMatchObject({
      status: 'active',
      endDate: '2026-04-30T00:00:00.000Z',
      lastRenewal: '2026-03-20T00:00:00.000Z',
    });
    expect(r.membership.paymentSchedule).toEqual([{ dueDate: '2026-03-31T00:00:00.000Z', amount: 10 }]);
    expect(r.membership.transitions).toEqual([
      {
        at: '2026-03-20T00:00:00.000Z',
        from: 'active',
        to: 'active',
        event: 'renewed',
        actor: PM,
        by: 'member',
        endDate: '2026-04-30T00:00:00.000Z',
        previousEndDate: '2026-03-31T00:00:00.000Z',
      },
    ]);
  });

  test('an expired membership becomes active again', () => {
    const r = renewMembership(membership({ status: 'expired' }), {
      by: 'back_office',
      actor: PM,
      now: '2026-05-01T00:00:00.000Z',
      tier: TIER,
    });
    expect(r).toMatchObject({ ok: true, membership: { status: 'active', endDate: '2026-06-01T00:00:00.000Z' } });
  });

  test('a tier that is gone or not active takes no renewal', () => {
    expect(
      renewMembership(membership(), { by: 'back_office', actor: PM, now: '2026-03-01T00:00:00.000Z', tier: null }),
    ).toMatchObject({ error: 'TIER_NOT_FOUND' });
    expect(
      renewMembership(membership(), {
        by: 'back_office',
        actor: PM,
        now: '2026-03-01T00:00:00.000Z',
        tier: { ...TIER, status: 'expired' },
      }),
    ).toMatchObject({ error: 'TIER_NOT_ACTIVE', field: 'membershipId' });
  });
});

describe('expiry', () => {
  const end = '2026-03-31T00:00:00.000Z';
  const at = (iso: string) => Date.parse(iso);
  test.each([
    ['no membership', undefined, end, '2026-04-01T00:00:00.000Z', [], 'none'],
    ['already expired', membership({ status: 'expired' }), end, '2026-04-01T00:00:00.000Z', [], 'none'],
    [
      'end moved by a renewal',
      membership({ endDate: '2026-04-30T00:00:00.000Z' }),
      end,
      '2026-04-01T00:00:00.000Z',
      [],
      'moved',
    ],
    ['task early', membership(), end, '2026-03-30T00:00:00.000Z', [], 'early'],
    ['end reached', membership(), end, end, [], 'expire'],
    [
      'suspended at its end',
      membership({ status: 'suspended', paymentType: 'company_paid' }),
      end,
      end,
      ['company_paid'],
      'expire',
    ],
    ['company renews it', membership({ paymentType: 'company_paid' }), end, end, ['company_paid'], 'renew'],
    ['company renews others', membership({ paymentType: 'dds' }), end, end, ['company_paid'], 'expire'],
  ] as const)('%s', (_name, m, scheduledFor, now, setting, want) => {
    expect(expiryDecision(m, scheduledFor, at(now), setting)).toBe(want);
  });

  test('expireMembership records the move', () => {
    const e = expireMembership(membership(), '2026-03-31T00:00:01.000Z', SYSTEM as never);
    expect(e.status).toBe('expired');
    expect(e.transitions).toEqual([
      { at: '2026-03-31T00:00:01.000Z', from: 'active', to: 'expired', event: 'expired', actor: SYSTEM, endDate: end },
    ]);
  });
});

describe('suspension and reinstatement', () => {
  const now = '2026-03-01T00:00:00.000Z';
  test('active → suspended → active, with the reason and the approval', () => {
    const s = moveMembership(membership(), 'suspend', 'unpaid', now, PM, 'a1');
    if (!s.ok) throw new Error(s.message);
    expect(s.membership.status).toBe('suspended');
    expect(s.membership.transitions![0]).toMatchObject({
      from: 'active',
      to: 'suspended',
      event: 'suspended',
      reason: 'unpaid',
      approvalId: 'a1',
    });
    const r = moveMembership(s.membership, 'reinstate', 'paid', now, PM);
    expect(r).toMatchObject({ ok: true, membership: { status: 'active' } });
  });

  test('refusals name membershipId', () => {
    expect(moveMembership(membership({ status: 'expired' }), 'suspend', 'x', now, PM)).toMatchObject({
      error: 'INVALID_MEMBERSHIP_TRANSITION',
      field: 'membershipId',
    });
    expect(moveMembership(membership(), 'reinstate', 'x', now, PM)).toMatchObject({
      error: 'INVALID_MEMBERSHIP_TRANSITION',
      field: 'membershipId',
    });
    // a suspended membership whose end has passed is renewed, not reinstated
    expect(
      moveMembership(membership({ status: 'suspended' }), 'reinstate', 'x', '2026-04-01T00:00:00.000Z', PM),
    ).toMatchObject({ error: 'INVALID_MEMBERSHIP_TRANSITION' });
  });
});

describe("the member's status", () => {
  test.each([
    ['active', true, false, 'pending_tier'],
    ['active', true, true, 'active'],
    ['pending_tier', false, true, 'active'],
    ['inactive', true, false, 'inactive'],
    ['suspended', true, false, 'suspended'],
    ['pending_invite', true, false, 'pending_invite'],
    ['pending_id_photo', false, true, 'pending_id_photo'],
    ['active', false, false, 'active'],
  ] as const)('%s, had active %s, has active %s → %s', (status, had, has, want) => {
    expect(memberStatusAfter(status, had, has)).toBe(want);
  });
});

describe('reminder', () => {
  const now = Date.parse('2026-03-01T00:00:00.000Z');
  test('lead days before the end, none once that has passed or with 0 days', () => {
    expect(reminderAt('2026-03-31T00:00:00.000Z', 14, now)).toBe('2026-03-17T00:00:00.000Z');
    expect(reminderAt('2026-03-10T00:00:00.000Z', 14, now)).toBeNull();
    expect(reminderAt('2026-03-31T00:00:00.000Z', 0, now)).toBeNull();
  });

  test('MEMBERSHIP_REMINDER_DAYS: default 14, fractions allowed, nonsense refused', () => {
    expect(reminderDaysFrom({})).toBe(14);
    expect(reminderDaysFrom({ MEMBERSHIP_REMINDER_DAYS: '0.5' })).toBe(0.5);
    expect(reminderDaysFrom({ MEMBERSHIP_REMINDER_DAYS: '0' })).toBe(0);
    expect(() => reminderDaysFrom({ MEMBERSHIP_REMINDER_DAYS: 'soon' })).toThrow(/MEMBERSHIP_REMINDER_DAYS/);
    expect(() => reminderDaysFrom({ MEMBERSHIP_REMINDER_DAYS: '-1' })).toThrow(/MEMBERSHIP_REMINDER_DAYS/);
  });
});
