/**
 * singleSignOn (STATIC, public; spec 4.5 says WRITE, see README): the
 * identity provider POSTs its SAML response here (the assertion consumer
 * service). The response is checked by the platform's service provider
 * (classes/_platform/saml: signature, issuer, audience, recipient, validity,
 * domain, replay), the user found by the asserted email, and the browser sent
 * to the back-office application with the session in the URL fragment
 * (303 See Other; `{redirectTo, accessToken, ...}` as the body too).
 *
 * Replay memory: `ctx.limits` with at most one hit per assertion for as long
 * as the assertion could be accepted, shared by every process; the counter
 * name `saml.assertion` and key `<providerId>:<assertionId>` are the ones a
 * member's sign-in uses too, so one assertion signs in once, wherever it is
 * posted. The same memory holds the AuthnRequests discoverAuthMethod issued,
 * each answered once (InResponseTo); a response without InResponseTo is
 * accepted only from a provider configured with `allowUnsolicited`.
 */
import { isSamlError, SAML_MEMORY_COUNTER, samlSeen } from '../../_platform/saml';
import { userError } from '../errors';
import { answeredUser, EMAIL_LOOKUP, mayUseSso } from '../rules';
import type { UserSettings } from '../settings';
import type { ProgramManagementUserRecord } from '../types';
import type { SingleSignOnInput } from '../../../schemas/ProgramManagementUser/inputs';
import { CLASS_ID, now, type UserStaticCtx } from './common';
import { throttleAddress } from './requester';
import { signIn, signInUser } from './sign-in';

export const SAML_REPLAY_COUNTER = SAML_MEMORY_COUNTER;

const refused = (reason: string, message = 'The single sign-on response was refused') =>
  userError('PM_USER_SSO_REFUSED', message, { reason });

export async function singleSignOn(ctx: UserStaticCtx<SingleSignOnInput>, settings: UserSettings) {
  await throttleAddress(ctx, 'singleSignOn');
  const saml = settings.saml;
  if (!saml) throw userError('PM_USER_SSO_NOT_CONFIGURED', 'Single sign-on is not configured');
  const response = ctx.request.body.SAMLResponse;
  const provider = saml.idpForResponse(response);
  if (!provider) throw refused('SAML_ISSUER', 'The response is not from a configured identity provider');
  const seen = samlSeen(ctx.limits, SAML_REPLAY_COUNTER);
  let email: string;
  try {
    email = (await saml.parseResponse(provider, response, seen)).email;
  } catch (err) {
    if (isSamlError(err)) throw refused(err.reason);
    throw err;
  }
  const user = await signInUser(ctx, await ctx.lookup.resolve(EMAIL_LOOKUP, email));
  if (!mayUseSso(user))
    throw refused('NO_SSO_USER', 'No back-office user signs in with this account by single sign-on');
  let signedIn: ProgramManagementUserRecord = user!;
  if (user!.status === 'pending') {
    // the first sign-in of an invited SSO user activates it (a write now: the token must see an active user)
    const completed = answeredUser((await ctx.call(CLASS_ID, 'completeSso', user!.id, { at: now() })).body, 'signedIn');
    if (!completed) throw refused('NO_SSO_USER', 'No back-office user signs in with this account by single sign-on');
    signedIn = completed;
  }
  const session = await signIn(ctx, signedIn);
  const fragment = new URLSearchParams({
    accessToken: session.accessToken,
    expiresAt: session.expiresAt,
    ...(session.refreshToken ? { refreshToken: session.refreshToken } : {}),
  });
  const redirectTo = `${settings.backOfficeUrl}/#${fragment.toString()}`;
  ctx.response = {
    status: 303,
    headers: { location: redirectTo, 'cache-control': 'no-store' },
    body: { redirectTo, ...session },
  };
  return ctx.response.body;
}
