/**
 * CORS (CORS_ORIGINS): a page on a listed origin may call the API with
 * credentials; any other origin gets no CORS header, so the browser keeps the
 * answer from it. Real HTTP, as a browser sends it (preflight, then the call).
 */
import { corsOrigins } from '../../runtime/config';
import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

const APP = 'http://app.localtest:5173';
const BACK_OFFICE = 'https://backoffice.example.com';
let t: TestRuntime;

beforeAll(async () => {
  t = await startTestRuntime({ env: { CORS_ORIGINS: `${APP}, ${BACK_OFFICE}/` } });
  await t.post(`/${t.projectId}/CALL/Counter/init/cors-1`, { start: 1 }, { 'x-api-key': TEST_API_KEY });
});
afterAll(() => t?.stop());

const preflight = (origin: string, method = 'POST', headers = 'authorization,content-type') =>
  fetch(`${t.base}/${t.projectId}/CALL/Counter/get/cors-1`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

test("a listed origin's preflight is answered 204 with the origin, credentials, the headers it may send and a max age", async () => {
  const r = await preflight(APP);
  expect(r.status).toBe(204);
  expect(r.headers.get('access-control-allow-origin')).toBe(APP);
  expect(r.headers.get('access-control-allow-credentials')).toBe('true');
  expect(r.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE');
  expect(r.headers.get('access-control-allow-headers')).toBe(
    'authorization,content-type,idempotency-key,if-none-match,x-request-id',
  );
  expect(r.headers.get('access-control-max-age')).toBe('600');
  expect(r.headers.get('vary')).toMatch(/origin/i);
  // the other listed origin (given with a trailing slash) alike
  expect((await preflight(BACK_OFFICE)).headers.get('access-control-allow-origin')).toBe(BACK_OFFICE);
});

test('the call itself carries the origin and exposes the headers clients read', async () => {
  const r = await fetch(`${t.base}/${t.projectId}/CALL/Counter/increment/cors-1`, {
    method: 'POST',
    headers: { origin: APP, 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
    body: JSON.stringify({ by: 1 }),
  });
  expect(r.status).toBe(200);
  expect(r.headers.get('access-control-allow-origin')).toBe(APP);
  expect(r.headers.get('access-control-allow-credentials')).toBe('true');
  expect(r.headers.get('access-control-expose-headers')).toBe(
    'x-request-id,retry-after,etag,idempotent-replayed,location,content-disposition',
  );
  // an error answer too: the app must be able to read it
  const missing = await fetch(`${t.base}/${t.projectId}/CALL/Counter/get/nobody`, {
    headers: { origin: APP, 'x-api-key': TEST_API_KEY },
  });
  expect(missing.status).toBe(500);
  expect(missing.headers.get('access-control-allow-origin')).toBe(APP);
});

test('an origin not listed gets no CORS header, for a preflight or a call', async () => {
  for (const origin of ['https://evil.example.com', 'http://app.localtest:5174', 'null']) {
    const pre = await preflight(origin);
    expect([
      origin,
      pre.headers.get('access-control-allow-origin'),
      pre.headers.get('access-control-allow-credentials'),
    ]).toEqual([origin, null, null]);
    const call = await fetch(`${t.base}/${t.projectId}/CALL/Counter/get/cors-1`, {
      headers: { origin, 'x-api-key': TEST_API_KEY },
    });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBeNull();
  }
});

test('CORS_ORIGINS takes exact origins only', () => {
  expect(corsOrigins({})).toEqual([]);
  expect(corsOrigins({ CORS_ORIGINS: ' https://a.example.com ,http://localhost:5173/,https://a.example.com' })).toEqual(
    ['https://a.example.com', 'http://localhost:5173'],
  );
  expect(() => corsOrigins({ CORS_ORIGINS: '*' })).toThrow("CORS_ORIGINS: '*' is not allowed");
  expect(() => corsOrigins({ CORS_ORIGINS: 'https://a.example.com/app' })).toThrow(
    "CORS_ORIGINS: 'https://a.example.com/app' is not an origin",
  );
  expect(() => corsOrigins({ CORS_ORIGINS: 'a.example.com' })).toThrow(
    "CORS_ORIGINS: 'a.example.com' is not an origin",
  );
  expect(() => corsOrigins({ CORS_ORIGINS: 'ftp://a.example.com' })).toThrow('is not an origin');
});

test('without CORS_ORIGINS no origin gets a CORS header', async () => {
  const plain = await startTestRuntime();
  try {
    const r = await fetch(`${plain.base}/${plain.projectId}/CALL/Counter/get/x`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'POST' },
    });
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    await plain.stop();
  }
});
