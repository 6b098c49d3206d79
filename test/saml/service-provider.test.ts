/**
 * The SAML service provider against a real samlify identity provider signing
 * real responses with a test-only key pair (fixtures/), the replay memory a
 * real Redis `SET NX PXAT` shared by two service-provider instances (as two
 * processes would share it).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import type { ServiceProviderInstance } from 'samlify';
import {
  parseSamlConfig,
  SamlError,
  type SamlReason,
  type SamlServiceProvider,
  samlServiceProvider,
  type SeenCheck,
} from '../../classes/_platform/saml';
import { redisUrl, uniqueProjectId } from '../support/redis';
import { fixture, TestIdp } from './test-idp';

const SP_ENTITY = 'https://members.example.test/saml/metadata';
const ACS = 'https://members.example.test/membership/CALL/Member/singleSignOn';
const IDP_ENTITY = 'https://idp.acme.test/saml';
const IDP_SSO = 'https://idp.acme.test/sso';

const acme = new TestIdp(IDP_ENTITY, IDP_SSO);
/** another key pair claiming to be acme's identity provider */
const impostor = new TestIdp(IDP_ENTITY, IDP_SSO, fixture('other-idp.key.pem'), fixture('other-idp.cert.pem'));
/** another key, presenting acme's real certificate in its KeyInfo */
const impostorWithAcmeCert = new TestIdp(IDP_ENTITY, IDP_SSO, fixture('other-idp.key.pem'), fixture('idp.cert.pem'));
/** acme's key, but another entity id */
const otherIssuer = new TestIdp('https://idp.other.test/saml', IDP_SSO);

const env = { SAML_SP_ENTITY_ID: SP_ENTITY, SAML_ACS_URL: ACS, SAML_CLOCK_SKEW_SECONDS: '60' };
const idps = {
  identityProviders: [
    // from the provider's metadata, as an administrator would paste it
    { id: 'acme', domains: ['acme.test', 'Acme.Co.Test'], metadata: acme.metadata() },
    // from explicit fields
    { id: 'globex', domains: ['globex.test'], entityId: 'https://idp.globex.test', ssoUrl: 'https://idp.globex.test/sso', signingCert: fixture('other-idp.cert.pem') },
  ],
};

let redis: Redis;
let prefix: string;
/** the replay memory as the classes will back it: SET NX with the assertion's own expiry */
const seen: SeenCheck = async (key, expiresAt) => {
  const ok = await redis.call('SET', `${prefix}:${key}`, '1', 'PXAT', String(expiresAt.getTime()), 'NX');
  return ok !== 'OK';
};

let saml: SamlServiceProvider;
/** the service as the identity provider knows it, from its published metadata */
let spAtIdp: ServiceProviderInstance;

beforeAll(() => {
  redis = new Redis(redisUrl());
  prefix = uniqueProjectId('saml');
  saml = samlServiceProvider(parseSamlConfig(idps, { env }));
  spAtIdp = TestIdp.spFromMetadata(saml.spMetadata());
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

async function refusal(p: Promise<unknown>): Promise<SamlReason> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SamlError) return err.reason;
    throw err;
  }
  throw new Error('the response was accepted');
}

const provider = () => saml.idpById('acme')!;

describe('choosing the identity provider', () => {
  it('by the exact email domain, case-insensitively', () => {
    expect(saml.idpForEmail('ann@acme.test')?.id).toBe('acme');
    expect(saml.idpForEmail('  Ann@ACME.Test ')?.id).toBe('acme');
    expect(saml.idpForEmail('bob@acme.co.test')?.id).toBe('acme');
    expect(saml.idpForEmail('carl@globex.test')?.id).toBe('globex');
  });

  it('none for other domains, sub- or super-domains, and non-addresses', () => {
    for (const email of ['nobody@example.org', 'ann@sub.acme.test', 'ann@acme.test.evil', 'ann@test', 'acme.test', 'ann@', '', 'a b@acme.test']) {
      expect(saml.idpForEmail(email)).toBeNull();
    }
  });

  it('by the Issuer of a POSTed response, and none for an unknown issuer or garbage', async () => {
    expect(saml.idpForResponse(await acme.respond(spAtIdp, { email: 'ann@acme.test' }))?.id).toBe('acme');
    expect(saml.idpForResponse(await otherIssuer.respond(spAtIdp, { email: 'ann@acme.test' }))).toBeNull();
    expect(saml.idpForResponse('not base64 !')).toBeNull();
    expect(saml.idpForResponse(Buffer.from('<a/>').toString('base64'))).toBeNull();
  });
});

