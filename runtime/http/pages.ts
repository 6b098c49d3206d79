/**
 * Server-rendered pages that classes contribute, for people who open a link a
 * mail carried (or sign in) with nothing but a browser: every `*.pages.ts` (or
 * compiled `.pages.js`) file under the class folders exports
 * `pages(env): PageSite`, a list of routes under `/pages/` and the static
 * files (stylesheets, scripts) they use.
 *
 * A page is a client of the API like any other, run on the server: it calls
 * class methods through the dispatcher (`ctx.call`), as an anonymous caller
 * or with a bearer token it holds in a cookie, with the browser's address and
 * user agent, so every access rule, throttle and validation applies as it
 * does to a call over HTTP. The runtime knows nothing of what a page shows.
 *
 * What every page gets, whatever its class writes:
 *   - headers: a Content-Security-Policy allowing only the service's own
 *     scripts, styles and images (no inline script or style, forms posting
 *     only here, no framing), no-store, no Referer, nosniff;
 *   - form bodies (application/x-www-form-urlencoded, 16 kB) on POST, and a
 *     POST from another origin refused (403) before its handler runs;
 *   - cookies set HttpOnly, SameSite=Strict, Path=/pages, Secure on https;
 *   - an HTML page, not JSON, for an unknown path under /pages/ (404) and for
 *     a handler that fails (500, logged).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Dispatcher } from '../actor/dispatcher';
import type { Identity } from '../types/identity';
import type { IdentityResolver } from '../auth/identities';
import { ActorError } from '../errors';

/** What a page's call answered: the method's answer, or its error as the API would answer it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a page that names no answer type reads the body freely (the method's answer is not typed here)
export type PageCallResult<T = any> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; code?: number | string; message: string; details?: unknown; classId?: string };

export interface PageCallOptions {
  /** a bearer token to call with (the identity the API would give it); absent: an anonymous caller */
  token?: string;
}

export interface PageCookieOptions {
  /** seconds the browser keeps it; absent: until the browser closes */
  maxAgeSeconds?: number;
}

export interface PageCtx {
  projectId: string;
  method: 'GET' | 'POST';
  /** the path as requested (`/pages/member/sign-in`) */
  path: string;
  /** the route's path parameters (`/pages/x/:id` → `{id}`) */
  params: Readonly<Record<string, string>>;
  /** query parameters (the last value of a repeated one) */
  query: Readonly<Record<string, string>>;
  /** the posted form's fields (empty on GET) */
  form: Readonly<Record<string, string>>;
  /** the request's id (x-request-id), for an error page that names it */
  requestId: string;
  cookie(name: string): string | undefined;
  setCookie(name: string, value: string, opts?: PageCookieOptions): void;
  clearCookie(name: string): void;
  /** a class method, through the dispatcher, as the browser's caller (its address and user agent) */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as PageCallResult: the answer's type is the caller's to name
  call<T = any>(
    classId: string,
    method: string,
    instanceId: string | undefined,
    body: unknown,
    opts?: PageCallOptions,
  ): Promise<PageCallResult<T>>;
}

export type PageAnswer =
  | { status?: number; html: string }
  /** a 303 to another page (after a POST: a reload does not post again) */
  | { redirect: string };

export type PageHandler = (ctx: PageCtx) => Promise<PageAnswer> | PageAnswer;

export interface PageRoute {
  /** an express path under /pages/ (`/pages/member/sign-in`) */
  path: string;
  get?: PageHandler;
  post?: PageHandler;
}

export interface PageAsset {
  /** under /pages/ (`/pages/kit/site.css`) */
  path: string;
  contentType: 'text/css' | 'text/javascript';
  body: string;
}

export interface PageSite {
  routes: PageRoute[];
  assets?: PageAsset[];
  /** where a person starts (listed on the service's own page at `/`) */
  entries?: { href: string; title: string; text: string }[];
  /** the page for an unknown path under this site's prefix and for a failed handler; default a plain one */
  errorPage?: (status: number, message: string) => string;
}

export interface PageModule {
  pages(env: NodeJS.ProcessEnv): PageSite;
}

export const PAGES_PREFIX = '/pages/';

/** The Content-Security-Policy of every page: the service's own files only, nothing inline. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': PAGE_CSP,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
});

const COOKIE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const COOKIE_VALUE = /^[A-Za-z0-9._~+/=:-]{0,4000}$/;

function walk(dir: string, out: string[]): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.pages\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
}

/** The page sites of the class folders (`*.pages.ts`), in file order. */
export function loadPageSites(classDirs: readonly string[], env: NodeJS.ProcessEnv): PageSite[] {
  const files: string[] = [];
  for (const dir of classDirs) walk(dir, files);
  return files.sort().map((file) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as Partial<PageModule>;
    if (typeof mod.pages !== 'function') throw new Error(`${file}: a .pages file must export pages(env)`);
    return mod.pages(env);
  });
}

