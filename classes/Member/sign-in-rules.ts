/**
 * Member sign-in's pure rules (README "Sign-in"): who may sign in and how,
 * the throttling table, the link tokens mailed for invitations and password
 * resets, the links and the redirect page, the SSO redirect, and the settings
 * read from the environment. No I/O; unit-tested in
 * test/Member/sign-in-rules.test.ts.
 */
import { KIT_CSS_PATH } from '../_platform/pages/kit';
import { loadSamlConfig, samlServiceProvider, type SamlConfig, type SamlServiceProvider } from '../_platform/saml';
import { nextMemberStatus } from './status-machine';
import type { LoginMethod, MemberStatus } from './types';
import { memberAppUrl } from './use-cases/welcome';

// ---------------------------------------------------------------- who may sign in

/**
 * The statuses a member signs in with (and whose tokens the identity source
 * accepts): `active`, and the two onboarding statuses a member reaches after
 * its creation, since a member `pending_id_photo` must sign in to upload its
 * own photo (uploadMyIdPhoto, spec 3.1) and one `pending_tier` to see where it
 * stands. Not: `pending_invite`, `pending_invitation_acceptance` (until the
 * invitation is accepted, or SSO completes it), `pending_approval`,
 * `inactive`, `suspended`, `rejected`.
 */
export const SIGN_IN_STATUSES: readonly MemberStatus[] = ['active', 'pending_id_photo', 'pending_tier'];

export function maySignIn(status: string | null | undefined): boolean {
  return (SIGN_IN_STATUSES as readonly string[]).includes(status as string);
}

/** What sign-in reads of a member (never the password hash). */
export interface SignInView {
  id: string;
  status: MemberStatus;
  loginMethod: LoginMethod;
  email: string | null;
  name: string;
  middleName: string | null;
  surname: string;
  hasPassword: boolean;
}

/** Email and password sign-in (login, its codes, a password reset): an `email_password` member with a password who may sign in. */
export function mayUsePassword(
  m: Pick<SignInView, 'status' | 'loginMethod' | 'hasPassword' | 'email'> | null | undefined,
): boolean {
  return Boolean(m && m.loginMethod === 'email_password' && m.hasPassword && m.email && maySignIn(m.status));
}

/**
 * A dependant who may sign in by email and password but has never had a
 * password (one HR listed or the back office added: created `active` or
 * `pending_id_photo`, never invited). A registration code mailed to its email
 * lets it choose one (completeRegistration, self-registration.ts). Primary
 * members are not claimable so: they are invited, or register themselves.
 */
export function mayClaimWithCode(
  m:
    | (Pick<SignInView, 'status' | 'loginMethod' | 'hasPassword' | 'email'> & { primaryMemberId: string | null })
    | null
    | undefined,
): boolean {
  return Boolean(
    m && m.primaryMemberId && m.loginMethod === 'email_password' && !m.hasPassword && m.email && maySignIn(m.status),
  );
}

/**
 * discoverAuthMethod's "starts OTP registration when absent": an invited
 * member (`pending_invitation_acceptance`, email and password, no password
 * yet) who asks how to sign in gets a fresh invitation code, as a re-send of
 * sendInviteEmail would (spec 3.1 "re-send allowed").
 */
export function mayRestartInvitation(
  m: Pick<SignInView, 'status' | 'loginMethod' | 'hasPassword' | 'email'> | null | undefined,
): boolean {
  return Boolean(
    m &&
    m.status === 'pending_invitation_acceptance' &&
    m.loginMethod === 'email_password' &&
    !m.hasPassword &&
    m.email,
  );
}

/**
 * What a valid SAML response does for the member it names (spec 3.1): a member
 * who may sign in is signed in as it is; one waiting for its invitation's
 * acceptance becomes `active` (the "singleSignOn" row); any other is refused.
 * The identity provider vouches for the email, so the member's login method
 * does not matter (an invited `email_password` member may complete by SSO).
 */
export function ssoOutcome(status: MemberStatus): { ok: true; to: MemberStatus; changed: boolean } | { ok: false } {
  if (maySignIn(status)) return { ok: true, to: status, changed: false };
  if (status === 'pending_invitation_acceptance') {
    const r = nextMemberStatus(status, { type: 'singleSignOn', authorised: true });
    if (r.ok) return { ok: true, to: r.to, changed: r.changed };
  }
  return { ok: false };
}

// ---------------------------------------------------------------- throttling

export interface Limit {
  max: number;
  windowSeconds: number;
}

/**
 * Hits each operation may take per caller address (ctx.request.ip) and per
 * account (the lower-cased email, or the member id) within its window; the
 * next is 429 5035 with `retryAfterSeconds`. Counters are per operation, so a
 * flood of reset requests does not lock a member out of login. The codes have
 * Otp's limits behind them as well (6001, 6002).
 */
