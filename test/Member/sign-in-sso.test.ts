/**
 * Member single sign-on end to end (spec 3.1, 4.5, 5): the service as a SAML
 * service provider of a real samlify identity provider (test/saml/test-idp.ts)
 * signing real responses with the test-only keys of test/saml/fixtures.
 * discoverAuthMethod sends an email of the provider's domain to it with an
 * AuthnRequest asking for Member's assertion consumer service; the signed
 * response posted to singleSignOn signs the member in and sends the browser to
 * the member application with its session (303); an invited member is
 * activated (the 3.1 row); replays, other keys, unsigned or expired responses,
 * other audiences, unknown and inactive members are refused.
 *
 * The identity provider's browser POST is form-encoded; the runtime parses
 * JSON bodies only for now, so the same fields are posted as JSON here.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ServiceProviderInstance } from 'samlify';
import { parseSamlConfig, samlServiceProvider } from '../../classes/_platform/saml';
import { memberAcsOnly } from '../../classes/Member/sign-in-rules';
import { fixture, TestIdp } from '../saml/test-idp';
import { startSmtpSink, type SmtpSink } from '../mail/smtp-sink';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';
import { findLogs } from '../support/logs';
import { createMember, memberState, seed, seedProgram, uniq } from './support';
import { APP, bearer, codeIn, freshIp, from, nthMail, PASSWORD } from './sign-in-support';

const ORIGIN = 'https://members.example.test';
const SP_ENTITY = `${ORIGIN}/saml/metadata`;
const IDP_ENTITY = 'https://idp.acme.test/saml';
const IDP_SSO = 'https://idp.acme.test/sso';

const acme = new TestIdp(IDP_ENTITY, IDP_SSO);
/** another key pair claiming to be acme's identity provider */
const impostor = new TestIdp(IDP_ENTITY, IDP_SSO, fixture('other-idp.key.pem'), fixture('other-idp.cert.pem'));

