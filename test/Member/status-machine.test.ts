/** Spec 3.1 member status machine: every row of the table, plus the refusals. */
import { isSystemOnlyStatus, nextMemberStatus, type StatusTrigger } from '../../classes/Member/status-machine';
import { MEMBER_STATUSES, type MemberStatus } from '../../classes/Member/types';

type Row = [string, MemberStatus | null, StatusTrigger, MemberStatus];

const ROWS: Row[] = [
  // (member creation) → approveMember after creation approval
  [
    'creation approved, email_password → pending_invite',
    null,
    { type: 'creationApproved', loginMethod: 'email_password', hasIdPhoto: false, hasActiveMembership: false },
    'pending_invite',
  ],
  [
    'creation approved from pending_approval, email_password → pending_invite',
    'pending_approval',
    { type: 'creationApproved', loginMethod: 'email_password', hasIdPhoto: true, hasActiveMembership: true },
    'pending_invite',
  ],
  [
    'creation approved, sso, no photo → pending_id_photo (onboarding)',
    'pending_approval',
    { type: 'creationApproved', loginMethod: 'sso', hasIdPhoto: false, hasActiveMembership: false },
    'pending_id_photo',
  ],
  [
    'creation approved, sso, photo, no membership → pending_tier',
    'pending_approval',
    { type: 'creationApproved', loginMethod: 'sso', hasIdPhoto: true, hasActiveMembership: false },
    'pending_tier',
  ],
  [
    'creation approved, sso, photo and membership → active',
    'pending_approval',
    { type: 'creationApproved', loginMethod: 'sso', hasIdPhoto: true, hasActiveMembership: true },
    'active',
  ],
  // pending_invite → sendInviteEmail
  [
    'invite sent',
    'pending_invite',
    { type: 'sendInviteEmail', loginMethod: 'email_password', hasActiveMembership: true },
    'pending_invitation_acceptance',
  ],
  [
    'invite re-sent',
    'pending_invitation_acceptance',
    { type: 'sendInviteEmail', loginMethod: 'email_password', hasActiveMembership: true },
    'pending_invitation_acceptance',
  ],
  ['invitation accepted', 'pending_invitation_acceptance', { type: 'acceptInvitation', validToken: true }, 'active'],
  ['single sign-on', 'pending_invitation_acceptance', { type: 'singleSignOn', authorised: true }, 'active'],
  [
    'ID photo with an active membership',
    'pending_id_photo',
    { type: 'idPhotoUploaded', hasActiveMembership: true },
    'active',
  ],
  [
    'ID photo without an active membership',
    'pending_id_photo',
    { type: 'idPhotoUploaded', hasActiveMembership: false },
    'pending_tier',
  ],
  [
    'ID photo of an active member changes no status',
    'active',
    { type: 'idPhotoUploaded', hasActiveMembership: false },
    'active',
  ],
  // HR employee update
  ['HR terminated from active', 'active', { type: 'hrEmployeeUpdate', hrStatus: 'terminated' }, 'inactive'],
  ['HR inactive from pending_tier', 'pending_tier', { type: 'hrEmployeeUpdate', hrStatus: 'inactive' }, 'inactive'],
  ['HR terminated from suspended', 'suspended', { type: 'hrEmployeeUpdate', hrStatus: 'terminated' }, 'inactive'],
  ['HR active on inactive (reactivation)', 'inactive', { type: 'hrEmployeeUpdate', hrStatus: 'active' }, 'active'],
  [
    'HR active leaves pending_invite',
    'pending_invite',
    { type: 'hrEmployeeUpdate', hrStatus: 'active' },
    'pending_invite',
  ],
  ['HR active leaves suspended', 'suspended', { type: 'hrEmployeeUpdate', hrStatus: 'active' }, 'suspended'],
  // HR dependant update
  ["HR dependant 'Active' on inactive", 'inactive', { type: 'hrDependantUpdate', hrStatus: 'active' }, 'active'],
  ["HR dependant 'In-Active' from active", 'active', { type: 'hrDependantUpdate', hrStatus: 'in-active' }, 'inactive'],
  [
    "HR dependant 'In-Active' from pending_id_photo",
    'pending_id_photo',
    { type: 'hrDependantUpdate', hrStatus: 'in-active' },
    'inactive',
  ],
  [
    "HR dependant 'Active' leaves pending_tier",
    'pending_tier',
    { type: 'hrDependantUpdate', hrStatus: 'active' },
    'pending_tier',
  ],
  ["HR dependant created 'Active'", null, { type: 'hrDependantUpdate', hrStatus: 'active' }, 'active'],
  // not a 3.1 row (our choice): a first membership ends onboarding for a member waiting for its tier
  ['membership added to pending_tier', 'pending_tier', { type: 'membershipAdded' }, 'active'],
  ['membership added to pending_invite', 'pending_invite', { type: 'membershipAdded' }, 'pending_invite'],
  // not a 3.1 row (our choice): an employee who registered themselves starts onboarding, no invitation
  [
    'self-registered → pending_id_photo',
    null,
    { type: 'selfRegistered', hasIdPhoto: false, hasActiveMembership: false },
    'pending_id_photo',
  ],
  [
    'self-registered with a photo → pending_tier',
    null,
    { type: 'selfRegistered', hasIdPhoto: true, hasActiveMembership: false },
    'pending_tier',
  ],
];

