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
    "no Chromium found for the page tests: `npm test` installs Debian's chromium when run as root " +
      '(scripts/ensure-deps.js); otherwise install it (`sudo apt-get install -y chromium`) or set CHROMIUM_PATH',
  );
}

export interface TestBrowser {
  browser: Browser;
  /** a fresh page in its own browser context (no cookies or storage shared with other pages) */
  newPage(): Promise<Page>;
  /**
   * Errors the pages logged to the console and uncaught page errors: a script or style the CSP refused shows
   * here. Chromium's "Failed to load resource" lines are left out (a page answered 400 on purpose logs one):
   * see failedResources.
   */
  readonly consoleErrors: string[];
  /** stylesheets, scripts, images and other subresources answered 4xx or 5xx, or not loaded at all: `<status> <url>` */
  readonly failedResources: string[];
  close(): Promise<void>;
}

export interface LaunchOptions {
  viewport?: { width: number; height: number };
  /**
   * Host names the browser resolves to local servers: `{ 'service.test': '127.0.0.1:40123' }` makes
   * `http://service.test/` reach port 40123 (Chromium's --host-resolver-rules). Gives a test distinct
   * origins (CORS) and lets a service be told its public address before it has a port.
   */
  hosts?: Readonly<Record<string, string>>;
}

export async function launchBrowser(opts: LaunchOptions = {}): Promise<TestBrowser> {
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
      ...(opts.hosts && Object.keys(opts.hosts).length
        ? [
            `--host-resolver-rules=${Object.entries(opts.hosts)
              .map(([host, target]) => `MAP ${host}:80 ${target}`)
              .join(', ')}`,
          ]
        : []),
    ],
  });
  const consoleErrors: string[] = [];
  const failedResources: string[] = [];
  const contexts: { close(): Promise<void> }[] = [];
  return {
    browser,
    consoleErrors,
    failedResources,
    async newPage() {
      const context = await browser.createBrowserContext();
      contexts.push(context);
      const page = await context.newPage();
      page.on('console', (msg) => {
        if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
          consoleErrors.push(`${msg.text()} (${msg.location().url ?? ''})`);
      });
      page.on('response', (res) => {
        const type = res.request().resourceType();
        if (res.status() >= 400 && type !== 'document') failedResources.push(`${res.status()} ${res.url()}`);
      });
      page.on('requestfailed', (req) => {
        if (req.resourceType() !== 'document')
          failedResources.push(`${req.failure()?.errorText ?? 'failed'} ${req.url()}`);
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
