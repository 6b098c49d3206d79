/**
 * The SAML service provider against a real samlify identity provider signing
 * real responses with a test-only key pair (fixtures/), the memory (assertions
 * accepted, AuthnRequests issued and answered) a real Redis `SET NX PXAT`
 * shared by two service-provider instances (as two processes would share it).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import type { ServiceProviderInstance } from 'samlify';
import {
  AUTHN_REQUEST_TTL_SECONDS,
  parseSamlConfig,
  SamlError,
  type SamlReason,
  type SamlServiceProvider,
  samlServiceProvider,
  type SeenCheck,
} from '../../classes/_platform/saml';
import { withoutSloWarning } from '../../classes/_platform/saml/service-provider';
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
/** the second configured provider, globex, with its own key */
const globex = new TestIdp(
  'https://idp.globex.test',
  'https://idp.globex.test/sso',
  fixture('other-idp.key.pem'),
  fixture('other-idp.cert.pem'),
);

const env = { SAML_SP_ENTITY_ID: SP_ENTITY, SAML_ACS_URL: ACS, SAML_CLOCK_SKEW_SECONDS: '60' };
const idps = {
  identityProviders: [
    // from the provider's metadata, as an administrator would paste it
    { id: 'acme', domains: ['acme.test', 'Acme.Co.Test'], metadata: acme.metadata() },
    // from explicit fields
    {
      id: 'globex',
      domains: ['globex.test'],
      entityId: 'https://idp.globex.test',
      ssoUrl: 'https://idp.globex.test/sso',
      signingCert: fixture('other-idp.cert.pem'),
    },
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
/** the usual sign-in: the service's login URL, and acme's signed answer to its AuthnRequest */
const signIn = async (o: Parameters<TestIdp['respond']>[1] = {}, sp = spAtIdp) =>
  acme.answer(await saml.loginUrl(provider(), seen), sp, o);

describe('choosing the identity provider', () => {
  it('by the exact email domain, case-insensitively', () => {
    expect(saml.idpForEmail('ann@acme.test')?.id).toBe('acme');
    expect(saml.idpForEmail('  Ann@ACME.Test ')?.id).toBe('acme');
    expect(saml.idpForEmail('bob@acme.co.test')?.id).toBe('acme');
    expect(saml.idpForEmail('carl@globex.test')?.id).toBe('globex');
  });

  it('none for other domains, sub- or super-domains, and non-addresses', () => {
    for (const email of [
      'nobody@example.org',
      'ann@sub.acme.test',
      'ann@acme.test.evil',
      'ann@test',
      'acme.test',
      'ann@',
      '',
      'a b@acme.test',
    ]) {
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
    const url = new URL(await saml.loginUrl(provider(), seen, 'r-123'));
    expect(`${url.origin}${url.pathname}`).toBe(IDP_SSO);
    expect(url.searchParams.get('RelayState')).toBe('r-123');
    const parsed = await acme.idp.parseLoginRequest(spAtIdp, 'redirect', {
      query: Object.fromEntries(url.searchParams),
    });
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
        parseSamlConfig(
          { identityProviders: [{ id: 'acme', domains: ['acme.test'], metadata: strictIdp.metadata() }] },
          { env: { ...env, SAML_SP_KEY_FILE: keyFile, SAML_SP_CERT_FILE: certFile } },
        ),
      );
      expect(signing.spMetadata()).toContain('AuthnRequestsSigned="true"');
      const spAtStrictIdp = TestIdp.spFromMetadata(signing.spMetadata());
      const url = new URL(await signing.loginUrl(signing.idpById('acme')!, seen, 'r-9'));
      // HTTP-Redirect binding: the signature covers the query as sent, Signature itself left out
      const octetString = url.search
        .slice(1)
        .split('&')
        .filter((p) => !p.startsWith('Signature='))
        .join('&');
      const query = Object.fromEntries(url.searchParams);
      expect(query.Signature).toBeTruthy();
      const parsed = await strictIdp.idp.parseLoginRequest(spAtStrictIdp, 'redirect', { query, octetString });
      expect(parsed.extract.issuer).toBe(SP_ENTITY);
      // the unsigned service provider's request is refused by an identity provider that wants them signed
      const unsigned = new URL(await saml.loginUrl(provider(), seen, 'r-9'));
      await expect(
        strictIdp.idp.parseLoginRequest(spAtStrictIdp, 'redirect', {
          query: Object.fromEntries(unsigned.searchParams),
          octetString: unsigned.search.slice(1),
        }),
      ).rejects.toThrow('ERR_MISSING_SIG_ALG');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a RelayState over 80 bytes and a provider it does not know', async () => {
    await expect(saml.loginUrl(provider(), seen, 'x'.repeat(81))).rejects.toThrow(/80 bytes/);
    await expect(saml.loginUrl({ id: 'nope', entityId: 'x', domains: [] }, seen, 'r')).rejects.toThrow(SamlError);
  });

  it('remembers each AuthnRequest id for as long as it may be answered', async () => {
    const before = Date.now();
    const { id } = await acme.request(await saml.loginUrl(provider(), seen), spAtIdp);
    const after = Date.now();
    const expiresAt = Number(await redis.call('PEXPIRETIME', `${prefix}:.request:acme:${id}`));
    expect(expiresAt).toBeGreaterThanOrEqual(before + AUTHN_REQUEST_TTL_SECONDS * 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + AUTHN_REQUEST_TTL_SECONDS * 1000);
  });
});

describe('a response from the identity provider', () => {
  it('signed by its key for this service, answering its AuthnRequest, is accepted: email, NameID, attributes, assertion id, request, validity', async () => {
    const loginUrl = await saml.loginUrl(provider(), seen);
    const response = await acme.answer(loginUrl, spAtIdp, {
      nameId: 'E1001',
      attributes: { email: 'Ann@Acme.Test', groups: ['staff', 'crew'], givenName: 'Ann' },
      assertionId: '_a-good-one-' + prefix,
    });
    const user = await saml.parseResponse(provider(), response, seen);
    expect(user).toMatchObject({
      providerId: 'acme',
      email: 'ann@acme.test',
      nameId: 'E1001',
      assertionId: '_a-good-one-' + prefix,
      inResponseTo: (await acme.request(loginUrl, spAtIdp)).id,
      attributes: { email: 'Ann@Acme.Test', groups: ['staff', 'crew'], givenName: 'Ann' },
    });
    expect(user.notOnOrAfter.getTime()).toBeGreaterThan(Date.now());
  });

  it('with only the whole Response signed (not the assertion) is accepted too', async () => {
    const spNotWantingAssertionSigned = TestIdp.spFromMetadata(
      saml.spMetadata().replace('WantAssertionsSigned="true"', 'WantAssertionsSigned="false"'),
    );
    const response = await signIn({ email: 'ann@acme.test' }, spNotWantingAssertionSigned);
    const xml = Buffer.from(response, 'base64').toString();
    expect(xml).toMatch(/<\/saml:Issuer><ds:Signature/); // the Response's signature, after its Issuer
    expect((await saml.parseResponse(provider(), response, seen)).email).toBe('ann@acme.test');
  });

  it('takes an email-shaped NameID when no email attribute is sent', async () => {
    const user = await saml.parseResponse(provider(), await signIn({ nameId: 'bob@acme.test', attributes: {} }), seen);
    expect(user.email).toBe('bob@acme.test');
  });

  it('unsigned is refused', async () => {
    expect(
      await refusal(saml.parseResponse(provider(), acme.unsigned(spAtIdp, { email: 'ann@acme.test' }), seen)),
    ).toBe('SAML_UNSIGNED');
  });

  it('signed by another key is refused, whether it shows its own certificate or acme’s', async () => {
    expect(
      await refusal(saml.parseResponse(provider(), await impostor.respond(spAtIdp, { email: 'ann@acme.test' }), seen)),
    ).toBe('SAML_BAD_SIGNATURE');
    expect(
      await refusal(
        saml.parseResponse(provider(), await impostorWithAcmeCert.respond(spAtIdp, { email: 'ann@acme.test' }), seen),
      ),
    ).toBe('SAML_BAD_SIGNATURE');
  });

  it('altered after signing is refused', async () => {
    const xml = Buffer.from(await acme.respond(spAtIdp, { email: 'ann@acme.test' }), 'base64').toString();
    const altered = xml.replace(/>ann@acme\.test</g, '>boss@acme.test<');
    expect(altered).not.toBe(xml);
    expect(await refusal(saml.parseResponse(provider(), Buffer.from(altered).toString('base64'), seen))).toBe(
      'SAML_BAD_SIGNATURE',
    );
  });

  it('checked against the provider it claims to come from: globex’s key does not verify acme’s signature', async () => {
    const response = await acme.respond(spAtIdp, { email: 'carl@globex.test' });
    expect(await refusal(saml.parseResponse(saml.idpById('globex')!, response, seen))).toBe('SAML_BAD_SIGNATURE');
  });

  it('issued by another entity id is refused', async () => {
    expect(
      await refusal(
        saml.parseResponse(provider(), await otherIssuer.respond(spAtIdp, { email: 'ann@acme.test' }), seen),
      ),
    ).toBe('SAML_ISSUER');
  });

  it('for another audience is refused', async () => {
    const response = await acme.respond(spAtIdp, {
      email: 'ann@acme.test',
      audience: 'https://other-service.example.test',
    });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_AUDIENCE');
  });

  it('addressed to another endpoint is refused, by its Destination or its Recipient alone too', async () => {
    const elsewhere = 'https://other-service.example.test/acs';
    for (const o of [{ recipient: elsewhere }, { destination: elsewhere }, { subjectRecipient: elsewhere }]) {
      expect([
        o,
        await refusal(saml.parseResponse(provider(), await signIn({ email: 'ann@acme.test', ...o }), seen)),
      ]).toEqual([o, 'SAML_RECIPIENT']);
    }
  });

  it('without a Destination on the Response, or a Recipient on its bearer confirmation, is refused (profile 4.1.4.3)', async () => {
    expect(
      await refusal(saml.parseResponse(provider(), await signIn({ email: 'ann@acme.test', destination: null }), seen)),
    ).toBe('SAML_RECIPIENT');
    expect(
      await refusal(
        saml.parseResponse(provider(), await signIn({ email: 'ann@acme.test', subjectRecipient: null }), seen),
      ),
    ).toBe('SAML_RECIPIENT');
    // the same with both, to the same request: accepted (the refusals burnt nothing)
    const loginUrl = await saml.loginUrl(provider(), seen);
    expect(
      await refusal(
        saml.parseResponse(
          provider(),
          await acme.answer(loginUrl, spAtIdp, { email: 'ann@acme.test', subjectRecipient: null }),
          seen,
        ),
      ),
    ).toBe('SAML_RECIPIENT');
    expect(
      (await saml.parseResponse(provider(), await acme.answer(loginUrl, spAtIdp, { email: 'ann@acme.test' }), seen))
        .email,
    ).toBe('ann@acme.test');
  });

  it('expired (Conditions NotOnOrAfter past the clock skew) is refused', async () => {
    const past = new Date(Date.now() - 10 * 60_000);
    const response = await acme.respond(spAtIdp, {
      email: 'ann@acme.test',
      notBefore: new Date(Date.now() - 20 * 60_000),
      notOnOrAfter: past,
    });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_EXPIRED');
  });

  it('whose bearer confirmation carries no NotOnOrAfter is refused (profile 4.1.4.2), even when the conditions have one', async () => {
    expect(
      await refusal(
        saml.parseResponse(provider(), await signIn({ email: 'ann@acme.test', subjectNotOnOrAfter: null }), seen),
      ),
    ).toBe('SAML_EXPIRED');
  });

  it('past its bearer confirmation’s NotOnOrAfter is refused even when the conditions still hold', async () => {
    const response = await acme.respond(spAtIdp, {
      email: 'ann@acme.test',
      subjectNotOnOrAfter: new Date(Date.now() - 10 * 60_000),
    });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_EXPIRED');
  });

  it('not valid yet (NotBefore beyond the clock skew) is refused', async () => {
    const response = await acme.respond(spAtIdp, {
      email: 'ann@acme.test',
      notBefore: new Date(Date.now() + 10 * 60_000),
      notOnOrAfter: new Date(Date.now() + 20 * 60_000),
    });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_EXPIRED');
  });

  it('just past its NotOnOrAfter but within the clock skew is accepted', async () => {
    const response = await signIn({ email: 'ann@acme.test', notOnOrAfter: new Date(Date.now() - 20_000) });
    expect((await saml.parseResponse(provider(), response, seen)).email).toBe('ann@acme.test');
  });

  it('replayed is refused, also by another service-provider instance sharing the replay memory', async () => {
    const response = await signIn({ email: 'ann@acme.test' });
    await saml.parseResponse(provider(), response, seen);
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_REPLAYED');
    const otherProcess = samlServiceProvider(parseSamlConfig(idps, { env }));
    expect(await refusal(otherProcess.parseResponse(otherProcess.idpById('acme')!, response, seen))).toBe(
      'SAML_REPLAYED',
    );
  });

  it('remembered only until it would expire anyway, and a refused response burns no assertion id', async () => {
    const assertionId = `_remembered-${prefix}`;
    const notOnOrAfter = new Date(Date.now() + 5 * 60_000);
    const loginUrl = await saml.loginUrl(provider(), seen);
    expect(
      await refusal(
        saml.parseResponse(
          provider(),
          await acme.answer(loginUrl, spAtIdp, { email: 'ann@acme.test', assertionId, audience: 'x' }),
          seen,
        ),
      ),
    ).toBe('SAML_AUDIENCE');
    expect(await redis.exists(`${prefix}:acme:${assertionId}`)).toBe(0);
    // nor its request: answered again, it is accepted
    await saml.parseResponse(
      provider(),
      await acme.answer(loginUrl, spAtIdp, { email: 'ann@acme.test', assertionId, notOnOrAfter }),
      seen,
    );
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
    const response = await acme.respond(spAtIdp, {
      email: 'ann@acme.test',
      statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
    });
    expect(await refusal(saml.parseResponse(provider(), response, seen))).toBe('SAML_STATUS');
  });

  it('that is not base64, carries a DOCTYPE or is no SAML Response is refused as malformed', async () => {
    const quiet = [
      jest.spyOn(console, 'error').mockImplementation(() => {}),
      jest.spyOn(console, 'debug').mockImplementation(() => {}),
    ];
    try {
      expect(await refusal(saml.parseResponse(provider(), 'not base64 !', seen))).toBe('SAML_MALFORMED');
      const doctype =
        '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "y">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&x;</samlp:Response>';
      expect(await refusal(saml.parseResponse(provider(), Buffer.from(doctype).toString('base64'), seen))).toBe(
        'SAML_MALFORMED',
      );
      expect(
        await refusal(saml.parseResponse(provider(), Buffer.from('<hello>world</hello>').toString('base64'), seen)),
      ).toBe('SAML_MALFORMED');
    } finally {
      quiet.forEach((s) => s.mockRestore());
    }
  });

  it('for a provider that is not configured is refused', async () => {
    const response = await acme.respond(spAtIdp, { email: 'ann@acme.test' });
    expect(
      await refusal(saml.parseResponse({ id: 'nope', entityId: IDP_ENTITY, domains: ['acme.test'] }, response, seen)),
    ).toBe('SAML_UNKNOWN_IDP');
  });
});

describe('InResponseTo: the AuthnRequest a response answers', () => {
  const ann = { email: 'ann@acme.test' };
  /** acme's configuration with allowUnsolicited, in a service provider sharing the memory */
  const lenient = () =>
    samlServiceProvider(
      parseSamlConfig(
        { identityProviders: [{ ...idps.identityProviders[0]!, allowUnsolicited: true }, idps.identityProviders[1]!] },
        { env },
      ),
    );

  it('naming no request this service made is refused', async () => {
    expect(
      await refusal(
        saml.parseResponse(
          provider(),
          await acme.respond(spAtIdp, { ...ann, inResponseTo: `_never-asked-${prefix}` }),
          seen,
        ),
      ),
    ).toBe('SAML_UNKNOWN_REQUEST');
  });

  it('naming a request made to another provider is refused: globex may not answer what acme was asked', async () => {
    const askedAcme = await acme.request(await saml.loginUrl(provider(), seen), spAtIdp);
    const response = await globex.respond(spAtIdp, { email: 'carl@globex.test', inResponseTo: askedAcme.id });
    expect(await refusal(saml.parseResponse(saml.idpById('globex')!, response, seen))).toBe('SAML_UNKNOWN_REQUEST');
    // answered by acme, it is accepted
    expect(
      (await saml.parseResponse(provider(), await acme.respond(spAtIdp, { ...ann, inResponseTo: askedAcme.id }), seen))
        .inResponseTo,
    ).toBe(askedAcme.id);
  });

  it('answering a request already answered is refused, even with a fresh assertion, also by another instance', async () => {
    const loginUrl = await saml.loginUrl(provider(), seen);
    await saml.parseResponse(provider(), await acme.answer(loginUrl, spAtIdp, ann), seen);
    expect(await refusal(saml.parseResponse(provider(), await acme.answer(loginUrl, spAtIdp, ann), seen))).toBe(
      'SAML_REPLAYED',
    );
    const otherProcess = samlServiceProvider(parseSamlConfig(idps, { env }));
    expect(
      await refusal(
        otherProcess.parseResponse(otherProcess.idpById('acme')!, await acme.answer(loginUrl, spAtIdp, ann), seen),
      ),
    ).toBe('SAML_REPLAYED');
  });

  it('an unknown request stays refused when it comes again', async () => {
    const inResponseTo = `_guessed-${prefix}`;
    expect(
      await refusal(saml.parseResponse(provider(), await acme.respond(spAtIdp, { ...ann, inResponseTo }), seen)),
    ).toBe('SAML_UNKNOWN_REQUEST');
    expect(
      await refusal(saml.parseResponse(provider(), await acme.respond(spAtIdp, { ...ann, inResponseTo }), seen)),
    ).toBe('SAML_REPLAYED');
  });

  it('a request issued by another instance sharing the memory is answered here', async () => {
    const otherProcess = samlServiceProvider(parseSamlConfig(idps, { env }));
    const loginUrl = await otherProcess.loginUrl(otherProcess.idpById('acme')!, seen);
    expect((await saml.parseResponse(provider(), await acme.answer(loginUrl, spAtIdp, ann), seen)).email).toBe(
      'ann@acme.test',
    );
  });

  it('a Response whose InResponseTo is not its signed assertion’s is refused', async () => {
    const loginUrl = await saml.loginUrl(provider(), seen);
    const { id } = await acme.request(loginUrl, spAtIdp);
    const xml = Buffer.from(await acme.answer(loginUrl, spAtIdp, ann), 'base64').toString();
    // only the assertion is signed: the Response's attribute can be changed without breaking the signature
    const changed = xml.replace(/^([^]*?<samlp:Response\b[^>]*?InResponseTo=")[^"]*"/, '$1_another"');
    const responseTag = (x: string) => x.match(/<samlp:Response\b[^>]*>/)![0];
    expect(responseTag(xml)).toContain(`InResponseTo="${id}"`);
    expect(responseTag(changed)).toContain('InResponseTo="_another"');
    expect(await refusal(saml.parseResponse(provider(), Buffer.from(changed).toString('base64'), seen))).toBe(
      'SAML_UNKNOWN_REQUEST',
    );
    // unchanged, it is accepted
    expect((await saml.parseResponse(provider(), Buffer.from(xml).toString('base64'), seen)).inResponseTo).toBe(id);
  });

  it('unsolicited (no InResponseTo: the identity provider started the sign-in) is refused by default', async () => {
    expect(await refusal(saml.parseResponse(provider(), await acme.respond(spAtIdp, ann), seen))).toBe(
      'SAML_UNSOLICITED',
    );
  });

  it('unsolicited is accepted from a provider configured with allowUnsolicited; its solicited ones are still checked', async () => {
    const sp = lenient();
    const user = await sp.parseResponse(sp.idpById('acme')!, await acme.respond(spAtIdp, ann), seen);
    expect([user.email, user.inResponseTo]).toEqual(['ann@acme.test', null]);
    expect(
      await refusal(
        sp.parseResponse(
          sp.idpById('acme')!,
          await acme.respond(spAtIdp, { ...ann, inResponseTo: `_unknown-${prefix}` }),
          seen,
        ),
      ),
    ).toBe('SAML_UNKNOWN_REQUEST');
    // globex is not allowed
    expect(
      await refusal(
        sp.parseResponse(sp.idpById('globex')!, await globex.respond(spAtIdp, { email: 'carl@globex.test' }), seen),
      ),
    ).toBe('SAML_UNSOLICITED');
  });
});

describe('samlify console noise', () => {
  it("samlify's single-logout warning is dropped while a provider is built, other warnings still reach the console", () => {
    const seenWarnings: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void seenWarnings.push(args);
    try {
      samlServiceProvider(parseSamlConfig(idps, { env }));
      expect(seenWarnings).toEqual([]);
      withoutSloWarning(() => console.warn('something else'));
      expect(seenWarnings).toEqual([['something else']]);
      // the console is restored afterwards, also when the build throws
      expect(() =>
        withoutSloWarning(() => {
          throw new Error('bad');
        }),
      ).toThrow('bad');
      console.warn('after');
      expect(seenWarnings).toEqual([['something else'], ['after']]);
    } finally {
      console.warn = warn;
    }
  });
});
