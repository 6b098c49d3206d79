import * as http from 'node:http';
import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let p: string;
const key = { 'x-api-key': TEST_API_KEY };

beforeAll(async () => {
  t = await startTestRuntime({ env: { BODY_LIMIT: '64kb' } });
  p = `/${t.projectId}/CALL/Counter`;
});
afterAll(() => t.stop());

function raw(method: string, pathname: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const url = new URL(t.base + pathname);
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: data ? JSON.parse(data) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('routing', () => {
  test('another project id answers 404', async () => {
    const r = await t.post(`/otherproject/CALL/Counter/init/x`, {}, key);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 1003 });
  });

  test('unknown class and unknown method answer 404', async () => {
    expect((await t.post(`/${t.projectId}/CALL/Nope/get/x`, {}, key)).body).toMatchObject({ code: 1004 });
    const m = await t.post(`${p}/nope/x`, {}, key);
    expect(m.status).toBe(404);
    expect(m.body).toMatchObject({ code: 1005, classId: 'Counter' });
  });

  test('INTERNAL methods are not reachable over HTTP', async () => {
    await t.post(`${p}/init/internal1`, {}, key);
    const r = await t.post(`${p}/internalBump/internal1`, {}, key);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(1006);
  });

  test('GET is refused for WRITE methods and allowed for READ and STATIC', async () => {
    await t.post(`${p}/init/g1`, {}, key);
    expect((await t.get(`${p}/increment/g1`, key)).status).toBe(405);
    expect((await t.get(`${p}/get/g1`, key)).body).toMatchObject({ count: 0 });
    expect((await t.get(`${p}/about`)).body).toMatchObject({ class: 'Counter' });
  });

  test('other HTTP verbs on CALL are refused', async () => {
    const r = await fetch(`${t.base}${p}/get/g1`, { method: 'DELETE', headers: key });
    expect(r.status).toBe(405);
  });

  test('unknown routes answer 404 JSON', async () => {
    const r = await t.get('/nowhere');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 1022 });
  });

  test('health and readiness', async () => {
    expect((await t.get('/health')).body).toEqual({ status: 'ok', pid: process.pid });
    expect((await t.get('/ready')).body).toMatchObject({ status: 'ready', redis: 'ok', documents: 'embedded' });
  });

  test('every response carries a request id, echoing a valid incoming one', async () => {
    const r = await t.get('/health', { 'x-request-id': 'abc-123' });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
    const r2 = await t.get('/health');
    expect(r2.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('answers', () => {
  /** the raw header names, in order, and the body of a GET */
  function rawGet(pathname: string, headers: Record<string, string>) {
    return new Promise<{ status: number; names: string[]; headers: http.IncomingHttpHeaders; body: string }>(
      (resolve, reject) => {
        const url = new URL(t.base + pathname);
        http
          .get({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (body += c));
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                names: res.rawHeaders.filter((_, i) => i % 2 === 0),
                headers: res.headers,
                body,
              }),
            );
          })
          .on('error', reject);
      },
    );
  }

  test("a call's JSON answer has the headers express's res.json writes, in its order", async () => {
    await t.post(`${p}/init/h1`, { label: 'é ✓' }, key);
    const call = await rawGet(`${p}/get/h1`, key);
    const health = await rawGet('/health', {});
    expect(call.status).toBe(200);
    expect(call.names).toEqual(health.names);
    expect(call.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(call.headers['content-length'])).toBe(Buffer.byteLength(call.body));
    expect(JSON.parse(call.body)).toMatchObject({ id: 'h1', label: 'é ✓' });
  });

  test('a conditional GET is judged fresh as express judges it (If-None-Match: * is a 304)', async () => {
    await t.post(`${p}/init/h2`, {}, key);
    const r = await rawGet(`${p}/get/h2`, { ...key, 'if-none-match': '*' });
    expect(r.status).toBe(304);
    expect(r.body).toBe('');
  });
});

describe('bad input never yields a 500', () => {
  test('malformed JSON is a 400', async () => {
    const r = await t.post(`${p}/init/bad1`, '{"start": 1,', key);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(1001);
  });

  test('an oversized body is a 413', async () => {
    const r = await t.post(`${p}/init/big1`, { label: 'x'.repeat(100_000) }, key);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe(1016);
  });

  test('schema failures are 400 with each failing field', async () => {
    await t.post(`${p}/init/v1`, {}, key);
    const r = await t.post(`${p}/increment/v1`, { by: 'two', extra: true, delayMs: -1 }, key);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(1002);
    expect(r.body.classId).toBe('Counter');
    const fields = r.body.details.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['by', 'delayMs', 'extra']);
    for (const e of r.body.details.errors) expect(typeof e.reason).toBe('string');
  });

  test('a body that is not an object fails validation, not the handler', async () => {
    const r = await t.post(`${p}/init/v2`, '[1,2]', key);
    expect(r.status).toBe(400);
    expect(r.body.details.errors[0]).toMatchObject({ field: '(body)' });
  });

  test('an invalid instance id for INIT is a 400', async () => {
    const r = await t.post(`${p}/init/${encodeURIComponent('a b')}`, {}, key);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(1020);
  });
});

