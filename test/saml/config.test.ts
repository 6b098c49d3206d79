/** The SAML configuration: read from the environment and the identity-provider file, refused with the field at fault. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSamlConfig, parseSamlConfig, SamlConfigError } from '../../classes/_platform/saml';
import { fixture, TestIdp } from './test-idp';

const acme = new TestIdp('https://idp.acme.test/saml', 'https://idp.acme.test/sso');
const env = { PUBLIC_URL: 'https://members.example.test/', PROJECT_ID: 'membership' };
const explicit = {
  id: 'acme',
  domains: ['acme.test'],
  entityId: 'https://idp.acme.test/saml',
  ssoUrl: 'https://idp.acme.test/sso',
  signingCert: fixture('idp.cert.pem'),
};

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof SamlConfigError) return err.field;
    throw err;
  }
  throw new Error('accepted');
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saml-config-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the service provider’s entity id and ACS URL are built from PUBLIC_URL unless set', () => {
  const c = parseSamlConfig({ identityProviders: [explicit] }, { env });
  expect(c.sp).toEqual({
    entityId: 'https://members.example.test/saml/metadata',
    acsUrls: ['https://members.example.test/membership/CALL/Member/singleSignOn'],
    signing: undefined,
  });
  expect(c.clockSkewSeconds).toBe(60);
  const set = parseSamlConfig(
    { identityProviders: [explicit] },
    {
      env: {
        SAML_SP_ENTITY_ID: 'urn:members',
        SAML_ACS_URL: 'https://a.test/acs, https://a.test/acs2',
        SAML_CLOCK_SKEW_SECONDS: '0',
      },
    },
  );
  expect(set.sp).toMatchObject({ entityId: 'urn:members', acsUrls: ['https://a.test/acs', 'https://a.test/acs2'] });
  expect(set.clockSkewSeconds).toBe(0);
});

test('a provider from its metadata takes entity id, redirect SSO URL and signing certificate from it', () => {
  const [idp] = parseSamlConfig(
    { identityProviders: [{ id: 'acme', domains: ['ACME.test'], metadata: acme.metadata() }] },
    { env },
  ).identityProviders;
  const certBody = fixture('idp.cert.pem').replace(/-----[A-Z ]+-----|\s/g, '');
  expect(idp).toEqual({
    id: 'acme',
    domains: ['acme.test'],
    entityId: 'https://idp.acme.test/saml',
    ssoUrl: 'https://idp.acme.test/sso',
    signingCerts: [certBody],
    wantAuthnRequestsSigned: false,
    allowUnsolicited: false,
  });
});

test('loaded from SAML_IDPS_FILE, metadataFile relative to it; from $DATA_DIR/saml-idps.json by default; none: SSO off', () => {
  fs.writeFileSync(path.join(dir, 'acme.xml'), acme.metadata());
  fs.writeFileSync(
    path.join(dir, 'saml-idps.json'),
    JSON.stringify({ identityProviders: [{ id: 'acme', domains: ['acme.test'], metadataFile: 'acme.xml' }] }),
  );
  expect(
    loadSamlConfig({ ...env, SAML_IDPS_FILE: path.join(dir, 'saml-idps.json') })!.identityProviders[0]!.entityId,
  ).toBe('https://idp.acme.test/saml');
  expect(loadSamlConfig({ ...env, DATA_DIR: dir })!.identityProviders[0]!.id).toBe('acme');
  expect(loadSamlConfig({ ...env, DATA_DIR: path.join(dir, 'empty') })).toBeNull();
  expect(fieldOf(() => loadSamlConfig({ ...env, SAML_IDPS_FILE: path.join(dir, 'missing.json') }))).toBe(
    'SAML_IDPS_FILE',
  );
  fs.writeFileSync(path.join(dir, 'broken.json'), '{');
  expect(fieldOf(() => loadSamlConfig({ ...env, SAML_IDPS_FILE: path.join(dir, 'broken.json') }))).toBe(
    'SAML_IDPS_FILE',
  );
});

test('each mistake names its field', () => {
  const one = (p: Record<string, unknown>, e: NodeJS.ProcessEnv = env) =>
    fieldOf(() => parseSamlConfig({ identityProviders: [{ ...explicit, ...p }] }, { env: e }));
  const at = 'SAML_IDPS_FILE identityProviders[0]';
  expect(fieldOf(() => parseSamlConfig({}, { env }))).toBe('SAML_IDPS_FILE identityProviders');
  expect(one({ id: 'Not Valid' })).toBe(`${at}.id`);
  expect(one({ domains: [] })).toBe(`${at}.domains`);
  expect(one({ domains: ['acme.test', 'not a domain'] })).toBe(`${at}.domains[1]`);
  expect(one({ ssoUrl: 'ftp://idp' })).toBe(`${at}.ssoUrl`);
  expect(one({ signingCert: 'not a certificate' })).toBe(`${at}.signingCert`);
  expect(one({ signingCert: undefined })).toBe(`${at}.signingCert`);
  expect(one({ metadata: '<nope' })).toBe(`${at}.metadata`);
  expect(one({ metadataFile: 'does-not-exist.xml' })).toBe(`${at}.metadataFile`);
  expect(one({ colour: 'blue' })).toBe(`${at}.colour`);
  expect(one({}, { PROJECT_ID: 'membership' })).toBe('SAML_SP_ENTITY_ID');
  expect(one({}, { SAML_SP_ENTITY_ID: 'urn:x' })).toBe('SAML_ACS_URL');
  expect(one({}, { ...env, PUBLIC_URL: 'members.example.test' })).toBe('PUBLIC_URL');
  expect(one({}, { ...env, SAML_CLOCK_SKEW_SECONDS: '301' })).toBe('SAML_CLOCK_SKEW_SECONDS');
  expect(one({ wantAuthnRequestsSigned: true })).toBe('SAML_SP_KEY_FILE');
  expect(one({ allowUnsolicited: 'yes' })).toBe(`${at}.allowUnsolicited`);
});

test('a provider without any signing certificate is refused: samlify would trust whatever certificate a response carries', () => {
  const noKeys = acme.metadata().replace(/<KeyDescriptor[\s\S]*?<\/KeyDescriptor>/g, '');
  expect(noKeys).not.toContain('X509Certificate');
  expect(
    fieldOf(() =>
      parseSamlConfig({ identityProviders: [{ id: 'acme', domains: ['acme.test'], metadata: noKeys }] }, { env }),
    ),
  ).toBe('SAML_IDPS_FILE identityProviders[0].signingCert');
});

test('two providers may not share an id or a domain', () => {
  const globex = { ...explicit, id: 'globex', domains: ['globex.test', 'Acme.Test'] };
  expect(fieldOf(() => parseSamlConfig({ identityProviders: [explicit, globex] }, { env }))).toBe(
    'SAML_IDPS_FILE identityProviders[1].domains[1]',
  );
  expect(
    fieldOf(() => parseSamlConfig({ identityProviders: [explicit, { ...explicit, domains: ['b.test'] }] }, { env })),
  ).toBe('SAML_IDPS_FILE identityProviders[1].id');
});

test('the service provider’s key pair: both or neither, and they must match', () => {
  const write = (name: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, fixture(name));
    return file;
  };
  const key = write('sp.key.pem');
  const cert = write('sp.cert.pem');
  const otherCert = write('other-idp.cert.pem');
  const c = parseSamlConfig(
    { identityProviders: [{ ...explicit, wantAuthnRequestsSigned: true }] },
    { env: { ...env, SAML_SP_KEY_FILE: key, SAML_SP_CERT_FILE: cert } },
  );
  expect(c.sp.signing?.certificate).toContain('BEGIN CERTIFICATE');
  const field = (e: NodeJS.ProcessEnv) =>
    fieldOf(() => parseSamlConfig({ identityProviders: [explicit] }, { env: { ...env, ...e } }));
  expect(field({ SAML_SP_KEY_FILE: key })).toBe('SAML_SP_CERT_FILE');
  expect(field({ SAML_SP_CERT_FILE: cert })).toBe('SAML_SP_KEY_FILE');
  expect(field({ SAML_SP_KEY_FILE: key, SAML_SP_CERT_FILE: otherCert })).toBe('SAML_SP_KEY_FILE');
  expect(field({ SAML_SP_KEY_FILE: cert, SAML_SP_CERT_FILE: cert })).toBe('SAML_SP_KEY_FILE');
});
