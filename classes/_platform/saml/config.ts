/**
 * Configuration of the SAML service provider and its identity providers
 * (spec 5: member and back-office SSO, chosen by email domain).
 *
 * Environment (documented in the README's table):
 *   SAML_IDPS_FILE           JSON file of identity providers; default `$DATA_DIR/saml-idps.json`.
 *                            Unset and no default file: SSO is off (loadSamlConfig answers null).
 *                            Named but missing: an error.
 *   PUBLIC_URL               where browsers reach this service (`https://members.example.com`);
 *                            the defaults of the two below are built from it
 *   SAML_SP_ENTITY_ID        this service provider's entity id; default `${PUBLIC_URL}/saml/metadata`
 *   SAML_ACS_URL             assertion consumer service URL(s), comma-separated, the first the default;
 *                            default `${PUBLIC_URL}/${PROJECT_ID}/CALL/Member/singleSignOn`
 *   SAML_SP_KEY_FILE / SAML_SP_CERT_FILE   PEM key pair: AuthnRequests are signed and the
 *                            certificate is published in the metadata (both or neither)
 *   SAML_CLOCK_SKEW_SECONDS  clock difference allowed with an identity provider, 0–300, default 60
 *
 * The identity-provider file:
 *
 *   { "identityProviders": [
 *       { "id": "acme", "domains": ["acme.com", "acme.co.uk"], "metadataFile": "acme-idp.xml" },
 *       { "id": "corp", "domains": ["corp.example"], "entityId": "https://idp.corp.example/saml",
 *         "ssoUrl": "https://idp.corp.example/sso", "signingCert": "MIIC…", "emailAttribute": "mail",
 *         "allowUnsolicited": true } ] }
 *
 * Each provider gives its metadata (`metadata`: the XML, or `metadataFile`:
 * a path relative to the JSON file) or `entityId` + `ssoUrl` (HTTP-Redirect
 * binding) + `signingCert` (PEM or base64 DER; an array during a key
 * rollover); explicit fields win over the metadata's. A provider must end up
 * with at least one signing certificate: without one samlify would trust the
 * certificate a response carries itself. Domains are matched exactly and
 * case-insensitively, and one domain belongs to one provider.
 * `allowUnsolicited` (default false) lets the provider start sign-ins itself
 * (IdP-initiated: a response without InResponseTo); otherwise only answers to
 * the service's own AuthnRequests are accepted.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IdPMetadata } from 'samlify';
import { projectRoot } from '../../../runtime';
import { SamlConfigError } from './errors';

export interface SamlIdentityProviderConfig {
  id: string;
  /** lower-case domains whose users this provider signs in */
  domains: string[];
  entityId: string;
  /** HTTP-Redirect single sign-on endpoint */
  ssoUrl: string;
  /** base64 DER bodies of the certificates whose keys may sign responses */
  signingCerts: string[];
  /** the attribute holding the user's email; unset: the usual email attributes, then an email-shaped NameID */
  emailAttribute?: string;
  /** the provider wants AuthnRequests signed (from its metadata or `wantAuthnRequestsSigned`) */
  wantAuthnRequestsSigned: boolean;
  /** responses without InResponseTo (sign-ins the identity provider starts) are accepted; default false */
  allowUnsolicited: boolean;
}

export interface SamlServiceProviderConfig {
  entityId: string;
  /** assertion consumer service URLs (HTTP-POST binding); the first is the default */
  acsUrls: string[];
  /** PEM key and certificate signing AuthnRequests; absent: requests go unsigned */
  signing?: { privateKey: string; certificate: string };
}

export interface SamlConfig {
  sp: SamlServiceProviderConfig;
  identityProviders: SamlIdentityProviderConfig[];
  clockSkewSeconds: number;
}

export const DEFAULT_CLOCK_SKEW_SECONDS = 60;
export const MAX_CLOCK_SKEW_SECONDS = 300;
export const DEFAULT_IDPS_FILE_NAME = 'saml-idps.json';

const ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

/**
 * Reads the SAML configuration from the environment; null when SSO is not
 * configured (no SAML_IDPS_FILE and no `$DATA_DIR/saml-idps.json`). Throws
 * SamlConfigError naming the variable or field at fault.
 */