describe('metadata and login requests', () => {
  it('publishes its entity id, its HTTP-POST ACS and that it wants assertions signed; the identity provider reads it', () => {
    const xml = saml.spMetadata();
    expect(xml).toContain(`entityID="${SP_ENTITY}"`);
    expect(xml).toContain('WantAssertionsSigned="true"');
    expect(spAtIdp.entityMeta.getEntityID()).toBe(SP_ENTITY);
    expect(spAtIdp.entityMeta.getAssertionConsumerService('post')).toBe(ACS);
  });

  it('redirects to the identity provider with an AuthnRequest it parses, carrying the RelayState', async () => {
    const url = new URL(saml.loginUrl(provider(), 'r-123'));
    expect(`${url.origin}${url.pathname}`).toBe(IDP_SSO);
    expect(url.searchParams.get('RelayState')).toBe('r-123');
    const parsed = await acme.idp.parseLoginRequest(spAtIdp, 'redirect', { query: Object.fromEntries(url.searchParams) });
    expect(parsed.extract.issuer).toBe(SP_ENTITY);
    const request = parsed.extract.request as Record<string, string>;
    expect(request.assertionConsumerServiceUrl).toBe(ACS);
    expect(request.destination).toBe(IDP_SSO);
  });

  it('signs its AuthnRequests with its own key pair when given one, and publishes that certificate', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saml-sp-'));
    try {
      const keyFile = path.join(dir, 'sp.key.pem');
      const certFile = path.join(dir, 'sp.cert.pem');
      fs.writeFileSync(keyFile, fixture('sp.key.pem'));
      fs.writeFileSync(certFile, fixture('sp.cert.pem'));
      const strictIdp = new TestIdp(IDP_ENTITY, IDP_SSO, undefined, undefined, { wantAuthnRequestsSigned: true });
      const signing = samlServiceProvider(
        parseSamlConfig({ identityProviders: [{ id: 'acme', domains: ['acme.test'], metadata: strictIdp.metadata() }] }, { env: { ...env, SAML_SP_KEY_FILE: keyFile, SAML_SP_CERT_FILE: certFile } }),
      );
      expect(signing.spMetadata()).toContain('AuthnRequestsSigned="true"');
      const spAtStrictIdp = TestIdp.spFromMetadata(signing.spMetadata());
      const url = new URL(signing.loginUrl(signing.idpById('acme')!, 'r-9'));
      // HTTP-Redirect binding: the signature covers the query as sent, Signature itself left out
      const octetString = url.search.slice(1).split('&').filter((p) => !p.startsWith('Signature=')).join('&');
      const query = Object.fromEntries(url.searchParams);
      expect(query.Signature).toBeTruthy();
      const parsed = await strictIdp.idp.parseLoginRequest(spAtStrictIdp, 'redirect', { query, octetString });
      expect(parsed.extract.issuer).toBe(SP_ENTITY);
      // the unsigned service provider's request is refused by an identity provider that wants them signed
      const unsigned = new URL(saml.loginUrl(provider(), 'r-9'));
      await expect(
        strictIdp.idp.parseLoginRequest(spAtStrictIdp, 'redirect', { query: Object.fromEntries(unsigned.searchParams), octetString: unsigned.search.slice(1) }),
      ).rejects.toThrow('ERR_MISSING_SIG_ALG');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a RelayState over 80 bytes and a provider it does not know', () => {
    expect(() => saml.loginUrl(provider(), 'x'.repeat(81))).toThrow(/80 bytes/);
    expect(() => saml.loginUrl({ id: 'nope', entityId: 'x', domains: [] }, 'r')).toThrow(SamlError);
  });
});