const projectId = uniqueProjectId('msso');
const memberAcs = `${ORIGIN}/${projectId}/CALL/Member/singleSignOn`;
const pmAcs = `${ORIGIN}/${projectId}/CALL/ProgramManagementUser/singleSignOn`;
let dir: string;
let t: TestRuntime;
let sink: SmtpSink;
let p: string;
let pm: Record<string, string>;
/** the service as the identity provider knows it, from Member's service provider metadata */
let spAtIdp: ServiceProviderInstance;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'member-sso-'));
  const idps = { identityProviders: [{ id: 'acme', domains: ['acme.test'], metadata: acme.metadata() }] };
  const file = path.join(dir, 'saml-idps.json');
  fs.writeFileSync(file, JSON.stringify(idps));
  // the back office's ACS first, as an operator may list them: Member's AuthnRequests must still ask for its own
  const env = { SAML_IDPS_FILE: file, SAML_SP_ENTITY_ID: SP_ENTITY, SAML_ACS_URL: `${pmAcs},${memberAcs}` };
  sink = await startSmtpSink();
  t = await startTestRuntime({
    projectId,
    env: {
      CLASS_DIRS: 'classes',
      SCHEMA_DIRS: 'schemas',
      SMTP_URL: sink.url,
      MAIL_BACKOFF_MS: '50',
      MEMBER_APP_URL: APP,
      IDENTITY_CACHE_SECONDS: '0',
      ...env,
    },
  });
  p = `/${projectId}/CALL/Member`;
  await seedProgram(t);
  await seedRoles(t, [{ id: 'super', name: 'super', level: 1, permissions: {} }]);
  await seed(t, {
    tierTypes: [{ id: 'tt-sso', name: 'SSO base', tierGroup: 'base' }],
    tiers: [
      {
        id: 'sso-gold',
        name: 'Gold',
        tierType: { id: 'tt-sso' },
        fee: 10,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [
          {
            name: 'All',
            paymentTypes: ['credit_card'],
            paymentPeriod: 'monthly',
            conditions: [{ key: 'member.memberType', logicalOperator: 'equal', value: 'mt-perm' }],
            status: 'active',
          },
        ],
      },
    ],
  });
  pm = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
  spAtIdp = TestIdp.spFromMetadata(
    samlServiceProvider(memberAcsOnly(parseSamlConfig(idps, { env }), env)).spMetadata(),
  );
});
afterAll(async () => {
  await t?.stop();
  await sink?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const acmeEmail = (stem: string) => `${uniq(stem).toLowerCase()}@acme.test`;

/** posts a response as the browser does for the identity provider (not following the redirect) */
/** the identity provider's HTTP-POST binding: the browser posts a form */
const sso = (SAMLResponse: string, RelayState?: string) =>
  from(t, freshIp()).post(
    `${p}/singleSignOn`,
    new URLSearchParams({ SAMLResponse, ...(RelayState ? { RelayState } : {}) }),
  );
const refusedFor = (r: { status: number; body: any }, reason: string) =>
  expect([r.status, r.body.code, r.body.details?.reason]).toEqual([401, 5041, reason]);
/** a login URL as discoverAuthMethod answers it (for an address of acme's domain, from an address of its own) */
const loginUrl = async () =>
  (await from(t, freshIp()).post(`${p}/discoverAuthMethod`, { email: acmeEmail('who') })).body.loginUrl as string;
/** the usual sign-in: acme's signed answer to the AuthnRequest of a login URL the service gave */
const signedIn = async (o: Parameters<TestIdp['respond']>[1]) => acme.answer(await loginUrl(), spAtIdp, o);

async function ssoMember(status?: 'inactive'): Promise<{ id: string; email: string }> {
  const email = acmeEmail('sso');
  const m = await createMember(t, { email, loginMethod: 'sso', staffId: uniq('SSO') });
  if (status) expect((await t.rt.call('Member', 'updateMemberStatus', m.id, { status })).status).toBe(200);
  return { id: m.id as string, email };
}

test('discoverAuthMethod: the identity provider with an AuthnRequest for Member, by the domain alone', async () => {
  const known = await ssoMember();
  const ghost = acmeEmail('ghost');
  const c = from(t, freshIp());
  const a = await c.post(`${p}/discoverAuthMethod`, { email: known.email, relayState: 'st-1' });
  const b = await c.post(`${p}/discoverAuthMethod`, { email: ghost });
  expect(a.body).toEqual({ email: known.email, method: 'sso', loginUrl: expect.any(String) });
  expect(b.body).toEqual({ email: ghost, method: 'sso', loginUrl: expect.any(String) });
  const url = new URL(a.body.loginUrl);
  expect(`${url.origin}${url.pathname}`).toBe(IDP_SSO);
  expect(url.searchParams.get('RelayState')).toBe('st-1');
  const parsed = await acme.idp.parseLoginRequest(spAtIdp, 'redirect', { query: Object.fromEntries(url.searchParams) });
  expect((parsed.extract.request as Record<string, string>).assertionConsumerServiceUrl).toBe(memberAcs);
  const tooLong = await c.post(`${p}/discoverAuthMethod`, { email: ghost, relayState: 'x'.repeat(81) });
  expect([tooLong.status, tooLong.body.details.errors[0].field]).toEqual([400, 'relayState']);
});

test('a member signs in by SAML: 303 to the member application with the session and the state; the session reaches its profile', async () => {
  const m = await ssoMember();
  const r = await sso(await signedIn({ email: m.email.toUpperCase() }), 'st-9');
  expect(r.status).toBe(303);
  expect(r.headers['cache-control']).toBe('no-store');
  const location = new URL(String(r.headers.location));
  expect(`${location.origin}${location.pathname}`).toBe(`${APP}signed-in`);
  const fragment = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
  expect(fragment).toEqual({
    accessToken: expect.any(String),
    expiresAt: expect.any(String),
    refreshToken: expect.any(String),
    memberId: m.id,
    state: 'st-9',
  });
  expect(r.body).toMatchObject({ redirectTo: location.toString(), memberId: m.id, accessToken: fragment.accessToken });
  const profile = await from(t, freshIp()).get(`${p}/getMemberProfile/${m.id}`, bearer(fragment.accessToken!));
  expect([profile.status, profile.body.email, profile.body.status]).toEqual([200, m.email, 'pending_id_photo']);
  expect((await memberState(t, m.id)).state.private.lastSignInAt).toEqual(expect.any(String));
});

test('an invited member completes its invitation by SSO (spec 3.1): active, audit-logged as its own step', async () => {
  const email = acmeEmail('inv');
  const m = await createMember(t, { email, staffId: uniq('INV') });
  expect((await t.rt.call('Member', 'addMembership', m.id, { tierId: 'sso-gold', paymentType: 'cpg' })).status).toBe(
    200,
  );
  expect((await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm)).body.status).toBe('pending_invitation_acceptance');
  const r = await sso(await signedIn({ email }));
  expect(r.status).toBe(303);
  expect((await memberState(t, m.id)).state.private.profile.status).toBe('active');
  await waitFor(
    async () =>
      (await findLogs(t, { classId: 'Member', entityId: m.id })).items.some(
        (l: any) => l.additionalData?.source === 'single_sign_on' && l.actor.type === 'member' && l.actor.id === m.id,
      ),
    { what: 'the audit entry of the activation' },
  );
  // its invitation is no use any more
  const token = codeIn(await nthMail(sink, email, 1));
  const late = await from(t, freshIp()).post(`${p}/acceptInvitation/${m.id}`, { token, password: PASSWORD });
  expect([late.status, late.body.code]).toEqual([401, 5037]);
});

test('refused: a replayed assertion, another key, no signature, expired, another audience', async () => {
  const m = await ssoMember();
  const response = await signedIn({ email: m.email });
  expect((await sso(response)).status).toBe(303);
  refusedFor(await sso(response), 'SAML_REPLAYED');
  refusedFor(await sso(await impostor.respond(spAtIdp, { email: m.email })), 'SAML_BAD_SIGNATURE');
  refusedFor(await sso(acme.unsigned(spAtIdp, { email: m.email })), 'SAML_UNSIGNED');
  const past = new Date(Date.now() - 10 * 60_000);
  refusedFor(
    await sso(await signedIn({ email: m.email, notBefore: new Date(past.getTime() - 60_000), notOnOrAfter: past })),
    'SAML_EXPIRED',
  );
  refusedFor(await sso(await signedIn({ email: m.email, audience: 'https://elsewhere.test/saml' })), 'SAML_AUDIENCE');
  // addressed to the back office's endpoint: not Member's
  refusedFor(await sso(await signedIn({ email: m.email, recipient: pmAcs })), 'SAML_RECIPIENT');
  refusedFor(await sso(Buffer.from('<nothing/>').toString('base64')), 'SAML_UNKNOWN_IDP');
});

test('InResponseTo: a request the service did not make, one already answered, and an unsolicited response are refused', async () => {
  const m = await ssoMember();
  refusedFor(
    await sso(await acme.respond(spAtIdp, { email: m.email, inResponseTo: '_not-asked' })),
    'SAML_UNKNOWN_REQUEST',
  );
  const url = await loginUrl();
  expect((await sso(await acme.answer(url, spAtIdp, { email: m.email }))).status).toBe(303);
  // a fresh assertion for the same request
  refusedFor(await sso(await acme.answer(url, spAtIdp, { email: m.email })), 'SAML_REPLAYED');
  // acme is not configured with allowUnsolicited
  refusedFor(await sso(await acme.respond(spAtIdp, { email: m.email })), 'SAML_UNSOLICITED');
});

test('refused: an email no member has, and a member who may not sign in (inactive)', async () => {
  refusedFor(await sso(await signedIn({ email: acmeEmail('nobody') })), 'NO_MEMBER');
  const inactive = await ssoMember('inactive');
  refusedFor(await sso(await signedIn({ email: inactive.email })), 'MEMBER_NOT_ALLOWED');
});
