/**
 * The service as a SAML 2.0 service provider (spec 5), on samlify: one
 * samlify IdentityProvider per configured provider, chosen by email domain.
 *
 *   const saml = samlServiceProvider(loadSamlConfig(env));     // null config: SSO off
 *   const idp = saml.idpForEmail('ann@acme.com');               // provider or null
 *   const url = await saml.loginUrl(idp, seen, relayState);     // redirect the browser there (its request id remembered)
 *   saml.spMetadata();                                          // XML to publish
 *   const idp2 = saml.idpForResponse(body.SAMLResponse);        // who claims to have sent it
 *   const user = await saml.parseResponse(idp2, body.SAMLResponse, seen);
 *   // user: { email, nameId, attributes, assertionId, notOnOrAfter, inResponseTo, providerId }
 *
 * parseResponse refuses, with a SamlError naming the reason, a response that:
 *  - is not base64 XML, carries a DOCTYPE, or is not a SAML Response by the
 *    SAML 2.0 schema (samlify + xmllint-wasm)               SAML_MALFORMED
 *  - has a non-Success status                                SAML_STATUS
 *  - has no signature on the Response nor on the Assertion   SAML_UNSIGNED
 *  - has a signature that does not verify against the provider's configured
 *    certificates, or looks wrapped                          SAML_BAD_SIGNATURE
 *  - has an assertion issued by another entity id            SAML_ISSUER
 *  - is restricted to another audience, or to none           SAML_AUDIENCE
 *  - names no Destination on the Response, has a SubjectConfirmationData
 *    without a Recipient (or none at all), or is addressed by either to
 *    another URL than this service provider's ACS URLs      SAML_RECIPIENT
 *  - is outside Conditions NotBefore / NotOnOrAfter or past its bearer
 *    SubjectConfirmationData NotOnOrAfter (both with the configured clock
 *    skew), or its SubjectConfirmationData has no NotOnOrAfter SAML_EXPIRED
 *  - names no email, or one of a domain the provider does not serve
 *                                                            SAML_NO_EMAIL, SAML_EMAIL_DOMAIN
 *  - answers (InResponseTo) no AuthnRequest this service issued to this
 *    provider in the last AUTHN_REQUEST_TTL_SECONDS, or the Response and
 *    its assertion answer different requests                 SAML_UNKNOWN_REQUEST
 *  - has no InResponseTo (an IdP-initiated sign-in) while the provider's
 *    configuration does not say allowUnsolicited              SAML_UNSOLICITED
 *  - answers a request already answered, or has an assertion id already
 *    accepted                                                SAML_REPLAYED
 * Only what the verified signature covers is read (samlify extracts from the
 * signed assertion, not from the unsigned document around it).
 *
 * These follow the Web Browser SSO profile (saml-profiles-2.0-os 4.1.4.3),
 * a little stricter where it leaves a choice: the Response's Destination is
 * required even when only the assertion is signed, and every
 * SubjectConfirmationData needs a Recipient and a NotOnOrAfter. The request
 * id counted is the bearer SubjectConfirmationData's InResponseTo (inside
 * the signed assertion); a Response InResponseTo must name the same one.
 *
 * Memory is the caller's: `seen(key, expiresAt)` records the key and answers
 * whether it was there before, atomically and shared by every process (Redis
 * `SET key 1 PXAT expiresAt NX`; samlSeen backs it with ctx.limits). It keeps:
 *  - assertions accepted: `<providerId>:<assertionId>` until the assertion
 *    stops being acceptable anyway (its NotOnOrAfter plus the clock skew);
 *  - AuthnRequests issued by loginUrl: `.request:<providerId>:<requestId>`,
 *    for AUTHN_REQUEST_TTL_SECONDS;
 *  - AuthnRequests answered: `.answered:<providerId>:<requestId>`, as long.
 * A response's InResponseTo is consumed by marking it answered first (a
 * second answer finds the mark, however close behind), then asking whether it
 * was issued (an unknown id is refused, and stays refused: its answered mark
 * is already set). Keys of requests start with '.', which no provider id does.
 * Memory is asked last, so a response refused for any other reason burns
 * nothing.
 *
 * Encrypted assertions are not supported (the service publishes no encryption
 * key).
 */
