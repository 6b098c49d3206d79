/**
 * Back-office single sign-on end to end: the service as a SAML service
 * provider of a real samlify identity provider (test/saml/test-idp.ts) signing
 * real responses with test-only keys. discoverAuthMethod sends an email of the
 * provider's domain to it with an AuthnRequest asking for this class's
 * assertion consumer service; the signed response posted to singleSignOn signs
 * an invited SSO user in (its first sign-in activates it) and sends the browser
 * to the back office with its session; replays, other keys, unsigned responses
 * and users who do not sign in by SSO are refused.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ServiceProviderInstance } from 'samlify';
import { parseSamlConfig, samlServiceProvider } from '../../classes/_platform/saml';
import { ownAcsOnly } from '../../classes/ProgramManagementUser/settings';
import { uniqueProjectId } from '../support/redis';
import { fixture, TestIdp } from '../saml/test-idp';
import {
  acceptInvitation,
  auth,
  call,
  createApprovedUser,
  email,
  nthMail,
  settled,
  startPmRuntime,
  SUBJECTS,
  type PmRuntime,
} from './support';

const ORIGIN = 'https://bo.example.test';
const SP_ENTITY = `${ORIGIN}/saml/metadata`;
const IDP_ENTITY = 'https://idp.acme.test/saml';
const IDP_SSO = 'https://idp.acme.test/sso';
const BACKOFFICE = 'https://backoffice.example.test';

const acme = new TestIdp(IDP_ENTITY, IDP_SSO);
const impostor = new TestIdp(IDP_ENTITY, IDP_SSO, fixture('other-idp.key.pem'), fixture('other-idp.cert.pem'));

const projectId = uniqueProjectId('sso');
const memberAcs = `${ORIGIN}/${projectId}/CALL/Member/singleSignOn`;
const pmAcs = `${ORIGIN}/${projectId}/CALL/ProgramManagementUser/singleSignOn`;
let dir: string;
let p: PmRuntime;
/** the service as the identity provider knows it, from the metadata of the back office's service provider */
let spAtIdp: ServiceProviderInstance;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pm-sso-'));
  const idps = { identityProviders: [{ id: 'acme', domains: ['acme.test'], metadata: acme.metadata() }] };
  const file = path.join(dir, 'saml-idps.json');
  fs.writeFileSync(file, JSON.stringify(idps));
  // the member ACS first, as an operator may list them: the back office's AuthnRequests must still ask for its own
  const env = {
    SAML_IDPS_FILE: file,
    SAML_SP_ENTITY_ID: SP_ENTITY,
    SAML_ACS_URL: `${memberAcs},${pmAcs}`,
    BACKOFFICE_URL: BACKOFFICE,
  };
  p = await startPmRuntime(env, projectId);
  spAtIdp = TestIdp.spFromMetadata(samlServiceProvider(ownAcsOnly(parseSamlConfig(idps, { env }), env)).spMetadata());
});
afterAll(async () => {
  await p.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** posts a response as the browser does for the identity provider, not following the redirect */
async function sso(SAMLResponse: string): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${p.t.base}/${p.t.projectId}/CALL/ProgramManagementUser/singleSignOn`, {
    method: 'POST',
    // the HTTP-POST binding: the browser posts the identity provider's form
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ SAMLResponse }).toString(),
    redirect: 'manual',
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}
const refusedFor = (r: { status: number; body: any }, reason: string) =>
  expect([r.status, r.body.code, r.body.details?.reason]).toEqual([401, 4017, reason]);
/** a login URL as discoverAuthMethod answers it (for an address of acme's domain) */
const loginUrl = async () =>
  (await call(p.t, 'discoverAuthMethod', undefined, { email: 'who@acme.test' })).body.loginUrl as string;
/** the usual sign-in: acme's signed answer to the AuthnRequest of a login URL the service gave */
const signedIn = async (o: Parameters<TestIdp['respond']>[1]) => acme.answer(await loginUrl(), spAtIdp, o);

test('discoverAuthMethod: the identity provider with an AuthnRequest for this class, by the domain alone', async () => {
  const known = await createApprovedUser(p, { email: `${email('ann').split('@')[0]}@acme.test`, loginMethod: 'sso' });
  const ghost = `${email('ghost').split('@')[0]}@acme.test`;
  const a = await call(p.t, 'discoverAuthMethod', undefined, { email: known.email });
  const b = await call(p.t, 'discoverAuthMethod', undefined, { email: ghost });
  expect(a.body).toEqual({ email: known.email, method: 'sso', loginUrl: expect.any(String) });
  expect(b.body).toEqual({ email: ghost, method: 'sso', loginUrl: expect.any(String) });
  const url = new URL(a.body.loginUrl);
  expect(`${url.origin}${url.pathname}`).toBe(IDP_SSO);
  const parsed = await acme.idp.parseLoginRequest(spAtIdp, 'redirect', { query: Object.fromEntries(url.searchParams) });
  expect((parsed.extract.request as Record<string, string>).assertionConsumerServiceUrl).toBe(pmAcs);
  expect((await call(p.t, 'discoverAuthMethod', undefined, { email: 'carl@example.org' })).body).toEqual({
    email: 'carl@example.org',
    method: 'email_password',
  });
});

test('an invited SSO user signs in by SAML: activated, sent to the back office with a session its role allows', async () => {
  const u = await createApprovedUser(p, {
    email: `${email('bob').split('@')[0]}@acme.test`,
    loginMethod: 'sso',
    roles: ['viewer'],
  });
  const invite = await nthMail(p.sink, u.email, SUBJECTS.invite);
  expect(String(invite.parsed.html)).toContain('backoffice.example.test');
  expect((await call(p.t, 'getUser', u.id, {}, p.admin)).body.user.status).toBe('pending');

  const response = await signedIn({ email: u.email });
  const r = await sso(response);
  expect(r.status).toBe(303);
  const location = r.headers.get('location')!;
  expect(location.startsWith(`${BACKOFFICE}/#`)).toBe(true);
  const fragment = new URLSearchParams(location.slice(location.indexOf('#') + 1));
  const token = fragment.get('accessToken')!;
  expect(fragment.get('refreshToken')).toEqual(expect.any(String));
  expect((await call(p.t, 'getUser', u.id, {}, p.admin)).body.user).toMatchObject({
    status: 'active',
    acceptedAt: expect.any(String),
  });
  expect((await call(p.t, 'listTiers', undefined, {}, auth(token), 'Tier')).status).toBe(200);
  expect((await call(p.t, 'listUsers', undefined, {}, auth(token))).status).toBe(403);

  // the same assertion again is a replay
  refusedFor(await sso(response), 'SAML_REPLAYED');
  // a second, fresh assertion signs in again
  expect((await sso(await signedIn({ email: u.email }))).status).toBe(303);
});