describe('instances', () => {
  test('INIT creates; INIT again is 409; unknown instance is a 500 with only a message', async () => {
    expect((await t.post(`${p}/init/i1`, { start: 3 }, key)).status).toBe(200);
    const again = await t.post(`${p}/init/i1`, {}, key);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 1009, classId: 'Counter' });
    const missing = await t.post(`${p}/increment/nobody`, {}, key);
    expect(missing.status).toBe(500);
    expect(Object.keys(missing.body)).toEqual(['message']);
    expect(missing.body.message).toContain("'nobody'");
    expect(missing.body.message).toContain('Counter');
    expect(missing.body.message).toContain(t.projectId);
    // the unknown instance is answered before the body is judged, for a direct id as for a lookup
    const missingAndInvalid = await t.post(`${p}/increment/nobody`, { by: 'two' }, key);
    expect(missingAndInvalid.status).toBe(500);
    expect(missingAndInvalid.body).toEqual(missing.body);
    // an invalid body for an existing instance stays a 400
    expect((await t.post(`${p}/increment/i1`, { by: 'two' }, key)).status).toBe(400);
  });

  test('INIT without an id gets a generated one', async () => {
    const r = await t.post(`${p}/init`, {}, key);
    expect(r.status).toBe(200);
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.get(`${p}/get/${r.body.id}`, key)).status).toBe(200);
  });

  test('a failing INIT leaves no instance and no lookup key', async () => {
    const r = await t.post(`${p}/init/f1`, { label: 'fail', slot: 'failslot' }, key);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INIT_REFUSED', classId: 'Counter' });
    expect((await t.get(`${p}/get/f1`, key)).status).toBe(500);
    expect((await t.get(`${p}/get/slot!failslot`, key)).status).toBe(500);
    expect((await t.post(`${p}/init/f1`, {}, key)).status).toBe(200);
  });

  test('methods that need an instance say so', async () => {
    const r = await t.post(`${p}/increment`, {}, key);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(1010);
  });

  test('STATIC needs no instance', async () => {
    expect((await t.post(`${p}/about`, {})).body).toMatchObject({ class: 'Counter' });
  });
});

describe('lookup keys', () => {
  test('set, resolve in the path, move, remove', async () => {
    await t.post(`${p}/init/l1`, { slot: 'alpha' }, key);
    expect((await t.post(`${p}/increment/slot!alpha`, { by: 4 }, key)).body).toEqual({ count: 4 });
    expect((await t.get(`${p}/get/l1`, key)).body).toMatchObject({ count: 4, slot: 'alpha' });
    await t.post(`${p}/setSlot/l1`, { slot: 'beta' }, key);
    expect((await t.get(`${p}/get/slot!alpha`, key)).status).toBe(500);
    expect((await t.get(`${p}/get/slot!beta`, key)).body).toMatchObject({ id: 'l1' });
    await t.post(`${p}/setSlot/l1`, {}, key);
    const gone = await t.get(`${p}/get/slot!beta`, key);
    expect(gone.status).toBe(500);
    expect(gone.body).toEqual({ message: expect.stringContaining("'slot!beta'") });
  });

  test('a lookup key is unique per class: a second owner is refused and nothing of its change lands', async () => {
    await t.post(`${p}/init/u1`, { slot: 'shared' }, key);
    await t.post(`${p}/init/u2`, {}, key);
    const r = await t.post(`${p}/setSlot/u2`, { slot: 'shared' }, key);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 1013, classId: 'Counter' });
    expect(r.body.message).toContain('slot!shared');
    expect((await t.get(`${p}/get/slot!shared`, key)).body).toMatchObject({ id: 'u1' });
    expect((await t.get(`${p}/get/u2`, key)).body).toMatchObject({ slot: null, version: 1 });
    const dupInit = await t.post(`${p}/init/u3`, { slot: 'shared' }, key);
    expect(dupInit.status).toBe(409);
    expect((await t.get(`${p}/get/u3`, key)).status).toBe(500);
  });

  test('a malformed lookup is a 400', async () => {
    const r = await t.get(`${p}/get/${encodeURIComponent('bad name!x')}`, key);
    expect(r.status).toBe(400);
  });
});

test('the x-api-key header is matched in any case', async () => {
  await t.post(`${p}/init/case1`, {}, key);
  for (const name of ['X-API-Key', 'X-API-KEY', 'x-Api-kEy']) {
    const r = await raw('GET', `${p}/get/case1`, '', { [name]: TEST_API_KEY });
    expect(r.status).toBe(200);
  }
});

describe('the service address itself', () => {
  test('a browser opening / gets a page linking the API reference, with a CSP and its own stylesheet', async () => {
    const r = await fetch(`${t.base}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const html = await r.text();
    expect(html).toContain('<a href="/docs">API reference</a>');
    expect(html).toContain('<a href="/openapi.json">');
    expect(html).toContain(`/${t.projectId}/CALL/&lt;Class&gt;/&lt;method&gt;/&lt;instanceId&gt;`);
    expect(html).not.toMatch(/<script/);
    const css = await fetch(`${t.base}/site.css`);
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
  });

  test('a client asking for JSON gets the same links as JSON', async () => {
    const r = await fetch(`${t.base}/`, { headers: { accept: 'application/json' } });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body).toMatchObject({ project: t.projectId, calls: `/${t.projectId}/CALL/<Class>/<method>/<instanceId>` });
    expect(body.links.map((l: { href: string }) => l.href)).toEqual(
      expect.arrayContaining(['/docs', '/openapi.json', '/health']),
    );
  });
});