describe('a response from the identity provider', () => {
  it('signed by its key for this service is accepted: email, NameID, attributes, assertion id, validity', async () => {
    const response = await acme.respond(spAtIdp, {
      nameId: 'E1001',
      attributes: { email: 'Ann@Acme.Test', groups: ['staff', 'crew'], givenName: 'Ann' },
      assertionId: '_a-good-one-' + prefix,
      inResponseTo: '_req-1',
    });
    const user = await saml.parseResponse(provider(), response, seen);
    expect(user).toMatchObject({
      providerId: 'acme',
      email: 'ann@acme.test',
      nameId: 'E1001',
      assertionId: '_a-good-one-' + prefix,
      inResponseTo: '_req-1',
      attributes: { email: 'Ann@Acme.Test', groups: ['staff', 'crew'], givenName: 'Ann' },
    });
    expect(user.notOnOrAfter.getTime()).toBeGreaterThan(Date.now());
  });

  it('with only the whole Response signed (not the assertion) is accepted too', async () => {
    const spNotWantingAssertionSigned = TestIdp.spFromMetadata(saml.spMetadata().replace('WantAssertionsSigned="true"', 'WantAssertionsSigned="false"'));
    const response = await acme.respond(spNotWantingAssertionSigned, { email: 'ann@acme.test' });
    const xml = Buffer.from(response, 'base64').toString();
    expect(xml).toMatch(/<\/saml:Issuer><ds:Signature/); // the Response's signature, after its Issuer
    expect((await saml.parseResponse(provider(), response, seen)).email).toBe('ann@acme.test');
  });

  it('takes an email-shaped NameID when no email attribute is sent', async () => {
    const user = await saml.parseResponse(provider(), await acme.respond(spAtIdp, { nameId: 'bob@acme.test', attributes: {} }), seen);
    expect(user.email).toBe('bob@acme.test');
  });

  it('unsigned is refused', async () => {
    expect(await refusal(saml.parseResponse(provider(), acme.unsigned(spAtIdp, { email: 'ann@acme.test' }), seen))).toBe('SAML_UNSIGNED');
  });

  it('signed by another key is refused, whether it shows its own certificate or acme’s', async () => {
    expect(await refusal(saml.parseResponse(provider(), await impostor.respond(spAtIdp, { email: 'ann@acme.test' }), seen))).toBe('SAML_BAD_SIGNATURE');
    expect(await refusal(saml.parseResponse(provider(), await impostorWithAcmeCert.respond(spAtIdp, { email: 'ann@acme.test' }), seen))).toBe('SAML_BAD_SIGNATURE');
  });

  it('altered after signing is refused', async () => {
    const xml = Buffer.from(await acme.respond(spAtIdp, { email: 'ann@acme.test' }), 'base64').toString();
    const altered = xml.replace(/>ann@acme\.test</g, '>boss@acme.test<');
    expect(altered).not.toBe(xml);
    expect(await refusal(saml.parseResponse(provider(), Buffer.from(altered).toString('base64'), seen))).toBe('SAML_BAD_SIGNATURE');
  });

  it('checked against the provider it claims to come from: globex’s key does not verify acme’s signature', async () => {
    const response = await acme.respond(spAtIdp, { email: 'carl@globex.test' });
    expect(await refusal(saml.parseResponse(saml.idpById('globex')!, response, seen))).toBe('SAML_BAD_SIGNATURE');
  });

  it('issued by another entity id is refused', async () => {
    expect(await refusal(saml.parseResponse(provider(), await otherIssuer.respond(spAtIdp, { email: 'ann@acme.test' }), seen))).toBe('SAML_ISSUER');
  });

  it('for another audience is refused', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test', audience: 'https://other-service.example.test' });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_AUDIENCE');
  });

  it('addressed to another endpoint is refused', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test', recipient: 'https://other-service.example.test/acs' });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_RECIPIENT');
  });

  it('expired (Conditions NotOnOrAfter past the clock skew) is refused', async () => {
    const past = new Date(Date.now() - 10 * 60_000);
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test', notBefore: new Date(Date.now() - 20 * 60_000), notOnOrAfter: past });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_EXPIRED');
  });

  it('past its bearer confirmation’s NotOnOrAfter is refused even when the conditions still hold', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test', subjectNotOnOrAfter: new Date(Date.now() - 10 * 60_000) });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_EXPIRED');
  });

  it('not valid yet (NotBefore beyond the clock skew) is refused', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test', notBefore: new Date(Date.now() + 10 * 60_000), notOnOrAfter: new Date(Date.now() + 20 * 60_000) });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_EXPIRED');
  });

  it('just past its NotOnOrAfter but within the clock skew is accepted', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test', notOnOrAfter: new Date(Date.now() - 20_000) });
    expect((await saml.parseResponse(provider(), response, seen)).email).toBe('ann@acme.test');
  });

  it('replayed is refused, also by another service-provider instance sharing the replay memory', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test' });
    await saml.parseResponse(provider(), response, seen);
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_REPLAYED');
    const otherProcess = samlServiceProvider(parseSamlConfig(idps, { env }));
    expect(await refusal(otherProcess.parseResponse(otherProcess.idpById('acme')!, response, seen))).toBe('SAML_REPLAYED');
  });

  it('remembered only until it would expire anyway, and a refused response burns no assertion id', async () => {
    const assertionId = `_remembered-${prefix}`;
    const notOnOrAfter = new Date(Date.now() + 5 * 60_000);
    expect(await refusal(saml.parseResponse(provider(), await acme.respond(spAtIdp, { email: 'ann@acme.test', assertionId, audience: 'x' }), seen))).toBe('SAML_AUDIENCE');
    expect(await redis.exists(`${prefix}:acme:${assertionId}`)).toBe(0);
    await saml.parseResponse(provider(), await acme.respond(spAtIdp, { email: 'ann@acme.test', assertionId, notOnOrAfter }), seen);
    const expiresAt = Number(await redis.call('PEXPIRETIME', `${prefix}:acme:${assertionId}`));
    // NotOnOrAfter (whole seconds in the XML) + the 60 s skew
    expect(expiresAt).toBe(new Date(notOnOrAfter.toISOString()).getTime() + 60_000);
  });

  it('for a user of another provider’s domain is refused: acme cannot sign globex users in', async () => {
    const response = await acme.respond(spAtIdp, { email: 'carl@globex.test' });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_EMAIL_DOMAIN');
  });

  it('without any email is refused', async () => {
    const response = await acme.respond(spAtIdp, { nameId: 'E1001', attributes: { givenName: 'Ann' } });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_NO_EMAIL');
  });

  it('with a failure status is refused', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test', statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder' });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_STATUS');
  });

  it('that is not base64, carries a DOCTYPE or is no SAML Response is refused as malformed', async () => {
    const quiet = [jest.spyOn(console, 'error').mockImplementation(() => {}), jest.spyOn(console, 'debug').mockImplementation(() => {})];
    try {
      expect(await refusal(saml.parseResponse(provider(), 'not base64 !', seen))).toBe('SAML_MALFORMED');
      const doctype = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "y">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&x;</samlp:Response>';
      expect(await refusal(saml.parseResponse(provider(), Buffer.from(doctype).toString('base64'), seen))).toBe('SAML_MALFORMED');
      expect(await refusal(saml.parseResponse(provider(), Buffer.from('<hello>world</hello>').toString('base64'), seen))).toBe('SAML_MALFORMED');
    } finally {
      quiet.forEach((s) => s.mockRestore());
    }
  });

  it('for a provider that is not configured is refused', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test' });
    expect(await refusal(saml.parseResponse({ id: 'nope', entityId: IDP_ENTITY, domains: ['acme.test'] }, response, seen))).toBe('SAML_UNKNOWN_IDP');
  });
});
