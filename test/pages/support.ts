/**
 * Helpers of the page tests: a browser page that opens a link the way a person
 * does (the mail's own HTML shown, its link clicked), waits for where it lands,
 * and sends forms by their buttons.
 */
import type { Page } from 'puppeteer-core';
import type { ReceivedMail } from '../mail/smtp-sink';

/** the service's public address in these tests: the browser resolves it to the runtime's port (launchBrowser hosts) */
export const SERVICE_HOST = 'service.example.test';
export const SERVICE = `http://${SERVICE_HOST}`;

/** Polls the page's address (it changes across redirects and history.replaceState) until `check` holds. */
export async function waitForUrl(
  page: Page,
  check: (url: URL) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<URL> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const url = new URL(page.url());
    if (check(url)) return url;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the page is at ${url.href}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Shows the mail as the mail client would and clicks the link whose address contains `contains`. */
export async function openMailLink(page: Page, mail: ReceivedMail, contains: string): Promise<void> {
  await page.setContent(String(mail.parsed.html));
  const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
  const index = hrefs.findIndex((h) => h.includes(contains));
  if (index === -1) throw new Error(`no link with '${contains}' in mail '${mail.parsed.subject}': ${hrefs.join(', ')}`);
  const links = await page.$$('a[href]');
  await Promise.all([page.waitForNavigation(), links[index]!.click()]);
}

/** Sends the form holding `selector` by its submit button and waits for the page it leads to. */
export async function submit(page: Page, selector = 'form'): Promise<void> {
  const button = await page.$(`${selector} button[type=submit]`);
  if (!button) throw new Error(`no submit button in ${selector}`);
  await Promise.all([page.waitForNavigation(), button.click()]);
}

/** the text of an element, trimmed */
export async function textOf(page: Page, selector: string): Promise<string> {
  return (await page.$eval(selector, (e) => e.textContent ?? '')).replace(/\s+/g, ' ').trim();
}
