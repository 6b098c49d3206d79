/**
 * The page tests' browser works: the system Chromium starts, opens the service's
 * own landing page, applies its stylesheet under the page's CSP and logs no error.
 */
import { launchBrowser, type TestBrowser } from '../support/browser';
import { startTestRuntime, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let browser: TestBrowser;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestRuntime(), launchBrowser()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), t?.stop()]);
});

test('Chromium opens the landing page with its stylesheet and no console error', async () => {
  const page = await browser.newPage();
  const res = await page.goto(`${t.base}/`);
  expect(res?.status()).toBe(200);
  expect(await page.$eval('h1', (h) => h.textContent)).toBe(t.projectId);
  // /site.css was loaded (style-src 'self'): its font family reached the body
  expect(await page.$eval('body', (b) => getComputedStyle(b).fontFamily)).toContain('system-ui');
  expect(browser.consoleErrors).toEqual([]);
  expect(browser.failedResources).toEqual([]);
});
