/**
 * The member pages in a real Chromium, with no member application configured
 * (MEMBER_APP_URL unset): the invitation mail's link opened from the mail the
 * service sent over SMTP, a password set, a sign-in with the code mailed, the
 * signed-in page; damaged and dead links answered in words; a password reset
 * from its mail. Pages are checked for their CSP and for console errors (a
 * refused script or style shows there). And a member application on another
 * origin (CORS_ORIGINS) signing a member in through the API from a page of its
 * own, while a page on an origin not listed is refused by the browser.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchBrowser, type TestBrowser } from '../support/browser';
import {
  codeIn,
  invitableMember,
  activeMember,
  nthMail,
  PASSWORD,
  OTHER_PASSWORD,
  startSignInRuntime,
  type SignInEnv,
} from '../Member/sign-in-support';
import { openMailLink, SERVICE, SERVICE_HOST, submit, textOf, waitForUrl } from './support';
import { waitFor } from '../support/harness';

/** a member application's origin (CORS_ORIGINS), and one the service does not list */
const APP_HOST = 'app.example.test';
const OTHER_HOST = 'other.example.test';

let env: SignInEnv;
let browser: TestBrowser;
/** serves the member application's page on both origins (a static file server, as the app's host would be) */
let appServer: http.Server;

beforeAll(async () => {
  appServer = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        '<!doctype html><html lang="en"><head><title>Member app</title></head><body><h1>Member app</h1></body></html>',
      );
  });
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  const appAt = `127.0.0.1:${(appServer.address() as AddressInfo).port}`;
  // the links' addresses are the service's own pages: no MEMBER_APP_URL, a PUBLIC_URL the browser resolves here
  env = await startSignInRuntime({ MEMBER_APP_URL: '', PUBLIC_URL: SERVICE, CORS_ORIGINS: `http://${APP_HOST}` });
  browser = await launchBrowser({
    hosts: { [SERVICE_HOST]: new URL(env.t.base).host, [APP_HOST]: appAt, [OTHER_HOST]: appAt },
  });
});
afterAll(async () => {
  await browser?.close();
  await env?.t.stop();
  await env?.sink.close();
  await new Promise((resolve) => appServer?.close(resolve));
});
afterEach(() => {
  expect(browser.consoleErrors).toEqual([]);
  expect(browser.failedResources).toEqual([]);
});

test('the invitation mail → its link → a password → sign in → the code from the mail → the signed-in page', async () => {
  const m = await invitableMember(env);
  expect((await env.t.post(`${env.p}/sendInviteEmail/${m.id}`, {}, env.pm)).status).toBe(200);
  const invitation = await nthMail(env.sink, m.email, 1);
  const page = await browser.newPage();

  // the mail's link: inviteRedirect, then the member page with the token in the fragment, moved into the form
  const landed = page.waitForResponse((r) => new URL(r.url()).pathname === '/pages/member/invitation');
  await openMailLink(page, invitation, '/inviteRedirect?token=');
  const res = await landed;
  expect(res.status()).toBe(200);
  expect(res.headers()['content-security-policy']).toMatch(/script-src 'self'/);
  expect(res.headers()['content-security-policy']).not.toMatch(/unsafe-inline/);
  expect(res.headers()['cache-control']).toBe('no-store');
  // the script took the token out of the address bar and into the form, whose code row it hid
  await waitForUrl(page, (u) => u.pathname === '/pages/member/invitation' && u.hash === '', 'the fragment dropped');
  expect(await page.$eval('#f-token', (i) => (i as HTMLInputElement).value)).toBe(codeIn(invitation));
  expect(await page.$eval('#f-token', (i) => (i.closest('.field') as HTMLElement).hidden)).toBe(true);
  expect(await textOf(page, 'h1')).toBe('Accept your invitation');
  // every field has its label
  expect(
    await page.$$eval(
      'input:not([type=hidden])',
      (is) => is.filter((i) => !(i as HTMLInputElement).labels?.length).length,
    ),
  ).toBe(0);

  await page.type('#f-password', PASSWORD);
  await page.type('#f-repeat', PASSWORD);
  await submit(page);
  await waitForUrl(
    page,
    (u) => u.pathname === '/pages/member/' && u.searchParams.get('done') === 'invitation',
    'the sign-in page',
  );
  expect(await textOf(page, '.notice')).toBe('Your password is set. Sign in with it now.');

  await page.type('#f-email', m.email);
  await page.type('#f-password', PASSWORD);
  await submit(page);
  await waitForUrl(page, (u) => u.pathname === '/pages/member/code', 'the code page');
  const code = codeIn(await nthMail(env.sink, m.email, 2));
  await page.type('#f-otp', code);
  await submit(page);
  await waitForUrl(page, (u) => u.pathname === '/pages/member/signed-in', 'the signed-in page');
  expect(await textOf(page, 'h1')).toBe('Signed in');
  expect(await textOf(page, 'main p')).toBe('You are signed in as Ada Lovelace.');
  expect(await textOf(page, 'dl')).toContain(m.email);
  // the session is an HttpOnly cookie: the page's script cannot read it
  expect(await page.evaluate(() => document.cookie)).toBe('');

  // the same link again: spent, said in words
  const again = await browser.newPage();
  await openMailLink(again, invitation, '/inviteRedirect?token=');
  await waitForUrl(again, (u) => u.pathname === '/pages/member/invitation' && u.hash === '', 'the invitation page');
  await again.type('#f-password', OTHER_PASSWORD);
  await again.type('#f-repeat', OTHER_PASSWORD);
  await submit(again);
  expect(await textOf(again, '[role=alert]')).toMatch(
    /^This invitation link is not valid any more: it has been used, it has expired, or a newer invitation was sent\./,
  );

  await submit(page, 'form[action="/pages/member/sign-out"]');
  expect(await textOf(page, '.notice')).toBe('You have signed out.');
});