export function loadSamlConfig(env: NodeJS.ProcessEnv = process.env): SamlConfig | null {
  const file = idpsFile(env);
  if (!file) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SamlConfigError('SAML_IDPS_FILE', `cannot read ${file} as JSON (${(err as Error).message})`);
  }
  return parseSamlConfig(raw, { env, baseDir: path.dirname(file) });
}

function idpsFile(env: NodeJS.ProcessEnv): string | null {
  if (env.SAML_IDPS_FILE) {
    const file = path.resolve(env.SAML_IDPS_FILE);
    if (!fs.existsSync(file)) throw new SamlConfigError('SAML_IDPS_FILE', `no file at ${file}`);
    return file;
  }
  const dflt = path.join(path.resolve(env.DATA_DIR || path.join(projectRoot(), 'data')), DEFAULT_IDPS_FILE_NAME);
  return fs.existsSync(dflt) ? dflt : null;
}

/**
 * Checks and normalises a configuration: `raw` is the identity-provider
 * file's content, the service provider's part comes from `env`. Relative
 * `metadataFile` paths are resolved against `baseDir`.
 */
export function parseSamlConfig(raw: unknown, opts: { env: NodeJS.ProcessEnv; baseDir?: string }): SamlConfig {
  const env = opts.env;
  const sp = serviceProvider(env);
  const clockSkewSeconds = clockSkew(env);
  const list = isObject(raw) ? raw.identityProviders : undefined;
  if (!Array.isArray(list))
    throw new SamlConfigError('SAML_IDPS_FILE identityProviders', 'must be an array of identity providers');
  const ids = new Set<string>();
  const owners = new Map<string, string>();
  const identityProviders = list.map((entry, i) => {
    const idp = identityProvider(entry, `SAML_IDPS_FILE identityProviders[${i}]`, opts.baseDir ?? process.cwd());
    if (ids.has(idp.id))
      throw new SamlConfigError(`SAML_IDPS_FILE identityProviders[${i}].id`, `'${idp.id}' is used twice`);
    ids.add(idp.id);
    idp.domains.forEach((d, j) => {
      const owner = owners.get(d);
      if (owner)
        throw new SamlConfigError(
          `SAML_IDPS_FILE identityProviders[${i}].domains[${j}]`,
          `'${d}' is already served by '${owner}'`,
        );
      owners.set(d, idp.id);
    });
    if (idp.wantAuthnRequestsSigned && !sp.signing) {
      throw new SamlConfigError(
        'SAML_SP_KEY_FILE',
        `identity provider '${idp.id}' wants signed AuthnRequests: set SAML_SP_KEY_FILE and SAML_SP_CERT_FILE`,
      );
    }
    return idp;
  });
  return { sp, identityProviders, clockSkewSeconds };
}

function serviceProvider(env: NodeJS.ProcessEnv): SamlServiceProviderConfig {
  const publicUrl = env.PUBLIC_URL ? httpUrl(env.PUBLIC_URL, 'PUBLIC_URL').replace(/\/+$/, '') : undefined;
  const projectId = env.PROJECT_ID || 'membership';
  let entityId = env.SAML_SP_ENTITY_ID?.trim();
  if (!entityId) {
    if (!publicUrl) throw new SamlConfigError('SAML_SP_ENTITY_ID', 'set it, or PUBLIC_URL to derive it from');
    entityId = `${publicUrl}/saml/metadata`;
  } else if (entityId.length > 1024) {
    throw new SamlConfigError('SAML_SP_ENTITY_ID', 'longer than 1024 characters');
  }
  let acsUrls: string[];
  if (env.SAML_ACS_URL?.trim()) {
    acsUrls = env.SAML_ACS_URL.split(',')
      .map((u) => u.trim())
      .filter(Boolean)
      .map((u) => httpUrl(u, 'SAML_ACS_URL'));
  } else {
    if (!publicUrl) throw new SamlConfigError('SAML_ACS_URL', 'set it, or PUBLIC_URL to derive it from');
    acsUrls = [`${publicUrl}/${projectId}/CALL/Member/singleSignOn`];
  }
  if (new Set(acsUrls).size !== acsUrls.length) throw new SamlConfigError('SAML_ACS_URL', 'lists a URL twice');
  return { entityId, acsUrls, signing: spSigning(env) };
}

