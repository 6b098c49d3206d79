/**
 * Pages contributed by classes (runtime/http/pages.ts), over real HTTP with a
 * fixture class and its `*.pages.ts`: their headers, path and query, calls
 * through the dispatcher as the browser's caller (anonymous, or the token a
 * page keeps in its cookie), the cookie's attributes, a POST from another site
 * refused before the handler, and HTML for an unknown page and a failed
 * handler. (The service's own pages, in Chromium: test/pages/.)
 */
import * as path from 'node:path';
import { EXAMPLE_CLASS_DIR, startTestRuntime, type TestRuntime } from '../support/harness';

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'page-fixtures')}` } });
});
afterAll(() => t?.stop());

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const answerOf = (html: string) =>
  JSON.parse(/<pre id="answer">([^<]*)<\/pre>/.exec(html)![1]!.replace(/&#34;/g, '"').replace(/&#39;/g, "'"));

test('a page: its CSP and other headers, its path parameter and query, a call as the anonymous browser with its user agent', async () => {
  const r = await fetch(`${t.base}/pages/probe/who/a%3Cb?q=x%22y`, { headers: { 'user-agent': 'probe-agent/1' } });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(r.headers.get('content-security-policy')).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  expect([
    r.headers.get('cache-control'),
    r.headers.get('referrer-policy'),
    r.headers.get('x-content-type-options'),
    r.headers.get('x-frame-options'),
  ]).toEqual(['no-store', 'no-referrer', 'nosniff', 'DENY']);
  const html = await r.text();
  expect(html).toContain('<p id="name">a&#60;b</p>');
  expect(html).toContain('<p id="q">x&#34;y</p>');
  expect(answerOf(html)).toEqual({
    ok: true,
    status: 200,
    body: {
      type: 'anonymous',
      userId: null,
      ip: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: 'probe-agent/1',
      body: { from: 'page' },
    },
  });
});

test("a token kept in the page's cookie: set HttpOnly, SameSite=Strict, under /pages; calls carry its identity; a refused call is an answer, not a throw", async () => {
  const token = t.token('enduser', 'u-1');
  const post = await fetch(`${t.base}/pages/probe/session`, {
    method: 'POST',
    headers: { ...FORM, 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
  expect(post.status).toBe(303);
  expect(post.headers.get('location')).toBe('/pages/probe/who/signed-in');
  expect(post.headers.get('set-cookie')).toBe(`probe=${token}; Path=/pages; HttpOnly; SameSite=Strict; Max-Age=60`);
  const who = await fetch(`${t.base}/pages/probe/who/me`, { headers: { cookie: `probe=${token}` } });
  expect(answerOf(await who.text()).body).toMatchObject({ type: 'enduser', userId: 'u-1' });
  expect(
    answerOf(await (await fetch(`${t.base}/pages/probe/members`, { headers: { cookie: `probe=${token}` } })).text()),
  ).toEqual({ ok: true, status: 200, body: { ok: true } });

  const anonymous = await fetch(`${t.base}/pages/probe/members`);
  expect(anonymous.status).toBe(401);
  expect(answerOf(await anonymous.text())).toMatchObject({
    ok: false,
    status: 401,
    code: expect.any(Number),
    message: expect.any(String),
  });
  const forged = await fetch(`${t.base}/pages/probe/members`, { headers: { cookie: 'probe=not.a.token' } });
  expect(answerOf(await forged.text())).toMatchObject({ ok: false, status: 401 });
});

test('a POST from another site is refused before its handler; same-origin, a no-referrer form (Origin: null) and non-browsers are not', async () => {
  const posts = async () =>
    Number(/<p id="posts">(\d+)<\/p>/.exec(await (await fetch(`${t.base}/pages/probe/session`)).text())![1]);
  const before = await posts();
  const send = (headers: Record<string, string>) =>
    fetch(`${t.base}/pages/probe/session`, {
      method: 'POST',
      headers: { ...FORM, ...headers },
      body: 'token=x',
      redirect: 'manual',
    });
  const refused: Record<string, string>[] = [
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
    { origin: 'http://evil.example' },
  ];
  for (const headers of refused) {
    const r = await send(headers);
    expect([headers, r.status, r.headers.get('set-cookie')]).toEqual([headers, 403, null]);
    expect(await r.text()).toContain('This form was sent from another site, so it was not accepted.');
  }
  expect(await posts()).toBe(before);
  const accepted: Record<string, string>[] = [
    { 'sec-fetch-site': 'same-origin' },
    { origin: 'null' },
    { origin: t.base },
    {},
  ];
  for (const headers of accepted) expect((await send(headers)).status).toBe(303);
  expect(await posts()).toBe(before + 4);
});

test('an unknown page, a verb a page does not take and a failed handler answer HTML; files are served with their type', async () => {
  for (const [method, url, status] of [
    ['GET', '/pages/probe/nothing', 404],
    ['POST', '/pages/probe/who/x', 404],
    ['GET', '/pages/probe/fail', 500],
  ] as const) {
    const r = await fetch(`${t.base}${url}`, { method, headers: method === 'POST' ? FORM : {} });
    expect([
      url,
      r.status,
      r.headers.get('content-type'),
      r.headers.get('content-security-policy')?.startsWith("default-src 'none'"),
    ]).toEqual([url, status, 'text/html; charset=utf-8', true]);
    const html = await r.text();
    expect(html).toContain('<p role="alert">');
    expect(html).not.toContain('secret detail');
  }
  const css = await fetch(`${t.base}/pages/probe/probe.css`);
  expect([
    css.status,
    css.headers.get('content-type'),
    css.headers.get('x-content-type-options'),
    await css.text(),
  ]).toEqual([200, 'text/css; charset=utf-8', 'nosniff', 'body{color:#123}']);
  // outside /pages/ nothing changes: the API's JSON 404
  const api = await fetch(`${t.base}/nothing`);
  expect([api.status, (await api.json()).code]).toEqual([404, 1022]);
});
