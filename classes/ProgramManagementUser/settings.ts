/**
 * What the class reads from the environment once, at start (README
 * "Configuration"): the SAML service provider (null: SSO is off), the
 * back-office web application's address, and the lifetimes of the codes and
 * tokens it hands out.
 */
import { otpConfigFrom } from '../Otp/rules';
import { loadSamlConfig, samlServiceProvider, type SamlConfig, type SamlServiceProvider } from '../_platform/saml';

export interface UserSettings {
  /** null when no identity provider is configured (SAML_IDPS_FILE) */
  saml: SamlServiceProvider | null;
  /** the back-office web application: the SSO invitation's link and where singleSignOn sends the browser */
  backOfficeUrl: string;
  /** validity of an invitation code */
  invitationTtlSeconds: number;
  /** validity of the token between login and checkOtp (good for checkOtp and resendOtp only) */
  otpStepTtlSeconds: number;
  /** the per-account limit of resetPassword and acceptInvitation: Otp's retryLimit per retryExpireTimeInSeconds */
  codeAttempts: { max: number; windowSeconds: number };
}

export const DEFAULT_INVITATION_TTL_SECONDS = 7 * 24 * 3600;
export const DEFAULT_OTP_STEP_TTL_SECONDS = 10 * 60;

function seconds(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  return n;
}

function httpUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got '${raw}'`);
  return raw.replace(/\/+$/, '');
}

const OWN_ACS = /\/CALL\/ProgramManagementUser\/singleSignOn\/?$/i;

/**
 * The service provider as this class uses it: its own assertion consumer
 * service first, so that the AuthnRequests of discoverAuthMethod's login URL
 * ask the identity provider to answer here, not at the member sign-in. It is
 * the SAML_ACS_URL entry ending in /CALL/ProgramManagementUser/singleSignOn;
 * with SAML_ACS_URL unset, the one derived from PUBLIC_URL and PROJECT_ID is
 * added. The other URLs stay accepted (every one is this service's).
 */
export function ownAcsFirst(config: SamlConfig, env: NodeJS.ProcessEnv): SamlConfig {
  const urls = [...config.sp.acsUrls];
  let i = urls.findIndex((u) => OWN_ACS.test(new URL(u).pathname));
  if (i < 0 && !env.SAML_ACS_URL?.trim() && env.PUBLIC_URL?.trim()) {
    urls.push(`${env.PUBLIC_URL.trim().replace(/\/+$/, '')}/${env.PROJECT_ID || 'membership'}/CALL/ProgramManagementUser/singleSignOn`);
    i = urls.length - 1;
  }
  if (i > 0) urls.unshift(...urls.splice(i, 1));
  return { ...config, sp: { ...config.sp, acsUrls: urls } };
}

export function userSettingsFrom(env: NodeJS.ProcessEnv): UserSettings {
  const loaded = loadSamlConfig(env);
  const config = loaded ? ownAcsFirst(loaded, env) : null;
  const otp = otpConfigFrom(env);
  const publicUrl = env.PUBLIC_URL?.trim();
  const backOffice = env.BACKOFFICE_URL?.trim() || publicUrl || `http://localhost:${env.PORT || 3000}`;
  return {
    saml: config ? samlServiceProvider(config) : null,
    backOfficeUrl: httpUrl(backOffice, env.BACKOFFICE_URL?.trim() ? 'BACKOFFICE_URL' : 'PUBLIC_URL'),
    invitationTtlSeconds: seconds(env, 'PM_INVITATION_TTL_SECONDS', DEFAULT_INVITATION_TTL_SECONDS, 300, 30 * 24 * 3600),
    otpStepTtlSeconds: seconds(env, 'PM_OTP_STEP_TTL_SECONDS', DEFAULT_OTP_STEP_TTL_SECONDS, 60, 3600),
    codeAttempts: { max: otp.retryLimit, windowSeconds: otp.retryExpireTimeInSeconds },
  };
}