test('selfRegistered moves only a member being created', () => {
  const r = nextMemberStatus('pending_invite', {
    type: 'selfRegistered',
    hasIdPhoto: false,
    hasActiveMembership: false,
  });
  expect(r).toMatchObject({ ok: false, error: 'INVALID_STATUS_TRANSITION' });
  expect(
    nextMemberStatus(null, { type: 'selfRegistered', hasIdPhoto: false, hasActiveMembership: false }),
  ).toMatchObject({ ok: true, effects: ['set_password', 'issue_jwt'] });
});

describe('allowed moves (spec 3.1 rows)', () => {
  test.each(ROWS)('%s', (_name, from, trigger, to) => {
    const r = nextMemberStatus(from, trigger);
    expect(r).toMatchObject({ ok: true, to, changed: from !== to });
  });
});

describe('updateMemberStatus: any status to any settable status', () => {
  const SETTABLE = MEMBER_STATUSES.filter((s) => !isSystemOnlyStatus(s));
  const cases = MEMBER_STATUSES.flatMap((from) => SETTABLE.map((target) => [from, target] as const));
  test.each(cases)('%s → %s', (from, target) => {
    expect(nextMemberStatus(from, { type: 'updateMemberStatus', target })).toMatchObject({
      ok: true,
      to: target,
      effects: ['run_workflow'],
    });
  });

  test('settable statuses are exactly the five non-system ones', () => {
    expect(SETTABLE).toEqual(['pending_approval', 'active', 'inactive', 'suspended', 'rejected']);
  });

  const SYSTEM = ['pending_invite', 'pending_invitation_acceptance', 'pending_id_photo', 'pending_tier'] as const;
  test.each(SYSTEM)('the system-only status %s is refused', (target) => {
    for (const from of MEMBER_STATUSES) {
      expect(nextMemberStatus(from, { type: 'updateMemberStatus', target })).toMatchObject({
        ok: false,
        error: 'SYSTEM_ONLY_STATUS',
      });
    }
  });

  test('an unknown status is refused', () => {
    expect(nextMemberStatus('active', { type: 'updateMemberStatus', target: 'deleted' })).toMatchObject({
      ok: false,
      error: 'INVALID_STATUS_TRANSITION',
    });
  });
});

describe('refused moves', () => {
  const REFUSED: [string, MemberStatus | null, StatusTrigger][] = [
    [
      'invite from active',
      'active',
      { type: 'sendInviteEmail', loginMethod: 'email_password', hasActiveMembership: true },
    ],
    [
      'invite without an active membership',
      'pending_invite',
      { type: 'sendInviteEmail', loginMethod: 'email_password', hasActiveMembership: false },
    ],
    [
      'invite for an sso member',
      'pending_invite',
      { type: 'sendInviteEmail', loginMethod: 'sso', hasActiveMembership: true },
    ],
    ['accept without a valid token', 'pending_invitation_acceptance', { type: 'acceptInvitation', validToken: false }],
    ['accept when no invitation waits', 'pending_invite', { type: 'acceptInvitation', validToken: true }],
    ['sso without authorisation', 'pending_invitation_acceptance', { type: 'singleSignOn', authorised: false }],
    ['sso when no invitation waits', 'active', { type: 'singleSignOn', authorised: true }],
  ];
  test.each(REFUSED)('%s', (_name, from, trigger) => {
    expect(nextMemberStatus(from, trigger)).toMatchObject({ ok: false, error: 'INVALID_STATUS_TRANSITION' });
  });
});
