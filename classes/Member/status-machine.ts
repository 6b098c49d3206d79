/**
 * The member status machine of spec 3.1, as one pure function.
 *
 *   const r = nextMemberStatus('pending_id_photo', { type: 'idPhotoUploaded', hasActiveMembership: true });
 *   if (r.ok) profile.status = r.to;        // 'active'
 *
 * Every row of the 3.1 table is one trigger here. A move that the table does
 * not allow answers `{ok: false, error, message}`; the handler turns it into
 * its error. `effects` names the "Also" column for the caller to carry out.
 *
 * Choices where the spec says "not shown" or "unchanged by this rule":
 *  - creation approval with `sso`: the rule does not set a status, so the
 *    member goes on to the onboarding status it needs (`pending_id_photo`
 *    without an ID photo, `pending_tier` without an active membership, else
 *    `active`) instead of staying `pending_approval` for ever.
 *  - the HR employee update with status `active` leaves any status other than
 *    `inactive` as it is; the HR dependant update with 'Active' likewise.
 */
import { MEMBER_STATUSES, SYSTEM_ONLY_STATUSES, type LoginMethod, type MemberStatus } from './types';

export type StatusTrigger =
  | { type: 'creationApproved'; loginMethod: LoginMethod; hasIdPhoto: boolean; hasActiveMembership: boolean }
  /**
   * not a 3.1 row (spec: not shown): an employee registering themselves has proved their email with a code and
   * sets their password at once, so no invitation: they start onboarding where an invited member would after it
   */
  | { type: 'selfRegistered'; hasIdPhoto: boolean; hasActiveMembership: boolean }
  | { type: 'sendInviteEmail'; loginMethod: LoginMethod; hasActiveMembership: boolean }
  | { type: 'acceptInvitation'; validToken: boolean }
  | { type: 'singleSignOn'; authorised: boolean }
  | { type: 'idPhotoUploaded'; hasActiveMembership: boolean }
  | { type: 'updateMemberStatus'; target: string }
  /** not a 3.1 row (spec: not shown): a member waiting for its tier is done with onboarding once it has one */
  | { type: 'membershipAdded' }
  | { type: 'hrEmployeeUpdate'; hrStatus: 'active' | 'inactive' | 'terminated' }
  | { type: 'hrDependantUpdate'; hrStatus: 'active' | 'in-active' };

export type StatusEffect =
  'send_invitation' | 'new_otp_token' | 'welcome_email' | 'set_password' | 'issue_jwt' | 'run_workflow';

export type StatusResult =
  | { ok: true; to: MemberStatus; changed: boolean; effects: StatusEffect[] }
  | { ok: false; error: 'INVALID_STATUS_TRANSITION' | 'SYSTEM_ONLY_STATUS'; message: string };

export function isMemberStatus(value: unknown): value is MemberStatus {
  return typeof value === 'string' && (MEMBER_STATUSES as readonly string[]).includes(value);
}

export function isSystemOnlyStatus(value: string): boolean {
  return (SYSTEM_ONLY_STATUSES as readonly string[]).includes(value);
}

function ok(from: MemberStatus | null, to: MemberStatus, effects: StatusEffect[] = []): StatusResult {
  return { ok: true, to, changed: from !== to, effects };
}

function refuse(from: MemberStatus | null, trigger: StatusTrigger, why: string): StatusResult {
  return {
    ok: false,
    error: 'INVALID_STATUS_TRANSITION',
    message: `${trigger.type} cannot move a member from '${from ?? '(new)'}': ${why}`,
  };
}

/** The onboarding status a member without pending steps reaches. */
export function onboardingStatus(hasIdPhoto: boolean, hasActiveMembership: boolean): MemberStatus {
  if (!hasIdPhoto) return 'pending_id_photo';
  if (!hasActiveMembership) return 'pending_tier';
  return 'active';
}

/**
 * Where a member goes from `from` on `trigger` (spec 3.1). `from` is null for
 * a member being created.
 */
export function nextMemberStatus(from: MemberStatus | null, trigger: StatusTrigger): StatusResult {
  switch (trigger.type) {
    case 'creationApproved':
      if (trigger.loginMethod === 'email_password') return ok(from, 'pending_invite');
      return ok(from, onboardingStatus(trigger.hasIdPhoto, trigger.hasActiveMembership), ['welcome_email']);

    case 'selfRegistered':
      if (from !== null) return refuse(from, trigger, 'only a member being created registers itself');
      return ok(from, onboardingStatus(trigger.hasIdPhoto, trigger.hasActiveMembership), ['set_password', 'issue_jwt']);

    case 'sendInviteEmail': {
      if (from !== 'pending_invite' && from !== 'pending_invitation_acceptance') {
        return refuse(
          from,
          trigger,
          'invitations are sent to members in pending_invite or pending_invitation_acceptance',
        );
      }
      if (trigger.loginMethod !== 'email_password')
        return refuse(from, trigger, 'the login method is not email_password');
      if (!trigger.hasActiveMembership) return refuse(from, trigger, 'the member has no active membership');
      return ok(
        from,
        'pending_invitation_acceptance',
        from === 'pending_invite' ? ['send_invitation', 'new_otp_token'] : ['new_otp_token', 'send_invitation'],
      );
    }

    case 'acceptInvitation':
      if (from !== 'pending_invitation_acceptance')
        return refuse(from, trigger, 'no invitation is waiting for acceptance');
      if (!trigger.validToken) return refuse(from, trigger, 'the invitation token is not valid');
      return ok(from, 'active', ['set_password']);

    case 'singleSignOn':
      if (from !== 'pending_invitation_acceptance')
        return refuse(from, trigger, 'no invitation is waiting for acceptance');
      if (!trigger.authorised) return refuse(from, trigger, 'the SAML response does not authorise the member');
      return ok(from, 'active', ['issue_jwt']);

    case 'idPhotoUploaded':
      if (from !== 'pending_id_photo') return ok(from, from ?? 'pending_id_photo');
      return ok(from, trigger.hasActiveMembership ? 'active' : 'pending_tier');

    case 'updateMemberStatus': {
      if (!isMemberStatus(trigger.target)) {
        return { ok: false, error: 'INVALID_STATUS_TRANSITION', message: `'${trigger.target}' is not a member status` };
      }
      if (isSystemOnlyStatus(trigger.target)) {
        return {
          ok: false,
          error: 'SYSTEM_ONLY_STATUS',
          message: `'${trigger.target}' is set by the system only and cannot be set manually`,
        };
      }
      return ok(from, trigger.target, ['run_workflow']);
    }

    case 'membershipAdded':
      return ok(from, from === 'pending_tier' ? 'active' : (from ?? 'pending_tier'));

    case 'hrEmployeeUpdate':
      if (trigger.hrStatus === 'terminated' || trigger.hrStatus === 'inactive') return ok(from, 'inactive');
      if (from === 'inactive') return ok(from, 'active');
      return ok(from, from ?? 'active');

    case 'hrDependantUpdate':
      if (trigger.hrStatus === 'in-active') return ok(from, 'inactive');
      if (from === 'inactive' || from === null) return ok(from, 'active');
      return ok(from, from);
  }
}