import {
  Constants,
  Extractor,
  IdentityProvider,
  type IdentityProviderInstance,
  SamlLib,
  ServiceProvider,
  type ServiceProviderInstance,
  setSchemaValidator,
} from 'samlify';
import type { SamlConfig, SamlIdentityProviderConfig } from './config';
import { SamlError } from './errors';
import { isBase64Text, withoutWhitespace } from '../base64';
import { isEmail } from '../email';

// the SAML 2.0 schemas checked by libxml2 compiled to wasm: no Java, no install script (the package ships no types)
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CJS without types: an import would be untyped, the require states the one function used
const schemaValidator = require('@authenio/samlify-xmllint-wasm') as { validate(xml: string): Promise<boolean> };
setSchemaValidator({ validate: (xml: string) => schemaValidator.validate(xml) });

/** A configured identity provider, as answered by the lookups and taken by loginUrl/parseResponse. */
export interface SamlProvider {
  readonly id: string;
  readonly entityId: string;
  readonly domains: readonly string[];
}

export interface SamlUser {
  providerId: string;
  /** lower-cased */
  email: string;
  nameId: string | null;
  /** the assertion's attributes by Name: one value as a string, several as an array */
  attributes: Record<string, string | string[]>;
  assertionId: string;
  /** the earliest NotOnOrAfter of the assertion (Conditions, bearer SubjectConfirmationData) */
  notOnOrAfter: Date;
  /** the AuthnRequest id this answers, when the identity provider says so */
  inResponseTo: string | null;
}

/** Records `key` until `expiresAt`; answers true when it was recorded already. */
export type SeenCheck = (key: string, expiresAt: Date) => Promise<boolean>;

export interface SamlServiceProvider {
  readonly entityId: string;
  readonly acsUrls: readonly string[];
  readonly clockSkewSeconds: number;
  providers(): readonly SamlProvider[];
  idpById(id: string): SamlProvider | null;
  idpForEmail(email: string): SamlProvider | null;
  /** the provider named by the Issuer of a POSTed response (unverified: only to choose whose key verifies it); null when none */
  idpForResponse(samlResponseBase64: string): SamlProvider | null;
  /** the redirect to the provider's SSO service with a new AuthnRequest, whose id `seen` remembers for AUTHN_REQUEST_TTL_SECONDS */
  loginUrl(provider: SamlProvider, seen: SeenCheck, relayState?: string): Promise<string>;
  spMetadata(): string;
  parseResponse(provider: SamlProvider, samlResponseBase64: string, seen: SeenCheck): Promise<SamlUser>;
}

/** SAML bindings 3.4.3 / 3.5.3: RelayState must not exceed 80 bytes. */
export const MAX_RELAY_STATE_BYTES = 80;
/** largest SAMLResponse (base64) read; real ones are a few kilobytes */
export const MAX_RESPONSE_BASE64_CHARS = 256 * 1024;
/** how long an AuthnRequest may be answered: the time a user has to sign in at the identity provider */
export const AUTHN_REQUEST_TTL_SECONDS = 15 * 60;
const ISSUED = '.request:';
const ANSWERED = '.answered:';

const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const UNSPECIFIED_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
const BINDING = Constants.namespace.binding;
/** attributes that usually carry the email (Entra ID, ADFS, Okta, Google, LDAP-style) */
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailaddress',
  'emailAddress',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
];

interface Entry extends SamlProvider {
  config: SamlIdentityProviderConfig;
  idp: IdentityProviderInstance;
}

/** samlify's console.warn for an identity provider without single logout, which this service does not use */
const SLO_WARNING = 'Construct identity  provider - missing endpoint of SingleLogoutService';