export const SIGN_IN_THROTTLE = {
  discoverAuthMethod: { perAddress: { max: 60, windowSeconds: 300 }, perAccount: { max: 10, windowSeconds: 900 } },
  login: { perAddress: { max: 20, windowSeconds: 300 }, perAccount: { max: 10, windowSeconds: 900 } },
  checkOtp: { perAccount: { max: 10, windowSeconds: 300 } },
  resendOtp: { perAccount: { max: 5, windowSeconds: 300 } },
  singleSignOn: { perAddress: { max: 30, windowSeconds: 300 } },
  inviteRedirect: { perAddress: { max: 60, windowSeconds: 300 } },
  acceptInvitation: { perAddress: { max: 20, windowSeconds: 900 }, perAccount: { max: 10, windowSeconds: 900 } },
  sendPasswordResetEmail: { perAddress: { max: 10, windowSeconds: 900 }, perAccount: { max: 3, windowSeconds: 900 } },
  resetPassword: { perAddress: { max: 20, windowSeconds: 900 }, perAccount: { max: 10, windowSeconds: 900 } },
  changePassword: { perAccount: { max: 10, windowSeconds: 900 } },
  completeRegistration: { perAddress: { max: 20, windowSeconds: 900 }, perAccount: { max: 10, windowSeconds: 900 } },
  inviteMyDependant: { perAccount: { max: 10, windowSeconds: 900 } },
} as const satisfies Record<string, { perAddress?: Limit; perAccount?: Limit }>;

export type ThrottledOperation = keyof typeof SIGN_IN_THROTTLE;

/** The counter (ctx.limits name) of an operation's address or account limit, and the limit; null when it has none. */
export function throttleCounter(
  op: ThrottledOperation,
  per: 'address' | 'account',
): { name: string; limit: Limit } | null {
  const limits = SIGN_IN_THROTTLE[op] as { perAddress?: Limit; perAccount?: Limit };
  const limit = per === 'address' ? limits.perAddress : limits.perAccount;
  return limit ? { name: `member.${op}.${per === 'address' ? 'ip' : 'account'}`, limit } : null;
}

/**
 * The replay memory of SAML assertions (ctx.limits: at most one hit per
 * assertion for as long as it could be accepted). The name and key are the
 * ones ProgramManagementUser uses, so an assertion signs in once wherever it
 * is posted.
 */
export const SAML_REPLAY_COUNTER = 'saml.assertion';

/** seconds from `now` until `expiresAt`, at least 1 (a limit's window) */
export function replayWindowSeconds(expiresAt: Date, now: number): number {
  return Math.max(1, Math.ceil((expiresAt.getTime() - now) / 1000));
}

// ---------------------------------------------------------------- link tokens

const MEMBER_ID = /^[A-Za-z0-9_-]{1,128}$/;
const SECRET = /^[A-Za-z0-9-]{6,64}$/;

/**
 * The token an invitation or password reset mail carries, `<memberId>.<secret>`:
 * the member id says which member's WRITE checks it (acceptInvitation,
 * resetPassword take the member's instance), the secret is the Otp token
 * (a UUID, stored by Otp as an HMAC and compared in constant time). One
 * string, so a mail template with a single `{{otp}}` carries everything.
 */
export function linkToken(memberId: string, secret: string): string {
  if (!MEMBER_ID.test(memberId)) throw new Error(`linkToken: '${memberId}' is not a member id`);
  if (!SECRET.test(secret)) throw new Error('linkToken: the secret is not a token');
  return `${memberId}.${secret}`;
}

/** The member id and secret of a link token; null when it is not one. */
export function parseLinkToken(token: unknown): { memberId: string; secret: string } | null {
  if (typeof token !== 'string') return null;
  const t = token.trim();
  const dot = t.indexOf('.');
  if (dot < 1) return null;
  const memberId = t.slice(0, dot);
  const secret = t.slice(dot + 1);
  return MEMBER_ID.test(memberId) && SECRET.test(secret) ? { memberId, secret } : null;
}

// ---------------------------------------------------------------- links and pages

/** the member application's routes the links open (with the token in the fragment) */
export const APP_ROUTES = { invitation: 'invitation', passwordReset: 'reset-password', signedIn: 'signed-in' } as const;

/**
 * `route` of the member application with `params` in the URL fragment: a
 * fragment is not sent to any server, so a token there stays out of request
 * logs and Referer headers.
 */
export function appLink(appUrl: string, route: string, params: Record<string, string>): string {
  const url = new URL(route, appUrl.endsWith('/') ? appUrl : `${appUrl}/`);
  url.hash = new URLSearchParams(params).toString();
  return url.toString();
}

/** The invitation link a mail carries: inviteRedirect on this service, with the link token. */
export function inviteRedirectLink(publicUrl: string, projectId: string, token: string): string {
  const base = publicUrl.replace(/\/+$/, '');
  return `${base}/${encodeURIComponent(projectId)}/CALL/Member/inviteRedirect?${new URLSearchParams({ token }).toString()}`;
}

function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * inviteRedirect's page: sends the browser on to `target` at once (meta
 * refresh, no script), with a link for browsers that do not follow it.
 */
