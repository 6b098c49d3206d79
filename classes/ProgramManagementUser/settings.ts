/**
 * What the class reads from the environment once, at start (README
 * "Configuration"): the SAML service provider (null: SSO is off), the
 * back-office web application's address, and the lifetimes of the codes and
 * tokens it hands out.
 */
import { otpConfigFrom } from '../_platform/otp';
import { loadSamlConfig, samlServiceProvider, type SamlConfig, type SamlServiceProvider } from '../_platform/saml';

export interface UserSettings {
  /** null when no identity provider is configured (SAML_IDPS_FILE) */
  saml: SamlServiceProvider | null;
  /** the back-office web application: the invitation, reset and SSO invitation links, and where singleSignOn sends the browser */
  backOfficeUrl: string;
  /** validity of an invitation code */
  invitationTtlSeconds: number;
  /** validity of the token between login and checkOtp (good for checkOtp and resendOtp only) */
  otpStepTtlSeconds: number;
  /** the per-account limit of resetPassword and acceptInvitation: Otp's retryLimit per retryExpireTimeInSeconds */
  codeAttempts: { max: number; windowSeconds: number };
}

export const DEFAULT_INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** where the service's own back-office pages are: the back office when BACKOFFICE_URL is unset */
export const BACKOFFICE_PAGES_PATH = '/pages/backoffice';
export const DEFAULT_OTP_STEP_TTL_SECONDS = 10 * 60;

function seconds(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  return n;
}

function httpUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${name} must be an http(s) URL, got '${raw}'`);
  return raw.replace(/\/+$/, '');
}

const OWN_ACS = /\/CALL\/ProgramManagementUser\/singleSignOn\/?$/i;

/**
 * The service provider as this class uses it: with its own assertion
 * consumer service only, the SAML_ACS_URL entry ending in
 * /CALL/ProgramManagementUser/singleSignOn (or, when none does, the one
 * derived from PUBLIC_URL and PROJECT_ID). Its AuthnRequests (discoverAuthMethod's
 * login URL) then ask the identity provider to answer here, not at the member
 * sign-in, and a response addressed to another endpoint of the service is
 * refused here (SAML_RECIPIENT). Without either, the configuration is used as
 * it is.
 */
export function ownAcsOnly(config: SamlConfig, env: NodeJS.ProcessEnv): SamlConfig {
  let own = config.sp.acsUrls.find((u) => OWN_ACS.test(new URL(u).pathname));
  if (!own && env.PUBLIC_URL?.trim())
    own = `${env.PUBLIC_URL.trim().replace(/\/+$/, '')}/${env.PROJECT_ID || 'membership'}/CALL/ProgramManagementUser/singleSignOn`;
  return own ? { ...config, sp: { ...config.sp, acsUrls: [own] } } : config;
}

/** the back office's `route` with `params` in the fragment: a fragment reaches no server, so a code there stays out of logs */
export function backOfficeLink(backOfficeUrl: string, route: string, params: Record<string, string>): string {
  const url = new URL(route, `${backOfficeUrl.replace(/\/+$/, '')}/`);
  url.hash = new URLSearchParams(params).toString();
  return url.toString();
}

/** the back office's routes the mailed links open */
export const BACKOFFICE_ROUTES = { invitation: 'accept-invitation', passwordReset: 'reset-password' } as const;

export function userSettingsFrom(env: NodeJS.ProcessEnv): UserSettings {
  const loaded = loadSamlConfig(env);
  const config = loaded ? ownAcsOnly(loaded, env) : null;
  const otp = otpConfigFrom(env);
  const publicUrl = env.PUBLIC_URL?.trim();
  // unset: the service's own back-office pages (classes/ProgramManagementUser/pages), so mailed links open a page
  const service = (publicUrl || `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, '');
  const backOffice = env.BACKOFFICE_URL?.trim() || `${service}${BACKOFFICE_PAGES_PATH}`;
  return {
    saml: config ? samlServiceProvider(config) : null,
    backOfficeUrl: httpUrl(backOffice, env.BACKOFFICE_URL?.trim() ? 'BACKOFFICE_URL' : 'PUBLIC_URL'),
    invitationTtlSeconds: seconds(
      env,
      'PM_INVITATION_TTL_SECONDS',
      DEFAULT_INVITATION_TTL_SECONDS,
      300,
      30 * 24 * 3600,
    ),
    otpStepTtlSeconds: seconds(env, 'PM_OTP_STEP_TTL_SECONDS', DEFAULT_OTP_STEP_TTL_SECONDS, 60, 3600),
    codeAttempts: { max: otp.retryLimit, windowSeconds: otp.retryExpireTimeInSeconds },
  };
}