/** text made safe inside HTML (content and quoted attribute values) */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function plainErrorPage(status: number, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><main><h1>${escapeHtml(message)}</h1></main></body></html>`;
}

function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

function flat(record: Record<string, unknown> | undefined): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(record ?? {})) {
    const last: unknown = Array.isArray(v) ? v[v.length - 1] : v;
    if (typeof last === 'string') out[k] = last;
  }
  return out;
}

/**
 * A POST a browser sent from another site's page: refused before the handler.
 * Browsers say where a request comes from in Sec-Fetch-Site; one that does not
 * is judged by Origin (which is `null` on a form posted from a page with
 * `Referrer-Policy: no-referrer`, as these pages are: not a foreign origin).
 * A request with neither is no browser's, and holds no cookie a browser gave.
 */
function crossOrigin(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}

export interface PagesDeps {
  projectId: string;
  dispatcher: Dispatcher;
  identities: IdentityResolver;
  logger: Logger;
}

/** The routes and files of the page sites (mounted before the API's JSON body parser). */
export function pagesRouter(sites: readonly PageSite[], deps: PagesDeps): express.Router {
  // mounted under /pages: a call to the API tests one prefix, never walks the pages' routes
  const outer = express.Router();
  const router = express.Router({ caseSensitive: true, strict: false });
  outer.use(PAGES_PREFIX.slice(0, -1), router);
  const local = (full: string) => full.slice(PAGES_PREFIX.length - 1);
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 });
  const errorPage = sites.find((s) => s.errorPage)?.errorPage ?? plainErrorPage;

  const assets = new Map<string, PageAsset>();
  for (const site of sites) {
    for (const asset of site.assets ?? []) {
      if (!asset.path.startsWith(PAGES_PREFIX))
        throw new Error(`page asset ${asset.path}: must be under ${PAGES_PREFIX}`);
      const known = assets.get(asset.path);
      if (known && known.body !== asset.body)
        throw new Error(`page asset ${asset.path} is declared twice, differently`);
      assets.set(asset.path, asset);
    }
  }
  for (const asset of assets.values()) {
    router.get(local(asset.path), (_req: Request, res: Response) => {
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('cache-control', 'public, max-age=300');
      res.type(`${asset.contentType}; charset=utf-8`).send(asset.body);
    });
  }

  const answer = (res: Response, out: PageAnswer): void => {
    for (const [k, v] of Object.entries(PAGE_HEADERS)) res.setHeader(k, v);
    if ('redirect' in out) {
      res.redirect(303, out.redirect);
      return;
    }
    res
      .status(out.status ?? 200)
      .type('html')
      .send(out.html);
  };

  const run = (handler: PageHandler) => async (req: Request, res: Response) => {
    const requestId = String(res.locals.requestId ?? '');
    const cookies = parseCookies(req.headers.cookie);
    const cookieBase = `Path=/pages; HttpOnly; SameSite=Strict${req.secure ? '; Secure' : ''}`;
    const setCookies: string[] = [];
    const ctx: PageCtx = {
      projectId: deps.projectId,
      method: req.method === 'POST' ? 'POST' : 'GET',
      path: req.baseUrl + req.path,
      params: flat(req.params),
      query: flat(req.query),
      form:
        req.method === 'POST' && req.body && typeof req.body === 'object'
          ? flat(req.body as Record<string, unknown>)
          : {},
      requestId,
      cookie: (name) => {
        const v = cookies.get(name);
        return v === undefined || v === '' ? undefined : v;
      },
      setCookie: (name, value, opts = {}) => {
        if (!COOKIE_NAME.test(name) || !COOKIE_VALUE.test(value))
          throw new Error(`cookie ${name}: name or value has characters a cookie cannot carry`);
        setCookies.push(
          `${name}=${value}; ${cookieBase}${opts.maxAgeSeconds !== undefined ? `; Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}` : ''}`,
        );
      },
      clearCookie: (name) => {
        setCookies.push(`${name}=; ${cookieBase}; Max-Age=0`);
      },
      call: async (classId, method, instanceId, body, opts = {}) => {
        try {
          const identity: Identity = opts.token
            ? await deps.identities.identify({ authorization: `Bearer ${opts.token}` })
            : { type: 'anonymous' };
          const ua = req.headers['user-agent'];
          const result = await deps.dispatcher.call({
            classId,
            method,
            instanceId,
            body,
            identity,
            origin: 'http',
            requestId,
            ip: req.ip,
            headers: ua ? { 'user-agent': ua } : {},
            query: {},
          });
          return { ok: true, status: result.status, body: result.body as never };
        } catch (err) {
          if (!(err instanceof ActorError)) throw err;
          return {
            ok: false,
            status: err.status,
            code: err.code,
            message: err.message,
            details: err.details,
            classId: err.classId,
          };
        }
      },
    };
    try {
      const out = await handler(ctx);
      if (setCookies.length) res.setHeader('set-cookie', setCookies);
      answer(res, out);
    } catch (err) {
      deps.logger.error({ err, requestId, path: req.baseUrl + req.path }, 'page failed');
      answer(res, {
        status: 500,
        html: errorPage(500, `Something went wrong on our side. Try again in a moment (request ${requestId}).`),
      });
    }
  };

  for (const site of sites) {
    for (const route of site.routes) {
      if (!route.path.startsWith(PAGES_PREFIX)) throw new Error(`page ${route.path}: must be under ${PAGES_PREFIX}`);
      if (route.get) router.get(local(route.path), run(route.get));
      if (route.post) {
        router.post(
          local(route.path),
          (req: Request, res: Response, next: NextFunction) => {
            if (!crossOrigin(req)) return next();
            answer(res, {
              status: 403,
              html: errorPage(403, 'This form was sent from another site, so it was not accepted.'),
            });
          },
          form,
          run(route.post),
        );
      }
    }
  }
  // an unknown page, a verb a page does not take, a body the form parser refuses: still a page, not JSON
  router.use((_req: Request, res: Response) => {
    answer(res, { status: 404, html: errorPage(404, 'There is no such page.') });
  });
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    answer(res, {
      status: status && status >= 400 && status < 500 ? status : 500,
      html: errorPage(400, 'The form could not be read. Go back and send it again.'),
    });
  });
  return outer;
}