function spSigning(env: NodeJS.ProcessEnv): SamlServiceProviderConfig['signing'] {
  const keyFile = env.SAML_SP_KEY_FILE;
  const certFile = env.SAML_SP_CERT_FILE;
  if (!keyFile && !certFile) return undefined;
  if (!keyFile) throw new SamlConfigError('SAML_SP_KEY_FILE', 'SAML_SP_CERT_FILE is set: set the key too');
  if (!certFile) throw new SamlConfigError('SAML_SP_CERT_FILE', 'SAML_SP_KEY_FILE is set: set the certificate too');
  const privateKey = readText(keyFile, 'SAML_SP_KEY_FILE');
  const certificate = readText(certFile, 'SAML_SP_CERT_FILE');
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey(privateKey);
  } catch (err) {
    throw new SamlConfigError('SAML_SP_KEY_FILE', `not a PEM private key (${(err as Error).message})`);
  }
  const cert = x509(certificate, 'SAML_SP_CERT_FILE');
  if (!cert.checkPrivateKey(key))
    throw new SamlConfigError('SAML_SP_KEY_FILE', 'does not match the certificate of SAML_SP_CERT_FILE');
  return { privateKey, certificate };
}

function clockSkew(env: NodeJS.ProcessEnv): number {
  const raw = env.SAML_CLOCK_SKEW_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_CLOCK_SKEW_SECONDS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > MAX_CLOCK_SKEW_SECONDS) {
    throw new SamlConfigError(
      'SAML_CLOCK_SKEW_SECONDS',
      `must be an integer from 0 to ${MAX_CLOCK_SKEW_SECONDS}, got '${raw}'`,
    );
  }
  return n;
}

function identityProvider(entry: unknown, at: string, baseDir: string): SamlIdentityProviderConfig {
  if (!isObject(entry)) throw new SamlConfigError(at, 'must be an object');
  const known = new Set([
    'id',
    'domains',
    'metadata',
    'metadataFile',
    'entityId',
    'ssoUrl',
    'signingCert',
    'emailAttribute',
    'wantAuthnRequestsSigned',
    'allowUnsolicited',
  ]);
  for (const k of Object.keys(entry))
    if (!known.has(k)) throw new SamlConfigError(`${at}.${k}`, `unknown field (known: ${[...known].join(', ')})`);

  const id = entry.id;
  if (typeof id !== 'string' || !ID.test(id))
    throw new SamlConfigError(`${at}.id`, 'must be 1-64 lowercase letters, digits, - or _');
  const domains = entry.domains;
  if (!Array.isArray(domains) || domains.length === 0)
    throw new SamlConfigError(`${at}.domains`, 'must list at least one email domain');
  const normalised = domains.map((d, j) => {
    const domain = typeof d === 'string' ? d.trim().toLowerCase() : '';
    if (!DOMAIN.test(domain)) throw new SamlConfigError(`${at}.domains[${j}]`, `'${String(d)}' is not a domain name`);
    return domain;
  });
  if (new Set(normalised).size !== normalised.length)
    throw new SamlConfigError(`${at}.domains`, 'lists a domain twice');

  const fromMetadata = metadataOf(entry, at, baseDir);
  const entityId = optionalString(entry, 'entityId', at) ?? fromMetadata?.entityId;
  if (!entityId) throw new SamlConfigError(`${at}.entityId`, 'set it, or give the provider’s metadata');
  const ssoUrlRaw = optionalString(entry, 'ssoUrl', at) ?? fromMetadata?.ssoUrl;
  if (!ssoUrlRaw)
    throw new SamlConfigError(
      `${at}.ssoUrl`,
      'set it (HTTP-Redirect binding), or give metadata with an HTTP-Redirect SingleSignOnService',
    );
  const ssoUrl = httpUrl(ssoUrlRaw, `${at}.ssoUrl`);

  let signingCerts: string[];
  if (entry.signingCert !== undefined) {
    const list = Array.isArray(entry.signingCert) ? entry.signingCert : [entry.signingCert];
    if (list.length === 0) throw new SamlConfigError(`${at}.signingCert`, 'must name at least one certificate');
    signingCerts = list.map((c, j) =>
      certBody(c, `${at}.signingCert${Array.isArray(entry.signingCert) ? `[${j}]` : ''}`),
    );
  } else {
    signingCerts = (fromMetadata?.signingCerts ?? []).map((c, j) =>
      certBody(c, `${at}.metadata signing certificate ${j}`),
    );
  }
  if (signingCerts.length === 0) {
    throw new SamlConfigError(
      `${at}.signingCert`,
      'no signing certificate: set it, or give metadata with a signing KeyDescriptor (without one any key would be trusted)',
    );
  }

  const emailAttribute = optionalString(entry, 'emailAttribute', at);
  const wantSigned = entry.wantAuthnRequestsSigned;
  if (wantSigned !== undefined && typeof wantSigned !== 'boolean')
    throw new SamlConfigError(`${at}.wantAuthnRequestsSigned`, 'must be true or false');
  const allowUnsolicited = entry.allowUnsolicited;
  if (allowUnsolicited !== undefined && typeof allowUnsolicited !== 'boolean')
    throw new SamlConfigError(`${at}.allowUnsolicited`, 'must be true or false');
  return {
    id,
    domains: normalised,
    entityId,
    ssoUrl,
    signingCerts,
    ...(emailAttribute ? { emailAttribute } : {}),
    wantAuthnRequestsSigned: wantSigned ?? fromMetadata?.wantAuthnRequestsSigned ?? false,
    allowUnsolicited: allowUnsolicited ?? false,
  };
}

