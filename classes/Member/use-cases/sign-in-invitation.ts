/**
 * Invitations (spec 3.1, 4.5):
 *
 *   sendInviteEmail                 WRITE, program management → `pending_invite` → `pending_invitation_acceptance`
 *                                   (or a re-send in that status) for an `email_password` member with an active
 *                                   membership: a new invitation token (Otp `invitation`, a UUID valid
 *                                   MEMBER_INVITATION_TTL_SECONDS, superseding the one before) mailed, committed
 *                                   with the change → {id, status, invitation: {sentTo, expiresAt}}; 429 6001
 *                                   past Otp's otpLimit
 *   inviteRedirect ?token=          STATIC, public → an HTML page sending the browser on to the member application
 *                                   (MEMBER_APP_URL, route `invitation`, the token in the fragment; unset: the
 *                                   service's own page, pages/member-pages.ts); a token that is no invitation
 *                                   token is 400 5028, or a page saying so in words for a browser
 *   acceptInvitation {token, password}  WRITE, public, on the member → `active` with its first password
 *                                   → {id, status}; 401 5037 for any token that is not this member's live
 *                                   invitation, 400 5038 for a password the policy refuses (its rules that need
 *                                   no account before the token is checked, leaving it usable; the member's
 *                                   email and names only after it matched, so a wrong token tells nothing of
 *                                   them, which spends the token), 429 6002 past Otp's retryLimit
 *   restartInvitation               QUEUED_WRITE, Member only: discoverAuthMethod's fresh invitation for an invited
 *                                   member without a password
 *
 * The mail carries the link token `<memberId>.<secret>` (sign-in-rules linkToken) as the template's `otp`, and
 * `inviteUrl` (inviteRedirect with the token) and `name` for a template that shows them.
 */
import { client } from '../../../runtime';
import { hashPassword } from '../../_platform/passwords';
import { notify } from '../../_platform/notify';
import type { RequesterDetails } from '../../Otp/Otp.class';
import { isOtpLimit, otpAccepted, otpInstanceId } from '../../_platform/otp';
import type { Otp } from '../../Otp/Otp.class';
import { fieldError, memberError } from '../errors';
import {
  clone,
  hasActiveMembership,
  logMemberChange,
  memberState,
  profileOf,
  type MemberCtx,
  type MemberStaticCtx,
  type NoBody,
} from '../member-state';
import {
  APP_ROUTES,
  appLink,
  INVALID_LINK_PAGE_HEADERS,
  invalidLinkPage,
  inviteRedirectLink,
  linkToken,
  mayRestartInvitation,
  PAGE_HEADERS,
  parseLinkToken,
  prefersHtml,
  redirectPage,
  type SignInSettings,
} from '../sign-in-rules';
import { selfRegistrationCase } from '../registration-rules';
import { nextMemberStatus } from '../status-machine';
import { heldRegistration } from './registration';
import type { StartSelfRegistrationBody } from './self-registration';
import type { MemberProfile } from '../types';
import { now, reachable } from './common';
import {
  checkContextFreePasswordPolicy,
  claimable,
  checkPasswordPolicy,
  CLASS_ID,
  INVITATION_OTP,
  INVITATION_TEMPLATE,
  invalidCode,
  memberActor,
  requesterDetails,
  signInView,
  throttleAccount,
  throttleAddress,
} from './sign-in-common';
import type {
  AcceptInvitationInput,
  InviteRedirectInput,
  RestartInvitationInput,
} from '../../../schemas/Member/inputs';

/** A new invitation token for the member, mailed as an effect of the calling change (429 6001 past Otp's otpLimit). */
async function issueInvitation(
  ctx: MemberCtx<unknown>,
  p: MemberProfile,
  settings: SignInSettings,
  requestedBy: string,
  requester: RequesterDetails,
) {
  const issued = otpAccepted(
    await client<typeof Otp>(ctx, 'Otp').issueOtp(otpInstanceId(CLASS_ID, p.id), {
      otpType: INVITATION_OTP,
      tokenType: 'uuid',
      expireTimeInSeconds: settings.invitationTtlSeconds,
      requestedBy,
      requesterDetails: requester,
    }),
  );
  const token = linkToken(p.id, issued.token);
  const inviteUrl = inviteRedirectLink(settings.publicUrl, ctx.projectId, token);
  await notify(ctx, INVITATION_TEMPLATE, { to: [p.email!], parameters: { otp: token, name: p.name ?? '', inviteUrl } });
  return { sentTo: p.email!, expiresAt: issued.otp.expiresAt };
}

export async function sendInviteEmail(ctx: MemberCtx<NoBody>, settings: SignInSettings) {
  const p = reachable(ctx);
  const r = nextMemberStatus(p.status, {
    type: 'sendInviteEmail',
    loginMethod: p.loginMethod,
    hasActiveMembership: hasActiveMembership(p),
  });
  if (!r.ok) throw fieldError(r.error, 'status', r.message, { status: p.status });
  if (!p.email) throw fieldError('INVALID_INPUT', 'email', 'The member has no email address to send the invitation to');
  const invitation = await issueInvitation(ctx, p, settings, ctx.identity.userId ?? 'system', requesterDetails(ctx));
  if (r.changed) {
    const before = clone(p);
    p.status = r.to;
    p.updatedAt = now();
    await logMemberChange(ctx, before, p, { source: 'send_invite_email' });
  }
  return { id: p.id, status: p.status, invitation };
}