export function redirectPage(target: string, title = 'Accept your invitation'): string {
  const href = escapeHtml(target);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${href}">`,
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><p><a href="${href}">${escapeHtml(title)}</a></p></body></html>`,
  ].join('\n');
}

/** Does a request's Accept header ask for a page first (a browser opening a link), rather than JSON? */
export function prefersHtml(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  const html = value.indexOf('text/html');
  const json = value.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

/**
 * The page of an invitation link whose token is damaged or missing (a link cut
 * by a mail client): words, and where to type the code the mail also shows.
 */
export function invalidLinkPage(invitationPage: string): string {
  const href = escapeHtml(invitationPage.replace(/#$/, ''));
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>This invitation link is not complete</title><link rel="stylesheet" href="${KIT_CSS_PATH}"></head>`,
    '<body><main><h1>This invitation link is not complete</h1>',
    '<p role="alert">The link you opened does not hold a valid invitation. It may have been cut when the mail was shown or copied.</p>',
    `<p>Open the link again from the mail, or go to <a href="${href}">the invitation page</a> and enter the invitation code the mail shows.</p>`,
    '</main></body></html>',
  ].join('\n');
}

/** invalidLinkPage's headers: PAGE_HEADERS with the pages' own stylesheet allowed */
export const INVALID_LINK_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
});

/** The headers of a page that carries a token: never cached, never sent on as a Referer, never sniffed. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
});

/**
 * Where singleSignOn sends the browser: the member application's signed-in
 * route with the session in the fragment, and the RelayState the sign-in
 * started with as `state` (the application's check that it started it).
 */
export function ssoRedirect(
  appUrl: string,
  session: { accessToken: string; expiresAt: string; refreshToken?: string; memberId: string },
  relayState?: string,
): string {
  return appLink(appUrl, APP_ROUTES.signedIn, {
    accessToken: session.accessToken,
    expiresAt: session.expiresAt,
    ...(session.refreshToken ? { refreshToken: session.refreshToken } : {}),
    memberId: session.memberId,
    ...(relayState ? { state: relayState } : {}),
  });
}

// ---------------------------------------------------------------- settings

export interface SignInSettings {
  /** null when no identity provider is configured (SAML_IDPS_FILE) */
  saml: SamlServiceProvider | null;
  /** MEMBER_APP_URL: where the links and the SSO redirect lead */
  appUrl: string;
  /** PUBLIC_URL: where browsers reach this service (the invitation link's inviteRedirect) */
  publicUrl: string;
  projectId: string;
  /** validity of an invitation (MEMBER_INVITATION_TTL_SECONDS) */
  invitationTtlSeconds: number;
  /** validity of a password reset link */
  passwordResetTtlSeconds: number;
  /** validity of the token between login and checkOtp (good for checkOtp and resendOtp only) */
  otpStepTtlSeconds: number;
}

export const DEFAULT_INVITATION_TTL_SECONDS = 7 * 24 * 3600;
export const PASSWORD_RESET_TTL_SECONDS = 3600;
export const OTP_STEP_TTL_SECONDS = 10 * 60;

function seconds(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  return n;
}

const OWN_ACS = /\/CALL\/Member\/singleSignOn\/?$/i;

/**
 * The service provider as Member uses it: with its own assertion consumer
 * service only, the SAML_ACS_URL entry ending in /CALL/Member/singleSignOn
 * (or, when none does, the one derived from PUBLIC_URL and PROJECT_ID). Its
 * AuthnRequests (discoverAuthMethod's login URL) then ask the identity
 * provider to answer here, not at the back office's sign-in, and a response
 * addressed to another endpoint of the service is refused here
 * (SAML_RECIPIENT), as ProgramManagementUser does for its own. Without either,
 * the configuration is used as it is.
 */
export function memberAcsOnly(config: SamlConfig, env: NodeJS.ProcessEnv): SamlConfig {
  let own = config.sp.acsUrls.find((u) => OWN_ACS.test(new URL(u).pathname));
  if (!own && env.PUBLIC_URL?.trim())
    own = `${env.PUBLIC_URL.trim().replace(/\/+$/, '')}/${env.PROJECT_ID || 'membership'}/CALL/Member/singleSignOn`;
  return own ? { ...config, sp: { ...config.sp, acsUrls: [own] } } : config;
}

export function signInSettingsFrom(env: NodeJS.ProcessEnv): SignInSettings {
  const loaded = loadSamlConfig(env);
  const publicUrl = (env.PUBLIC_URL?.trim() || `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(publicUrl);
  } catch {
    throw new Error(`PUBLIC_URL must be an http(s) URL, got '${publicUrl}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`PUBLIC_URL must be an http(s) URL, got '${publicUrl}'`);
  return {
    saml: loaded ? samlServiceProvider(memberAcsOnly(loaded, env)) : null,
    appUrl: memberAppUrl(env),
    publicUrl,
    projectId: env.PROJECT_ID || 'membership',
    invitationTtlSeconds: seconds(
      env,
      'MEMBER_INVITATION_TTL_SECONDS',
      DEFAULT_INVITATION_TTL_SECONDS,
      300,
      30 * 24 * 3600,
    ),
    passwordResetTtlSeconds: PASSWORD_RESET_TTL_SECONDS,
    otpStepTtlSeconds: OTP_STEP_TTL_SECONDS,
  };
}