test('a damaged link and a wrong token are answered in words, and a refused password says why', async () => {
  const page = await browser.newPage();
  const res = await page.goto(`${SERVICE}/${env.t.projectId}/CALL/Member/inviteRedirect?token=nothing`);
  expect(res?.status()).toBe(400);
  expect(await textOf(page, 'h1')).toBe('This invitation link is not complete');
  expect(await page.content()).not.toContain('"code"');

  // an invited member, and a token of the right shape that is not its invitation's
  const m = await invitableMember(env);
  expect((await env.t.post(`${env.p}/sendInviteEmail/${m.id}`, {}, env.pm)).status).toBe(200);
  await page.goto(`${SERVICE}/pages/member/invitation#token=${m.id}.0f8fad5b-d9cb-469f-a165-70867728950e`);
  await waitForUrl(page, (u) => u.hash === '', 'the fragment dropped');
  await page.type('#f-password', 'short');
  await page.type('#f-repeat', 'short');
  await submit(page);
  expect(await page.$$eval('[role=alert] p, [role=alert] li', (e) => e.map((x) => x.textContent))).toEqual([
    'Choose another password:',
    'The password must be at least 12 characters.',
  ]);
  // the token the server gave back to the form is still there: only the password is typed again
  await page.type('#f-password', PASSWORD);
  await page.type('#f-repeat', 'not the same');
  await submit(page);
  expect(await textOf(page, '[role=alert]')).toBe('The two passwords are not the same. Type the new password twice.');
  await page.type('#f-password', PASSWORD);
  await page.type('#f-repeat', PASSWORD);
  await submit(page);
  expect(await textOf(page, '[role=alert]')).toMatch(/^This invitation link is not valid any more/);
  // a token naming no member at all reads the same (from elsewhere first: only the fragment would change, and a
  // fragment change reloads nothing)
  await page.goto('about:blank');
  await page.goto(
    `${SERVICE}/pages/member/invitation#token=6f1c2b9e-0000-4000-8000-000000000000.0f8fad5b-d9cb-469f-a165-70867728950e`,
  );
  await waitForUrl(page, (u) => u.hash === '', 'the fragment dropped');
  await page.type('#f-password', PASSWORD);
  await page.type('#f-repeat', PASSWORD);
  await submit(page);
  expect(await textOf(page, '[role=alert]')).toMatch(/^This invitation link is not valid any more/);

  const unknown = await page.goto(`${SERVICE}/pages/member/nothing-here`);
  expect(unknown?.status()).toBe(404);
  expect(await textOf(page, '[role=alert]')).toBe('There is no such page.');
});

test('forgotten password: the page asks, the mail links to the reset page, the new password signs in', async () => {
  const m = await activeMember(env);
  const page = await browser.newPage();
  // from the service's address, as someone trying it would come
  await page.goto(`${SERVICE}/`);
  await Promise.all([page.waitForNavigation(), page.click('a[href="/pages/member/"]')]);
  expect(await textOf(page, 'h1')).toBe('Sign in');
  await Promise.all([page.waitForNavigation(), page.click('a[href="/pages/member/forgot-password"]')]);
  await page.type('#f-email', m.email);
  await submit(page);
  expect(await textOf(page, '.notice')).toMatch(/a reset link has been sent to it\. Check your mail\.$/);

  const mail = await nthMail(env.sink, m.email, 2);
  await openMailLink(page, mail, '/pages/member/reset-password#token=');
  await waitForUrl(page, (u) => u.pathname === '/pages/member/reset-password' && u.hash === '', 'the reset page');
  expect(await textOf(page, 'h1')).toBe('Choose a new password');
  await page.type('#f-password', OTHER_PASSWORD);
  await page.type('#f-repeat', OTHER_PASSWORD);
  await submit(page);
  expect(await textOf(page, '.notice')).toBe('Your password has been changed. Sign in with the new one.');

  await page.type('#f-email', m.email);
  await page.type('#f-password', PASSWORD);
  await submit(page);
  expect(await textOf(page, '[role=alert]')).toBe(
    'The email address or the password is not right. Check both and try again.',
  );
  await page.type('#f-password', OTHER_PASSWORD);
  await submit(page);
  await waitForUrl(page, (u) => u.pathname === '/pages/member/code', 'the code page');
});