/**
 * Runs `build` (synchronous) with samlify's one console.warn about single
 * logout dropped: written to the console, it bypassed the service's JSON log
 * on every start and every provider; any other warning still goes through.
 */
export function withoutSloWarning<T>(build: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (args.length === 1 && args[0] === SLO_WARNING) return;
    warn.apply(console, args);
  };
  try {
    return build();
  } finally {
    console.warn = warn;
  }
}

export function samlServiceProvider(config: SamlConfig): SamlServiceProvider {
  const skewMs = config.clockSkewSeconds * 1000;
  const sp: ServiceProviderInstance = ServiceProvider({
    entityID: config.sp.entityId,
    assertionConsumerService: config.sp.acsUrls.map((url, i) => ({
      Binding: BINDING.post,
      Location: url,
      isDefault: i === 0,
    })),
    nameIDFormat: [EMAIL_FORMAT, UNSPECIFIED_FORMAT],
    wantAssertionsSigned: true,
    authnRequestsSigned: Boolean(config.sp.signing),
    ...(config.sp.signing
      ? { privateKey: config.sp.signing.privateKey, signingCert: config.sp.signing.certificate }
      : {}),
    // samlify adds the first to NotBefore and the second to NotOnOrAfter
    clockDrifts: [-skewMs, skewMs],
  });

  const entries = config.identityProviders.map((c): Entry => {
    const idp = withoutSloWarning(() =>
      IdentityProvider({
        entityID: c.entityId,
        signingCert: c.signingCerts.map(pem),
        singleSignOnService: [{ Binding: BINDING.redirect, Location: c.ssoUrl }],
        wantAuthnRequestsSigned: c.wantAuthnRequestsSigned,
      }),
    );
    return Object.freeze({
      id: c.id,
      entityId: c.entityId,
      domains: Object.freeze([...c.domains]),
      config: c,
      idp,
    });
  });
  const byId = new Map(entries.map((e) => [e.id, e]));
  const byDomain = new Map(entries.flatMap((e) => e.domains.map((d) => [d, e] as const)));
  const byEntityId = new Map(entries.map((e) => [e.entityId, e]));
  const acsUrls = new Set(config.sp.acsUrls);

  const entryOf = (provider: SamlProvider): Entry => {
    const e = byId.get(provider?.id);
    if (!e) throw new SamlError('SAML_UNKNOWN_IDP', `'${String(provider?.id)}' is not a configured identity provider`);
    return e;
  };

  const metadata = sp.getMetadata();

  return {
    entityId: config.sp.entityId,
    acsUrls: Object.freeze([...config.sp.acsUrls]),
    clockSkewSeconds: config.clockSkewSeconds,
    providers: () => entries,
    idpById: (id) => byId.get(id) ?? null,
    idpForEmail(email) {
      const domain = emailDomain(email);
      return (domain && byDomain.get(domain)) || null;
    },
    idpForResponse(samlResponseBase64) {
      let xml: string;
      try {
        xml = decode(samlResponseBase64);
      } catch {
        return null;
      }
      let issuer: unknown;
      try {
        issuer = Extractor.extract(xml, [{ key: 'issuer', localPath: ['Response', 'Issuer'], attributes: [] }]).issuer;
        if (!issuer)
          issuer = Extractor.extract(xml, [
            { key: 'issuer', localPath: ['Response', 'Assertion', 'Issuer'], attributes: [] },
          ]).issuer;
      } catch {
        return null;
      }
      return (typeof issuer === 'string' && byEntityId.get(issuer.trim())) || null;
    },
    async loginUrl(provider, seen, relayState) {
      const e = entryOf(provider);
      if (relayState !== undefined && Buffer.byteLength(relayState) > MAX_RELAY_STATE_BYTES) {
        throw new RangeError(`relayState is longer than ${MAX_RELAY_STATE_BYTES} bytes (SAML bindings 3.4.3)`);
      }
      const request = sp.createLoginRequest(e.idp, 'redirect', relayState === undefined ? {} : { relayState });
      if (!request.id) throw new Error('samlify answered an AuthnRequest without an id');
      // a fresh random id: already there would mean a broken generator, not a caller's mistake
      if (await seen(`${ISSUED}${e.id}:${request.id}`, new Date(Date.now() + AUTHN_REQUEST_TTL_SECONDS * 1000))) {
        throw new Error(`AuthnRequest id ${request.id} was issued before`);
      }
      return request.context;
    },
    spMetadata: () => metadata,
    async parseResponse(provider, samlResponseBase64, seen) {
      const e = entryOf(provider);
      const xml = decodeOrRefuse(samlResponseBase64);
      let extract: Record<string, unknown>;
      try {
        const result = await sp.parseLoginResponse(e.idp, 'post', { body: { SAMLResponse: samlResponseBase64 } });
        extract = result.extract;
      } catch (err) {
        throw refusal(err, xml);
      }
      // the assertion samlify verified, again, for what its extract leaves out (ID, SubjectConfirmationData)
      const [verified, assertion] = SamlLib.verifySignature(xml, {
        metadata: e.idp.entityMeta,
        signatureAlgorithm: e.idp.entitySetting.requestSignatureAlgorithm,
      });
      if (!verified || !assertion) throw new SamlError('SAML_BAD_SIGNATURE', 'no verified assertion');
      const more = Extractor.extract(assertion, [
        { key: 'assertion', localPath: ['Assertion'], attributes: ['ID'] },
        {
          key: 'confirmation',
          localPath: ['Assertion', 'Subject', 'SubjectConfirmation', 'SubjectConfirmationData'],
          attributes: ['NotOnOrAfter', 'Recipient', 'InResponseTo'],
        },
      ]) as Record<string, unknown>;

      const assertionId = single(more.assertion);
      if (!assertionId) throw new SamlError('SAML_MALFORMED', 'the assertion has no ID');

      const audiences = strings(extract.audience);
      if (!audiences.includes(config.sp.entityId)) {
        throw new SamlError(
          'SAML_AUDIENCE',
          `assertion is for ${audiences.length ? audiences.join(', ') : 'no audience'}, not ${config.sp.entityId}`,
        );
      }
      // profile 4.1.4.3: the bearer confirmation names our ACS (Recipient), its end (NotOnOrAfter) and, when the
      // service asked, the request (InResponseTo); the Response's Destination is required here whether or not it is signed
      const destination = field(extract.response, 'destination');
      if (!destination) throw new SamlError('SAML_RECIPIENT', 'the response names no Destination');
      if (!acsUrls.has(destination)) throw new SamlError('SAML_RECIPIENT', `response is addressed to ${destination}`);
      const confirmations = records(more.confirmation);
      if (confirmations.length === 0)
        throw new SamlError('SAML_RECIPIENT', 'the assertion has no SubjectConfirmationData');
      for (const c of confirmations) {
        if (!c.recipient) throw new SamlError('SAML_RECIPIENT', 'a SubjectConfirmationData names no Recipient');
        if (!acsUrls.has(c.recipient))
          throw new SamlError('SAML_RECIPIENT', `assertion is addressed to ${c.recipient}`);
        if (!c.notOnOrAfter) throw new SamlError('SAML_EXPIRED', 'a SubjectConfirmationData carries no NotOnOrAfter');
      }

      const now = Date.now();
      const limits = [field(extract.conditions, 'notOnOrAfter'), ...confirmations.map((c) => c.notOnOrAfter)]
        .filter((t): t is string => Boolean(t))
        .map((t) => ({ t, ms: Date.parse(t) }));
      for (const { t, ms } of limits) {
        if (!Number.isFinite(ms)) throw new SamlError('SAML_MALFORMED', `NotOnOrAfter '${t}' is not a date`);
        if (now >= ms + skewMs) throw new SamlError('SAML_EXPIRED', `expired at ${t}`);
      }
      const notOnOrAfter = new Date(Math.min(...limits.map((l) => l.ms)));

      const attributes = attributeMap(extract.attributes);
      const nameId = typeof extract.nameID === 'string' && extract.nameID.trim() ? extract.nameID.trim() : null;
      const email = emailOf(e.config, attributes, nameId);
      if (!email) throw new SamlError('SAML_NO_EMAIL');
      if (!e.domains.includes(emailDomain(email)!)) {
        throw new SamlError('SAML_EMAIL_DOMAIN', `${emailDomain(email)} is not served by identity provider '${e.id}'`);
      }

      // which request this answers: the bearer confirmation's InResponseTo, signed with the assertion
      const answers = new Set(confirmations.map((c) => c.inResponseTo ?? ''));
      if (answers.size > 1)
        throw new SamlError('SAML_UNKNOWN_REQUEST', 'the assertion’s confirmations answer different requests');
      const requestId = [...answers][0] || null;
      const responseTo = field(extract.response, 'inResponseTo');
      if (responseTo && responseTo !== requestId) {
        throw new SamlError(
          'SAML_UNKNOWN_REQUEST',
          `the Response answers ${responseTo}, its assertion ${requestId ?? 'no request'}`,
        );
      }
      if (!requestId && !e.config.allowUnsolicited) {
        throw new SamlError(
          'SAML_UNSOLICITED',
          `no InResponseTo, and identity provider '${e.id}' may not start sign-ins (allowUnsolicited)`,
        );
      }
      if (requestId) {
        const key = `${e.id}:${requestId}`;
        // the window an issued id is kept for, from now: an id issued within it is still found
        const until = new Date(Date.now() + AUTHN_REQUEST_TTL_SECONDS * 1000);
        if (await seen(`${ANSWERED}${key}`, until))
          throw new SamlError('SAML_REPLAYED', `request ${requestId} was already answered`);
        if (!(await seen(`${ISSUED}${key}`, until))) {
          throw new SamlError(
            'SAML_UNKNOWN_REQUEST',
            `${requestId} is not a request this service made to '${e.id}' in the last ${AUTHN_REQUEST_TTL_SECONDS} s`,
          );
        }
      }
      if (await seen(`${e.id}:${assertionId}`, new Date(notOnOrAfter.getTime() + skewMs))) {
        throw new SamlError('SAML_REPLAYED', `assertion ${assertionId} was already used`);
      }
      return {
        providerId: e.id,
        email,
        nameId,
        attributes,
        assertionId,
        notOnOrAfter,
        inResponseTo: requestId,
      };
    },
  };
}

