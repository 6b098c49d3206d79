/**
 * The invitation a user gets once its creation is approved (createUser when
 * approved at once, approveUserCreate otherwise): an email/password user
 * gets OTP_PROGRAM_MANAGEMENT_INVITE with a code made by Otp (otpType
 * `invitation`, valid PM_INVITATION_TTL_SECONDS), which acceptInvitation
 * takes with the first password, and a link to the back office's
 * accept-invitation page with the email and code in its fragment; an SSO user gets
 * SSO_USER_INTIVATION_PROGRAM_MANAGEMENT with the back-office address. The
 * mail is committed with the calling change (notify: an effect), so a change
 * that fails sends nothing; the code itself is issued before (Otp answers it
 * once), and an unsent code is simply never used.
 */
import { client } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { notify } from '../../_platform/notify';
import { otpAccepted, otpInstanceId } from '../../_platform/otp';
import type { Otp } from '../../Otp/Otp.class';
import { BACKOFFICE_ROUTES, backOfficeLink, type UserSettings } from '../settings';
import type { ProgramManagementUserRecord } from '../types';
import { CLASS_ID, now, type UserCtx } from './common';
import { requesterDetails } from './requester';

export const INVITE_TEMPLATE = 'OTP_PROGRAM_MANAGEMENT_INVITE';
export const SSO_INVITE_TEMPLATE = 'SSO_USER_INTIVATION_PROGRAM_MANAGEMENT';
/** the Otp type of invitation codes */
export const INVITATION_OTP = 'invitation';

/** Sends the invitation; answers the user with invitedAt set. */
export async function sendInvitation(
  ctx: UserCtx<unknown>,
  user: ProgramManagementUserRecord,
  settings: UserSettings,
): Promise<ProgramManagementUserRecord> {
  if (user.loginMethod === 'email_password') {
    const { token } = otpAccepted(
      await client<typeof Otp>(ctx, 'Otp').issueOtp(otpInstanceId(CLASS_ID, user.id), {
        otpType: INVITATION_OTP,
        tokenType: 'alphanumeric',
        expireTimeInSeconds: settings.invitationTtlSeconds,
        requestedBy: actorFromIdentity(ctx.identity).id,
        requesterDetails: requesterDetails(ctx),
      }),
    );
    const inviteUrl = backOfficeLink(settings.backOfficeUrl, BACKOFFICE_ROUTES.invitation, {
      email: user.email,
      code: token,
    });
    await notify(ctx, INVITE_TEMPLATE, { to: [user.email], parameters: { name: user.name, otp: token, inviteUrl } });
  } else {
    await notify(ctx, SSO_INVITE_TEMPLATE, {
      to: [user.email],
      parameters: { name: user.name, loginUrl: settings.backOfficeUrl },
    });
  }
  return { ...user, invitedAt: now() };
}
