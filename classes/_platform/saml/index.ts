/**
 * SAML 2.0 single sign-on (spec 5): the service as a service provider of each
 * configured identity provider. See service-provider.ts for the checks a
 * response passes and config.ts for the configuration.
 */
export { loadSamlConfig, parseSamlConfig, DEFAULT_CLOCK_SKEW_SECONDS, MAX_CLOCK_SKEW_SECONDS } from './config';
export type { SamlConfig, SamlIdentityProviderConfig, SamlServiceProviderConfig } from './config';
export { SamlError, SamlConfigError, SAML_REASONS, isSamlError } from './errors';
export type { SamlReason } from './errors';
export {
  samlServiceProvider,
  emailDomain,
  AUTHN_REQUEST_TTL_SECONDS,
  MAX_RELAY_STATE_BYTES,
  MAX_RESPONSE_BASE64_CHARS,
} from './service-provider';
export { samlSeen, memoryWindowSeconds, SAML_MEMORY_COUNTER } from './memory';
export type { SamlProvider, SamlServiceProvider, SamlUser, SeenCheck } from './service-provider';