/** QUEUED_WRITE (from discoverAuthMethod): a fresh invitation for an invited member without a password; nothing otherwise. */
export async function restartInvitation(ctx: MemberCtx<RestartInvitationInput>, settings: SignInSettings) {
  const state = memberState(ctx);
  const p = state.profile;
  if (p?.email && (selfRegistrationCase(heldRegistration(state)) === 'resume' || claimable(p, state))) {
    // a self-registration stopped half-way, or a member who never had a password and waits for no invitation (a
    // dependant): a registration code lets it in (self-registration.ts)
    ctx.schedule({
      method: 'startSelfRegistration',
      body: { email: p.email, requesterDetails: ctx.request.body.requesterDetails } satisfies StartSelfRegistrationBody,
      delaySeconds: 0,
    });
    return { sent: false, selfRegistration: true };
  }
  if (!p || !mayRestartInvitation(signInView(p, state))) return { sent: false };
  // the conditions of a re-send (spec 3.1): still an active membership
  const r = nextMemberStatus(p.status, {
    type: 'sendInviteEmail',
    loginMethod: p.loginMethod,
    hasActiveMembership: hasActiveMembership(p),
  });
  if (!r.ok) return { sent: false };
  try {
    await issueInvitation(ctx, p, settings, ctx.request.body.requestedBy, ctx.request.body.requesterDetails);
  } catch (err) {
    // past Otp's otpLimit: nothing sent (the caller was answered long ago)
    if (isOtpLimit(err, 'OTP_LIMIT_EXCEEDED')) return { sent: false, reason: 'otp_limit_exceed' };
    throw err;
  }
  return { sent: true };
}

export async function inviteRedirect(ctx: MemberStaticCtx<InviteRedirectInput>, settings: SignInSettings) {
  await throttleAddress(ctx, 'inviteRedirect');
  const link = parseLinkToken(ctx.request.body.token);
  if (!link) {
    // a person who opened a damaged link reads a sentence; a program gets the error as any call's
    if (prefersHtml(ctx.request.headers?.accept)) {
      const body = invalidLinkPage(appLink(settings.appUrl, APP_ROUTES.invitation, {}));
      ctx.response = { status: 400, headers: { ...INVALID_LINK_PAGE_HEADERS }, body };
      return body;
    }
    throw fieldError('INVALID_INPUT', 'token', 'is not an invitation token');
  }
  const target = appLink(settings.appUrl, APP_ROUTES.invitation, { token: linkToken(link.memberId, link.secret) });
  const body = redirectPage(target);
  ctx.response = { status: 200, headers: { ...PAGE_HEADERS }, body };
  return body;
}

export async function acceptInvitation(ctx: MemberCtx<AcceptInvitationInput>) {
  await throttleAddress(ctx, 'acceptInvitation');
  await throttleAccount(ctx, 'acceptInvitation', ctx.instanceId!);
  const state = memberState(ctx);
  const p = profileOf(ctx);
  const view = signInView(p, state);
  const { token, password } = ctx.request.body;
  const link = parseLinkToken(token);
  const invalid = () => invalidCode('The invitation is not valid: ask for a new one');
  if (
    !link ||
    link.memberId !== p.id ||
    p.status !== 'pending_invitation_acceptance' ||
    p.loginMethod !== 'email_password'
  )
    throw invalid();
  // before the token is spent: a password refused by the rules that need no account leaves the invitation usable
  checkContextFreePasswordPolicy(password);
  const check = otpAccepted(
    await client<typeof Otp>(ctx, 'Otp').verifyOtp(otpInstanceId(CLASS_ID, p.id), {
      otpType: INVITATION_OTP,
      token: link.secret,
      requestedBy: p.id,
      requesterDetails: requesterDetails(ctx),
    }),
  );
  if (!check.isSuccessful) throw invalid();
  // the rules with the member's email and names only now: before the token matched, their refusal would confirm
  // a guess of them to anyone with the member's id. The match spent the token: a refusal here means a new
  // invitation (a re-send, or discoverAuthMethod's restart).
  checkPasswordPolicy(password, view);
  const r = nextMemberStatus(p.status, { type: 'acceptInvitation', validToken: true });
  if (!r.ok) throw memberError(r.error, r.message);
  // the member's own instance is held while its first password is hashed (spec 4.5 makes this a WRITE):
  // only after the throttles, the policy and a live invitation token, so nobody can make it hash at will
  const passwordHash = await hashPassword(password);
  const at = now();
  const before = clone(p);
  p.status = r.to;
  p.updatedAt = at;
  state.credentials = { passwordHash, passwordChangedAt: at };
  await logMemberChange(ctx, before, p, { source: 'accept_invitation' }, memberActor(p.id));
  return { id: p.id, status: p.status };
}