test('an SSO user set back to pending by an approved status change is refused, not made active again by its next sign-in', async () => {
  const u = await createApprovedUser(p, { email: `${email('eve').split('@')[0]}@acme.test`, loginMethod: 'sso' });
  expect((await sso(await signedIn({ email: u.email }))).status).toBe(303);
  expect((await call(p.t, 'getUser', u.id, {}, p.admin)).body.user).toMatchObject({
    status: 'active',
    acceptedAt: expect.any(String),
  });
  const back = await call(p.t, 'updateUserStatus', u.id, { status: 'pending' }, p.admin);
  expect(back.status).toBe(200);
  expect(
    (await call(p.t, 'reviewApproval', back.body.approval.id, { action: 'approve' }, p.approver, 'ApprovalManager'))
      .status,
  ).toBe(200);
  expect((await settled(p, u.id)).user.status).toBe('pending');
  refusedFor(await sso(await signedIn({ email: u.email })), 'NO_SSO_USER');
  expect((await call(p.t, 'getUser', u.id, {}, p.admin)).body.user.status).toBe('pending');
});

test('InResponseTo: a request the service did not make, one already answered, and an unsolicited response are refused', async () => {
  const u = await createApprovedUser(p, { email: `${email('ira').split('@')[0]}@acme.test`, loginMethod: 'sso' });
  refusedFor(
    await sso(await acme.respond(spAtIdp, { email: u.email, inResponseTo: '_not-asked' })),
    'SAML_UNKNOWN_REQUEST',
  );
  const url = await loginUrl();
  expect((await sso(await acme.answer(url, spAtIdp, { email: u.email }))).status).toBe(303);
  refusedFor(await sso(await acme.answer(url, spAtIdp, { email: u.email })), 'SAML_REPLAYED');
  refusedFor(await sso(await acme.respond(spAtIdp, { email: u.email })), 'SAML_UNSOLICITED');
});

test('refused: another key, no signature, an account that does not sign in by SSO, an inactive user', async () => {
  const u = await createApprovedUser(p, { email: `${email('cy').split('@')[0]}@acme.test`, loginMethod: 'sso' });
  refusedFor(await sso(await impostor.respond(spAtIdp, { email: u.email })), 'SAML_BAD_SIGNATURE');
  refusedFor(await sso(acme.unsigned(spAtIdp, { email: u.email })), 'SAML_UNSIGNED');
  // a response addressed to the member sign-in is not taken here
  refusedFor(await sso(await signedIn({ email: u.email, recipient: memberAcs })), 'SAML_RECIPIENT');
  refusedFor(await sso(await signedIn({ email: `${email('nobody').split('@')[0]}@acme.test` })), 'NO_SSO_USER');
  // an email/password user of the provider's domain does not sign in by SSO
  const pw = await createApprovedUser(p, { email: `${email('dee').split('@')[0]}@acme.test` });
  await acceptInvitation(p, pw);
  refusedFor(await sso(await signedIn({ email: pw.email })), 'NO_SSO_USER');
  // nor does a deactivated one
  const off = await call(p.t, 'updateUserStatus', u.id, { status: 'inactive' }, p.admin);
  await call(p.t, 'reviewApproval', off.body.approval.id, { action: 'approve' }, p.approver, 'ApprovalManager');
  expect((await settled(p, u.id)).user.status).toBe('inactive');
  refusedFor(await sso(await signedIn({ email: u.email })), 'NO_SSO_USER');
});
