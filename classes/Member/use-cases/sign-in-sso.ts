/**
 * singleSignOn (STATIC, public; spec 4.5, 3.1, 5): the identity provider POSTs
 * its SAML response here (the assertion consumer service, SAML_ACS_URL). The
 * response is checked by the platform's service provider
 * (classes/_platform/saml: signature, issuer, audience, recipient, validity,
 * the email's domain, replay), the member found by the asserted email, and
 * the browser sent to the member application (MEMBER_APP_URL, route
 * `signed-in`) with the session in the URL fragment: 303 See Other, and the
 * same as the JSON body. A member waiting for its invitation's acceptance
 * becomes `active` (spec 3.1) before its token is issued (completeSingleSignOn,
 * INTERNAL: the identity source must see it active).
 *
 * The body is `{SAMLResponse, RelayState?}`: the HTTP-POST binding's form
 * fields. Identity providers post them form-encoded; until the runtime parses
 * form bodies, the same fields as JSON are what this method reads.
 *
 * Replay memory: ctx.limits with at most one hit per assertion for as long as
 * it could be accepted, shared by every process, under the counter and key
 * ProgramManagementUser uses (SAML_REPLAY_COUNTER); the same memory holds the
 * AuthnRequests discoverAuthMethod issued, each answered once (InResponseTo).
 * A response without InResponseTo is accepted only from a provider configured
 * with `allowUnsolicited`.
 */
import { isSamlError, samlSeen } from '../../_platform/saml';
import { memberError } from '../errors';
import {
  clone,
  logMemberChange,
  memberIdByLookup,
  memberState,
  profileOf,
  type MemberCtx,
  type MemberStaticCtx,
} from '../member-state';
import { SAML_REPLAY_COUNTER, ssoOutcome, ssoRedirect, type SignInSettings } from '../sign-in-rules';
import { members } from './self-client';
import { memberActor, openSession, throttleAddress } from './sign-in-common';
import type { CompleteSingleSignOnInput, SingleSignOnInput } from '../../../schemas/Member/inputs';

const refused = (reason: string, message = 'The single sign-on response was refused') =>
  memberError('SSO_REFUSED', message, { reason });

export async function singleSignOn(ctx: MemberStaticCtx<SingleSignOnInput>, settings: SignInSettings) {
  await throttleAddress(ctx, 'singleSignOn');
  const saml = settings.saml;
  if (!saml) throw memberError('SSO_NOT_CONFIGURED', 'Single sign-on is not configured');
  const { SAMLResponse: response, RelayState: relayState } = ctx.request.body;
  const provider = saml.idpForResponse(response);
  if (!provider) throw refused('SAML_UNKNOWN_IDP', 'The response is not from a configured identity provider');
  const seen = samlSeen(ctx.limits, SAML_REPLAY_COUNTER);
  let email: string;
  try {
    email = (await saml.parseResponse(provider, response, seen)).email;
  } catch (err) {
    if (isSamlError(err)) {
      ctx.log.info({ reason: err.reason, detail: err.detail, providerId: provider.id }, 'SAML response refused');
      throw refused(err.reason);
    }
    throw err;
  }
  // the identity provider has authenticated this person: telling it there is no member for its email reveals nothing new
  const id = await memberIdByLookup(ctx, 'email', email);
  if (!id) throw refused('NO_MEMBER', 'No member signs in with this account');
  const done = await members<{ completeSingleSignOn: typeof completeSingleSignOn }>(ctx).completeSingleSignOn(id, {
    at: new Date().toISOString(),
    providerId: provider.id,
  });
  if (!done.signedIn) throw refused('MEMBER_NOT_ALLOWED', 'This member cannot sign in now');
  const session = await openSession(ctx, id);
  const redirectTo = ssoRedirect(settings.appUrl, session, relayState);
  const body = { redirectTo, ...session };
  ctx.response = {
    status: 303,
    headers: { location: redirectTo, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    body,
  };
  return body;
}

/**
 * INTERNAL, Member only: the member's side of a valid SSO response. A member
 * who may sign in is signed in as it is; one waiting for its invitation's
 * acceptance becomes `active` (spec 3.1, audit-logged as the member's own
 * step); any other answers `{signedIn: false}`.
 */
export async function completeSingleSignOn(
  ctx: MemberCtx<CompleteSingleSignOnInput>,
): Promise<{ signedIn: boolean; status?: string }> {
  const state = memberState(ctx);
  const p = profileOf(ctx);
  const outcome = ssoOutcome(p.status);
  if (!outcome.ok) return { signedIn: false };
  const { at, providerId } = ctx.request.body;
  if (outcome.changed) {
    const before = clone(p);
    p.status = outcome.to;
    p.updatedAt = at;
    await logMemberChange(ctx, before, p, { source: 'single_sign_on', providerId }, memberActor(p.id));
  }
  state.lastSignInAt = at;
  return { signedIn: true, status: p.status };
}
