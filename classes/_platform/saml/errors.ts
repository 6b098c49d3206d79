/**
 * Why a SAML response (or a provider lookup) was refused. Callers map the
 * reason to their own class's error range (spec 7.1); the message is for logs
 * and never needs to reach the signing-in user as it is.
 */
export const SAML_REASONS = {
  /** no configured identity provider answers for this id, issuer or email domain */
  SAML_UNKNOWN_IDP: 'unknown identity provider',
  /** not base64, not XML, a DOCTYPE, or not a SAML 2.0 Response by the schema */
  SAML_MALFORMED: 'malformed SAML response',
  /** the identity provider answered with a status other than Success (user cancelled, no account there, …) */
  SAML_STATUS: 'the identity provider did not authenticate the user',
  /** neither the Response nor its Assertion carries a signature */
  SAML_UNSIGNED: 'response is not signed',
  /** a signature that does not verify against the provider's configured certificates (another key, altered content, wrapping) */
  SAML_BAD_SIGNATURE: 'signature does not verify against the identity provider’s certificate',
  /** the assertion's Issuer is not the provider's entity id */
  SAML_ISSUER: 'assertion issued by another entity',
  /** the assertion is restricted to another audience than this service provider (or to none) */
  SAML_AUDIENCE: 'assertion is for another audience',
  /** Destination or SubjectConfirmationData Recipient missing, or not one of this service provider's ACS URLs */
  SAML_RECIPIENT: 'response is addressed to another endpoint',
  /** outside its validity window (NotBefore / NotOnOrAfter, clock skew allowed), or without a NotOnOrAfter */
  SAML_EXPIRED: 'assertion is expired or not yet valid',
  /** an assertion id accepted before, or an answer to an AuthnRequest already answered */
  SAML_REPLAYED: 'assertion was already used',
  /** InResponseTo names no AuthnRequest this service issued to the provider (or one issued too long ago), or the Response and its assertion name different ones */
  SAML_UNKNOWN_REQUEST: 'response to a request this service did not make',
  /** no InResponseTo: a sign-in the identity provider started, which the provider's configuration does not allow (allowUnsolicited) */
  SAML_UNSOLICITED: 'unsolicited response',
  /** the assertion names no email address (neither the configured attribute, a usual email attribute, nor an email NameID) */
  SAML_NO_EMAIL: 'assertion carries no email address',
  /** the email's domain is not one the provider serves (one provider may not sign users in for another's domain) */
  SAML_EMAIL_DOMAIN: 'email domain not served by this identity provider',
} as const;

export type SamlReason = keyof typeof SAML_REASONS;

export class SamlError extends Error {
  override readonly name = 'SamlError';
  constructor(
    readonly reason: SamlReason,
    message: string = SAML_REASONS[reason],
    /** what samlify or the parser said, for logs */
    readonly detail?: string,
  ) {
    super(message);
  }
}

export function isSamlError(err: unknown): err is SamlError {
  return err instanceof SamlError;
}

/**
 * A configuration that cannot be used: `field` names the environment variable
 * or the place in the identity-provider file (`SAML_IDPS_FILE identityProviders[1].domains[0]`).
 */
export class SamlConfigError extends Error {
  override readonly name = 'SamlConfigError';
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}
