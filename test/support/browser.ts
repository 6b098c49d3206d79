/**
 * A real Chromium for page tests: puppeteer-core driving the system's browser
 * (Debian's `chromium`, which scripts/ensure-deps.js installs before `npm test`).
 * puppeteer-core downloads no browser of its own, so the executable is looked up:
 * CHROMIUM_PATH (or PUPPETEER_EXECUTABLE_PATH) when set, else the usual names on PATH.
 *
 * One browser per test file: launching costs about a second, a page a few milliseconds.
 *
 *   let browser: TestBrowser;
 *   beforeAll(async () => { browser = await launchBrowser(); });
 *   afterAll(() => browser?.close());
 *   const page = await browser.newPage();
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome', 'chrome'];

/** The browser executable, or an error saying how to get one. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.CHROMIUM_PATH || env.PUPPETEER_EXECUTABLE_PATH;
  if (named) {
    if (!fs.existsSync(named)) throw new Error(`CHROMIUM_PATH names ${named}, which does not exist`);
    return named;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const name of CANDIDATES) {
      const file = path.join(dir, name);
      try {
        fs.accessSync(file, fs.constants.X_OK);
        return file;
      } catch {
        /* not here */
      }
    }
  }
  throw new Error(
    'no Chromium found for the page tests: `npm test` installs Debian\'s chromium when run as root ' +
      '(scripts/ensure-deps.js); otherwise install it (`sudo apt-get install -y chromium`) or set CHROMIUM_PATH',
  );
}

export interface TestBrowser {
  browser: Browser;
  /** a fresh page in its own browser context (no cookies or storage shared with other pages) */
  newPage(): Promise<Page>;
  /** messages the pages logged as console errors, and uncaught page errors (a CSP refusal shows here) */
  readonly consoleErrors: string[];
  close(): Promise<void>;
}

export async function launchBrowser(opts: { viewport?: { width: number; height: number } } = {}): Promise<TestBrowser> {
  // its own profile directory, removed at close: parallel test files never share one
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-test-'));
  const browser = await puppeteer.launch({
    executablePath: findChromium(),
    headless: true,
    userDataDir,
    defaultViewport: opts.viewport ?? { width: 1280, height: 800 },
    args: [
      // root (CI, containers) cannot run Chromium's sandbox
      '--no-sandbox',
      // /dev/shm is small in containers
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--mute-audio',
    ],
  });
  const consoleErrors: string[] = [];
  const contexts: { close(): Promise<void> }[] = [];
  return {
    browser,
    consoleErrors,
    async newPage() {
      const context = await browser.createBrowserContext();
      contexts.push(context);
      const page = await context.newPage();
      page.on('console', (msg) => {
        if (msg.type() === 'error') consoleErrors.push(msg.text());
      });
      page.on('pageerror', (err) => consoleErrors.push(String((err as Error)?.message ?? err)));
      return page;
    },
    async close() {
      try {
        await browser.close();
      } finally {
        fs.rmSync(userDataDir, { recursive: true, force: true });
      }
    },
  };
}