/** a fetch from the page's own origin to the API: what the member application does (JSON in, JSON out) */
function apiCall(page: import('puppeteer-core').Page, path: string, body?: unknown, token?: string) {
  return page.evaluate(
    async (url: string, payload: string | null, bearer: string | null) => {
      try {
        const headers: Record<string, string> = {};
        if (payload !== null) headers['content-type'] = 'application/json';
        if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
        const r = await fetch(url, {
          method: payload === null ? 'GET' : 'POST',
          headers,
          body: payload,
          credentials: 'include',
        });
        return { status: r.status, body: await r.json(), requestId: r.headers.get('x-request-id') };
      } catch (err) {
        return { failed: String(err) };
      }
    },
    `${SERVICE}${path}`,
    body === undefined ? null : JSON.stringify(body),
    token ?? null,
  ) as Promise<{ status: number; body: any; requestId: string | null } | { failed: string }>;
}

test('a member application on a listed origin signs a member in through the API; a page on another origin is refused; a session handed over in the fragment lands signed in', async () => {
  const m = await activeMember(env);
  const app = await browser.newPage();
  await app.goto(`http://${APP_HOST}/`);
  const p = `/${env.t.projectId}/CALL/Member`;

  // JSON bodies and a bearer token: every call below is preflighted, then answered with the app's origin
  const discover = await apiCall(app, `${p}/discoverAuthMethod`, { email: m.email });
  expect(discover).toMatchObject({ status: 200, body: { method: 'email_password' } });
  const login = await apiCall(app, `${p}/login`, { email: m.email, password: m.password });
  expect(login).toMatchObject({ status: 200, body: { otpRequired: true } });
  if (!('body' in login)) throw new Error('login failed');
  const otp = codeIn(await nthMail(env.sink, m.email, 2));
  const session = await apiCall(app, `${p}/checkOtp/${login.body.memberId}`, { otp }, login.body.token);
  expect(session).toMatchObject({ status: 200, body: { memberId: m.id, accessToken: expect.any(String) } });
  if (!('body' in session)) throw new Error('checkOtp failed');
  const profile = await apiCall(app, `${p}/getMemberProfile/${m.id}`, undefined, session.body.accessToken);
  // the answer and an exposed header are readable by the app
  expect(profile).toMatchObject({
    status: 200,
    body: { id: m.id, name: 'Ada', email: m.email },
    requestId: expect.any(String),
  });

  // a session handed to the signed-in page in the fragment, as single sign-on hands it: link.js posts it, the page keeps it
  const handed = await browser.newPage();
  const fragment = new URLSearchParams({
    accessToken: session.body.accessToken,
    expiresAt: session.body.expiresAt,
    memberId: m.id,
  });
  await handed.goto(`${SERVICE}/pages/member/signed-in#${fragment}`);
  await waitForUrl(handed, (u) => u.pathname === '/pages/member/signed-in' && u.hash === '', 'the signed-in page');
  await handed.waitForSelector('dl');
  expect(await textOf(handed, 'main p')).toBe('You are signed in as Ada Lovelace.');
  // a made-up token is not kept
  const forged = await browser.newPage();
  await forged.goto(`${SERVICE}/pages/member/signed-in#accessToken=abc.def.ghi&memberId=${m.id}`);
  await forged.waitForSelector('[role=alert]');
  expect(await textOf(forged, '[role=alert]')).toBe('The sign-in could not be completed. Sign in again.');

  const other = await browser.newPage();
  await other.goto(`http://${OTHER_HOST}/`);
  expect(await apiCall(other, `${p}/discoverAuthMethod`, { email: m.email })).toEqual({
    failed: 'TypeError: Failed to fetch',
  });
  // the browser said why: the only console errors of this test
  expect(browser.consoleErrors.length).toBeGreaterThan(0);
  expect(
    browser.consoleErrors.every((e) =>
      e.includes(`from origin 'http://${OTHER_HOST}' has been blocked by CORS policy`),
    ),
  ).toBe(true);
  browser.consoleErrors.length = 0;
  // its preflight got no CORS answer (the API's 405 for an OPTIONS without one), and the call was never sent
  // the browser reports the preflight's answer and the call's failure as separate events, in either order and not always at once
  await waitFor(() => browser.failedResources.length >= 2, { what: 'both failed requests reported' });
  expect([...browser.failedResources].sort()).toEqual([
    `405 ${SERVICE}${p}/discoverAuthMethod`,
    `net::ERR_FAILED ${SERVICE}${p}/discoverAuthMethod`,
  ]);
  browser.failedResources.length = 0;
});