/** the lower-cased domain of an email address, or null when it is not one */
export function emailDomain(email: string): string | null {
  if (typeof email !== 'string') return null;
  const e = email.trim().toLowerCase();
  if (!isEmail(e)) return null;
  return e.slice(e.lastIndexOf('@') + 1);
}

function decode(b64: string): string {
  if (typeof b64 !== 'string' || b64.length === 0 || b64.length > MAX_RESPONSE_BASE64_CHARS) throw new Error('size');
  const compact = withoutWhitespace(b64);
  if (!isBase64Text(compact) || compact.length % 4 !== 0) throw new Error('not base64');
  return Buffer.from(compact, 'base64').toString('utf8');
}

function decodeOrRefuse(b64: string): string {
  let xml: string;
  try {
    xml = decode(b64);
  } catch (err) {
    throw new SamlError(
      'SAML_MALFORMED',
      `SAMLResponse is not base64 of at most ${MAX_RESPONSE_BASE64_CHARS} characters`,
      (err as Error).message,
    );
  }
  // no DTDs in SAML messages (XXE and entity expansion); xmldom would refuse entities, this refuses earlier
  if (/<!DOCTYPE/i.test(xml)) throw new SamlError('SAML_MALFORMED', 'SAMLResponse carries a DOCTYPE');
  return xml;
}

