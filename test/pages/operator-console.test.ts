/**
 * The operator console in a real Chromium: an operator signs in the way a
 * browser does (Basic authentication, the developer's access token as the
 * password), watches a failed QUEUED_WRITE in Bull Board's page, retries it
 * with the job's own button, and sees it completed. Screenshots of both
 * states are kept in the run's temporary directory.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../support/browser';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let browser: TestBrowser;
const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'console-shots-'));

beforeAll(async () => {
  [t, browser] = await Promise.all([
    startTestRuntime({ env: { CLASS_DIRS: path.join(__dirname, '../runtime/console-fixtures') } }),
    launchBrowser(),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([browser?.close(), t?.stop()]);
  if (!process.env.KEEP_SCREENSHOTS) fs.rmSync(shots, { recursive: true, force: true });
});

/** Bull Board's own stylesheet link to a web-font CDN, which the console's CSP refuses on purpose */
const fontRefused = (line: string) => line.includes('fonts.googleapis.com');

async function screenshot(page: Page, name: string): Promise<Buffer> {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const png = fs.readFileSync(file);
  // a PNG of a rendered page, not an empty frame
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(png.length).toBeGreaterThan(10_000);
  return png;
}

/** The text of the job card holding `jobId`, once the page shows it with `shown` in it. */
async function jobCard(page: Page, jobId: string, shown: string): Promise<string> {
  const handle = await page.waitForFunction(
    (id, text) => {
      // the card: the smallest element with the job's id, `text` and the job's buttons
      const cards = Array.from(document.querySelectorAll<HTMLElement>('body *')).filter(
        (e) => e.querySelector('button') && e.innerText.includes(id) && e.innerText.includes(text),
      );
      cards.sort((a, b) => a.innerText.length - b.innerText.length);
      return cards[0]?.innerText ?? false;
    },
    { timeout: 15_000 },
    jobId,
    shown,
  );
  return (await handle.jsonValue()) as string;
}

test('without credentials the browser gets no console', async () => {
  const page = await browser.newPage();
  // 401 with a Basic challenge: a person is asked to sign in, headless Chromium gives up on it
  await expect(page.goto(`${t.base}/admin/queues`)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
  expect(await page.content()).not.toContain('__UI_CONFIG__');
});

test('a failed job is shown in the console, retried with its button, and shown completed', async () => {
  await t.rt.call('Switch', 'open', 'lamp', {});
  const { jobId } = (await t.rt.call('Switch', 'flip', 'lamp', {})).body as { jobId: string };
  await waitFor(async () => (await t.rt.jobs.status(jobId)).status.status === 'failed', { what: 'the job to fail' });

  const page = await browser.newPage();
  const token = t.rt.tokens.sign({ sub: 'dev-ops', identity: 'program_management_user', roles: [], developer: true });
  await page.authenticate({ username: 'operator', password: token });
  const res = await page.goto(`${t.base}/admin/queues/queue/jobs?status=failed`, { waitUntil: 'domcontentloaded' });
  expect(res?.status()).toBe(200);
  const failedCard = await jobCard(page, jobId, 'switch lamp is broken');
  expect(failedCard).toContain('switch lamp is broken');
  await screenshot(page, 'failed');

  // the cause is fixed, then the job is retried from its card (its first button: retry)
  await t.rt.call('Switch', 'mend', 'lamp', {});
  const retried = page.waitForResponse(
    (r) => r.request().method() === 'PUT' && r.url().endsWith(`/jobs/${jobId}/retry`),
  );
  await page.evaluate((id) => {
    const cards = Array.from(document.querySelectorAll<HTMLElement>('body *')).filter(
      (e) => e.querySelector('button') && e.innerText.includes(id) && e.innerText.includes('Failed at'),
    );
    cards.sort((a, b) => a.innerText.length - b.innerText.length);
    cards[0]!.querySelector('button')!.click();
  }, jobId);
  // Bull Board may ask to confirm: its dialog's confirming button
  const confirmed = await Promise.race([
    retried.then(() => 'sent' as const),
    page.waitForSelector('[role="alertdialog"] button, [role="dialog"] button', { timeout: 5_000 }).then(async () => {
      await page.evaluate(() => {
        const buttons = Array.from(
          document.querySelectorAll<HTMLButtonElement>('[role="alertdialog"] button, [role="dialog"] button'),
        );
        (buttons.find((b) => /retry|confirm|yes|ok/i.test(b.innerText)) ?? buttons[buttons.length - 1])!.click();
      });
      return 'confirmed' as const;
    }),
  ]);
  expect(['sent', 'confirmed']).toContain(confirmed);
  expect((await retried).status()).toBe(204);

  const done = await waitFor(
    async () => {
      const { status } = await t.rt.jobs.status(jobId);
      return status.status === 'completed' ? status : undefined;
    },
    { what: 'the retried job to complete' },
  );
  expect(done!.result).toEqual({ status: 200, body: { flips: 1 } });

  await page.goto(`${t.base}/admin/queues/queue/jobs?status=completed`, { waitUntil: 'domcontentloaded' });
  const completedCard = await jobCard(page, jobId, 'Finished at');
  expect(completedCard).not.toContain('broken');
  expect((await page.$$eval('nav a, aside a', (as) => as.map((a) => a.textContent?.trim()))).filter(Boolean)).toEqual(
    expect.arrayContaining(['jobs', `msg-${t.projectId}`]),
  );
  await screenshot(page, 'completed');

  expect(browser.consoleErrors.filter((l) => !fontRefused(l))).toEqual([]);
  expect(browser.failedResources.filter((l) => !fontRefused(l))).toEqual([]);
}, 60_000);

test("a dead letter is listed on the console's page, linked from the queues, and retried with its button", async () => {
  await t.rt.call('Switch', 'open', 'bulb', {});
  await t.rt.call('Switch', 'open', 'wall', {});
  await t.rt.call('Switch', 'poke', 'wall', { target: 'bulb' });
  const page = await browser.newPage();
  const token = t.rt.tokens.sign({ sub: 'dev-ops', identity: 'program_management_user', roles: [], developer: true });
  await page.authenticate({ username: 'operator', password: token });
  await page.goto(`${t.base}/admin/queues`, { waitUntil: 'domcontentloaded' });
  // Bull Board's header links to the dead letters (its menu of links)
  await page.waitForFunction(() => document.querySelector('#root button') !== null, { timeout: 15_000 });
  expect(await page.evaluate(() => document.documentElement.innerHTML)).toContain('/admin/dead-letters');

  const row = await waitFor(
    async () => {
      await page.goto(`${t.base}/admin/dead-letters`);
      return page.$('tr[data-id^="effect:"]');
    },
    { what: 'the dead letter on the page' },
  );
  expect(await row!.evaluate((tr) => (tr as HTMLElement).innerText)).toContain('Switch.flipNow/bulb');
  await t.rt.call('Switch', 'mend', 'bulb', {});
  const [res] = await Promise.all([
    page.waitForNavigation(),
    row!.$eval('button', (b) => (b as HTMLButtonElement).click()),
  ]);
  expect(res?.status()).toBe(200);
  expect(new URL(page.url()).pathname).toBe('/admin/dead-letters');
  expect(await page.$('tr[data-id^="effect:"]')).toBeNull();
  expect(((await t.rt.call('Switch', 'get', 'bulb', {})).body as { flips: number }).flips).toBe(1);
  expect(browser.consoleErrors.filter((l) => !fontRefused(l))).toEqual([]);
});