interface MetadataFields {
  entityId?: string;
  ssoUrl?: string;
  signingCerts: string[];
  wantAuthnRequestsSigned: boolean;
}

function metadataOf(entry: Record<string, unknown>, at: string, baseDir: string): MetadataFields | undefined {
  let xml: string | undefined;
  let field = `${at}.metadata`;
  if (entry.metadata !== undefined && entry.metadataFile !== undefined)
    throw new SamlConfigError(field, 'give metadata or metadataFile, not both');
  if (entry.metadata !== undefined) {
    if (typeof entry.metadata !== 'string' || !entry.metadata.trim())
      throw new SamlConfigError(field, 'must be the metadata XML');
    xml = entry.metadata;
  } else if (entry.metadataFile !== undefined) {
    field = `${at}.metadataFile`;
    if (typeof entry.metadataFile !== 'string' || !entry.metadataFile)
      throw new SamlConfigError(field, 'must be a file path');
    xml = readText(path.resolve(baseDir, entry.metadataFile), field);
  }
  if (xml === undefined) return undefined;
  if (/<!DOCTYPE/i.test(xml)) throw new SamlConfigError(field, 'metadata with a DOCTYPE is refused');
  let meta: ReturnType<typeof IdPMetadata>;
  try {
    meta = IdPMetadata(xml);
  } catch (err) {
    throw new SamlConfigError(field, `not identity-provider metadata (${(err as Error).message})`);
  }
  const entityId = meta.getEntityID();
  if (typeof entityId !== 'string' || !entityId) throw new SamlConfigError(field, 'names no entityID');
  const sso = meta.getSingleSignOnService('redirect');
  const certs = meta.getX509Certificate('signing');
  return {
    entityId,
    ...(typeof sso === 'string' ? { ssoUrl: sso } : {}),
    signingCerts: (Array.isArray(certs) ? certs.flat(Infinity) : certs ? [certs] : []).filter(
      (c): c is string => typeof c === 'string',
    ),
    wantAuthnRequestsSigned: meta.isWantAuthnRequestsSigned() === true,
  };
}

function certBody(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim())
    throw new SamlConfigError(field, 'must be a certificate (PEM or base64 DER)');
  const body = value.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  x509(`-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`, field);
  return body;
}

function x509(pem: string, field: string): crypto.X509Certificate {
  try {
    return new crypto.X509Certificate(pem);
  } catch (err) {
    throw new SamlConfigError(field, `not an X.509 certificate (${(err as Error).message})`);
  }
}

function httpUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new SamlConfigError(field, `'${value}' is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new SamlConfigError(field, `'${value}' is not an http(s) URL`);
  return value.trim();
}

function optionalString(entry: Record<string, unknown>, key: string, at: string): string | undefined {
  const v = entry[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !v.trim()) throw new SamlConfigError(`${at}.${key}`, 'must be a non-empty string');
  return v.trim();
}

function readText(file: string, field: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SamlConfigError(
      field,
      `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