/** samlify's refusal, as our reason */
function refusal(err: unknown, xml: string): SamlError {
  if (err instanceof SamlError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const code = message.split(/[\s:]/)[0] ?? '';
  switch (code) {
    case 'FAILED_TO_VERIFY_SIGNATURE':
      return hasSignature(xml)
        ? new SamlError('SAML_BAD_SIGNATURE', undefined, message)
        : new SamlError('SAML_UNSIGNED', undefined, message);
    case 'ERROR_UNMATCH_CERTIFICATE_DECLARATION_IN_METADATA':
    case 'ERR_POTENTIAL_WRAPPING_ATTACK':
    case 'NO_SIGNATURE_REFERENCES':
    case 'ERR_FAILED_MESSAGE_SIGNATURE_VERIFICATION':
      return new SamlError('SAML_BAD_SIGNATURE', undefined, message);
    case 'ERR_UNMATCH_ISSUER':
      return new SamlError('SAML_ISSUER', undefined, message);
    case 'ERR_SUBJECT_UNCONFIRMED':
    case 'ERR_EXPIRED_SESSION':
      return new SamlError('SAML_EXPIRED', undefined, message);
    case 'ERR_FAILED_STATUS':
    case 'ERR_UNDEFINED_STATUS':
      return new SamlError('SAML_STATUS', undefined, message);
    case 'ERR_EXCEPTION_VALIDATE_XML': // the schema
    case 'ERR_INVALID_XML':
    case 'ERR_EMPTY_ASSERTION': // a signed Response without exactly one Assertion
    case 'XML': // xmldom: "XML parsing error: …", "XML fatal error: …"
      return new SamlError('SAML_MALFORMED', undefined, message);
    default:
      // xml-crypto throws from inside the signature check ("invalid signature: the signature value … is incorrect",
      // digest or reference problems): past the schema and status checks, a signed document failing is a bad signature
      return hasSignature(xml)
        ? new SamlError('SAML_BAD_SIGNATURE', undefined, message)
        : new SamlError('SAML_MALFORMED', undefined, message);
  }
}

/** a Signature on the Response or on an Assertion directly under it (where samlify looks) */
function hasSignature(xml: string): boolean {
  try {
    const found = Extractor.extract(xml, [
      { key: 'response', localPath: ['Response', 'Signature'], attributes: [], context: true },
      { key: 'assertion', localPath: ['Response', 'Assertion', 'Signature'], attributes: [], context: true },
    ]);
    return Boolean(found.response || found.assertion);
  } catch {
    return false;
  }
}

function emailOf(
  config: SamlIdentityProviderConfig,
  attributes: Record<string, string | string[]>,
  nameId: string | null,
): string | null {
  const candidates = config.emailAttribute ? [config.emailAttribute] : EMAIL_ATTRIBUTES;
  for (const name of candidates) {
    const value = strings(attributes[name]).find((v) => isEmail(v.trim()));
    if (value) return value.trim().toLowerCase();
  }
  if (!config.emailAttribute && nameId && isEmail(nameId)) return nameId.toLowerCase();
  return null;
}

function attributeMap(value: unknown): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  if (!value || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

function pem(body: string): string {
  return `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;
}

function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

function single(v: unknown): string | null {
  const s = typeof v === 'string' ? v : Array.isArray(v) && v.length === 1 && typeof v[0] === 'string' ? v[0] : null;
  return s && s.trim() ? s.trim() : null;
}

function field(v: unknown, key: string): string | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const x = (v as Record<string, unknown>)[key];
  return typeof x === 'string' && x ? x : undefined;
}

function records(v: unknown): { notOnOrAfter?: string; recipient?: string; inResponseTo?: string }[] {
  const list = Array.isArray(v) ? v : v ? [v] : [];
  return list
    .filter((x): x is Record<string, unknown> => Boolean(x) && typeof x === 'object')
    .map((x) => ({
      notOnOrAfter: field(x, 'notOnOrAfter'),
      recipient: field(x, 'recipient'),
      inResponseTo: field(x, 'inResponseTo'),
    }));
}
