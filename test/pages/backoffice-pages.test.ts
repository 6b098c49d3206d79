/**
 * The back-office pages in a real Chromium, with no back office configured
 * (BACKOFFICE_URL unset): a new user's invitation mail → its link (email and
 * code in the fragment) → a password → sign in → the code from the mail → the
 * signed-in page with the user's roles; a wrong code in words; a password
 * reset from the page and its mail; single sign-on's redirect handed on.
 */
import { launchBrowser, type TestBrowser } from '../support/browser';
import {
  acceptInvitation,
  codeOf,
  createApprovedUser,
  nthMail,
  PASSWORD,
  signIn,
  startPmRuntime,
  SUBJECTS,
  type PmRuntime,
} from '../ProgramManagementUser/support';
import { openMailLink, SERVICE, SERVICE_HOST, submit, textOf, waitForUrl } from './support';

let p: PmRuntime;
let browser: TestBrowser;

beforeAll(async () => {
  p = await startPmRuntime({ PUBLIC_URL: SERVICE });
  browser = await launchBrowser({ hosts: { [SERVICE_HOST]: new URL(p.t.base).host } });
});
afterAll(async () => {
  await browser?.close();
  await p?.stop();
});
afterEach(() => {
  expect(browser.consoleErrors).toEqual([]);
  expect(browser.failedResources).toEqual([]);
});

test('the invitation mail → its link → a password → sign in → the code from the mail → the signed-in page', async () => {
  const u = await createApprovedUser(p);
  const invite = await nthMail(p.sink, u.email, SUBJECTS.invite);
  const page = await browser.newPage();
  await openMailLink(page, invite, '/pages/backoffice/accept-invitation#');
  await waitForUrl(
    page,
    (url) => url.pathname === '/pages/backoffice/accept-invitation' && url.hash === '',
    'the fragment dropped',
  );
  expect(await textOf(page, 'h1')).toBe('Back office: accept your invitation');
  // the link's email and code are in the form, their rows hidden: only the password is asked
  expect(await page.$eval('#f-email', (i) => (i as HTMLInputElement).value)).toBe(u.email);
  expect(await page.$eval('#f-otp', (i) => (i as HTMLInputElement).value)).toBe(codeOf(invite));
  expect(await page.$$eval('.field:not([hidden]) label', (ls) => ls.map((l) => l.textContent))).toEqual([
    'New password',
    'New password again',
  ]);

  await page.type('#f-password', PASSWORD);
  await page.type('#f-repeat', PASSWORD);
  await submit(page);
  expect(await textOf(page, '.notice')).toBe('Your password is set. Sign in with it now.');

  await page.type('#f-email', u.email);
  await page.type('#f-password', PASSWORD);
  await submit(page);
  await waitForUrl(page, (url) => url.pathname === '/pages/backoffice/code', 'the code page');
  await page.type('#f-otp', codeOf(await nthMail(p.sink, u.email, SUBJECTS.login)));
  await submit(page);
  await waitForUrl(page, (url) => url.pathname === '/pages/backoffice/signed-in', 'the signed-in page');
  expect(await textOf(page, 'h1')).toBe('Back office: signed in');
  expect(await textOf(page, 'dd')).toBe('viewer');
});

test('a wrong code is said in words; a forgotten password is reset from the page and its mail; a single sign-on session is handed on', async () => {
  const u = await createApprovedUser(p);
  await acceptInvitation(p, u);
  const page = await browser.newPage();
  await page.goto(`${SERVICE}/pages/backoffice/accept-invitation#email=${encodeURIComponent(u.email)}&code=WRONG1`);
  await waitForUrl(page, (url) => url.hash === '', 'the fragment dropped');
  await page.type('#f-password', 'lantern-otter-mauve-77');
  await page.type('#f-repeat', 'lantern-otter-mauve-77');
  await submit(page);
  expect(await textOf(page, '[role=alert]')).toMatch(
    /^This invitation is not valid: the email address or the code is not right/,
  );

  await page.goto(`${SERVICE}/pages/backoffice/forgot-password`);
  await page.type('#f-email', u.email);
  await submit(page);
  expect(await textOf(page, '.notice')).toMatch(/a reset code has been sent to it\. Check your mail\.$/);
  await openMailLink(page, await nthMail(p.sink, u.email, SUBJECTS.reset), '/pages/backoffice/reset-password#');
  await waitForUrl(
    page,
    (url) => url.pathname === '/pages/backoffice/reset-password' && url.hash === '',
    'the reset page',
  );
  await page.type('#f-password', 'lantern-otter-mauve-77');
  await page.type('#f-repeat', 'lantern-otter-mauve-77');
  await submit(page);
  expect(await textOf(page, '.notice')).toBe('Your password has been changed. Sign in with the new one.');

  // single sign-on's redirect: the back office's address with the session in the fragment, handed on to signed-in
  const session = await signIn(p, u, 'lantern-otter-mauve-77');
  const sso = await browser.newPage();
  await sso.goto(
    `${SERVICE}/pages/backoffice/#${new URLSearchParams({ accessToken: session.accessToken, expiresAt: session.expiresAt })}`,
  );
  await waitForUrl(sso, (url) => url.pathname === '/pages/backoffice/signed-in', 'the signed-in page');
  await sso.waitForSelector('dd');
  expect(await textOf(sso, 'dd')).toBe('viewer');
});
