/**
 * /dev/mail shows a mail as mail, in a real Chromium: its headers, its text
 * part, and its HTML part in a sandboxed frame where the mail's script does
 * not run and from which nothing reaches the page.
 */
import * as path from 'node:path';
import { launchBrowser, type TestBrowser } from '../support/browser';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let browser: TestBrowser;

beforeAll(async () => {
  [t, browser] = await Promise.all([
    startTestRuntime({
      env: {
        CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, '../mail/fixtures')}`,
        MAIL_FROM: 'Membership <membership@example.com>',
      },
    }),
    launchBrowser(),
  ]);
  expect((await t.post(`/${t.projectId}/CALL/Mailer/open/box`, {}, { 'x-api-key': TEST_API_KEY })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await Promise.all([browser?.close(), t?.stop()]);
});

test('a mail is shown with its headers, its text part and its HTML part in a sandboxed frame that runs no script', async () => {
  const html = `<h1 id="greeting" style="color:rgb(200, 0, 0)">Welcome &amp; hello</h1><p>Your code is <b>4711</b>.</p>
<script>document.getElementById('greeting').textContent = 'script ran'; try { parent.document.title = 'reached'; } catch (e) {}</script>`;
  const sent = await t.post(
    `/${t.projectId}/CALL/Mailer/notify/box`,
    {
      mail: {
        to: ['anna@example.com'],
        cc: ['ben@example.com'],
        subject: 'Welcome <aboard>',
        html,
        text: 'Welcome & hello\nYour code is 4711.',
      },
    },
    { 'x-api-key': TEST_API_KEY },
  );
  expect(sent.status).toBe(200);
  const id = sent.body.id as string;
  await waitFor(async () => (await fetch(`${t.base}/dev/mail/${id}`)).status === 200, {
    what: 'the mail on /dev/mail',
  });

  const page = await browser.newPage();
  const res = await page.goto(`${t.base}/dev/mail`);
  expect(res?.status()).toBe(200);
  await Promise.all([page.waitForNavigation(), page.click(`a[href="/dev/mail/${id}"]`)]);
  expect(await page.title()).toBe('Welcome <aboard>');

  const headers = await page.$$eval('table.headers tr', (rows) =>
    Object.fromEntries(rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent])),
  );
  expect(headers).toMatchObject({
    From: '"Membership" <membership@example.com>',
    To: 'anna@example.com',
    Cc: 'ben@example.com',
    Subject: 'Welcome <aboard>',
    'Message-ID': `<${id}@${t.projectId}>`,
  });
  expect(await page.$eval('pre.text-part', (p) => p.textContent)).toBe('Welcome & hello\nYour code is 4711.');

  // the HTML part: in a frame sandboxed without scripts or the page's origin
  expect(await page.$eval('iframe.html-part', (f) => f.getAttribute('sandbox'))).toBe('');
  const frame = await waitFor(
    async () => {
      const f = page.frames().find((x) => x !== page.mainFrame());
      return f && (await f.$('#greeting')) ? f : undefined;
    },
    { what: 'the HTML part rendered in its frame' },
  );
  expect(await frame!.$eval('#greeting', (h) => h.textContent)).toBe('Welcome & hello');
  expect(await frame!.$eval('#greeting', (h) => getComputedStyle(h).color)).toBe('rgb(200, 0, 0)');
  expect(await frame!.$eval('b', (b) => b.textContent)).toBe('4711');
  expect(await page.title()).toBe('Welcome <aboard>');

  // the file as written, as text
  const eml = await fetch(`${t.base}/dev/mail/${id}.eml`);
  expect(eml.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(await eml.text()).toContain(`Message-ID: <${id}@${t.projectId}>`);
}, 60_000);
