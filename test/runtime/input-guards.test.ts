/**
 * What the HTTP layer refuses before any handler: JSON bodies nested deeper than MAX_JSON_DEPTH (400
 * 1024), and bodies over the size limit of the addressed method
 * (MethodOptions.bodyLimit, chosen from the CALL path or route alias before
 * parsing; never above BODY_LIMIT). Real HTTP against a real runtime.
 */
import { nested } from '../support/json';
import * as path from 'node:path';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

const key = { 'x-api-key': TEST_API_KEY };

/** a JSON object of about `bytes` bytes */
const sized = (bytes: number) => JSON.stringify({ filler: 'x'.repeat(Math.max(0, bytes - 14)) });

let t: TestRuntime;
let call: string;

beforeAll(async () => {
  t = await startTestRuntime({
    env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'input-fixtures')}`, BODY_LIMIT: '512kb' },
  });
  call = `/${t.projectId}/CALL`;
});
afterAll(() => t.stop());

async function expectHealthy() {
  const health = await t.get('/health');
  expect([health.status, health.body.status]).toEqual([200, 'ok']);
  const id = `ok-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const touched = await t.post(`${call}/Counter/touch/${id}`, {}, key);
  expect([touched.status, touched.body]).toEqual([200, { count: 1, createdNow: true }]);
}

describe('depth (MAX_JSON_DEPTH, default 64)', () => {
  test('64 levels pass; 65 are refused with 400 1024 before the handler: nothing is created', async () => {
    const ok = await t.post(`${call}/Counter/touch/depth-64`, nested(64), key);
    expect([ok.status, ok.body.count]).toEqual([200, 1]);
    const deep = await t.post(`${call}/Counter/touch/depth-65`, nested(65), key);
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual({
      code: 1024,
      message: 'JSON body nested deeper than 64 levels',
      details: { maxDepth: 64 },
    });
    expect(await t.rt.store.read('Counter', 'depth-65')).toBeFalsy();
  });

  test.each([
    ['10 000 deep objects and arrays', nested(10_000)],
    ['100 000 deep arrays', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['a shallow body with one deep member', `{"ok": 1, "list": [1, 2, ${nested(70)}]}`],
  ])('%s: 400 1024, and the service stays healthy', async (_what, body) => {
    const r = await t.post(`${call}/Counter/touch/deep-x`, body, key);
    expect([r.status, r.body.code]).toEqual([400, 1024]);
    expect(await t.rt.store.read('Counter', 'deep-x')).toBeFalsy();
    await expectHealthy();
  });

  test('checked whoever calls: an anonymous caller gets the same 400 (the body is refused before anything else)', async () => {
    const r = await t.post(`${call}/Counter/touch/anon`, nested(200), {});
    expect([r.status, r.body.code]).toEqual([400, 1024]);
  });

  test('through a route alias, and on a method with its own error envelope (errorShape)', async () => {
    const alias = await t.post('/parcels/small', nested(100), key);
    expect([alias.status, alias.body.code]).toEqual([400, 1024]);
    const shaped = await t.post('/parcels/shaped', nested(100), key);
    expect([shaped.status, shaped.body]).toEqual([
      400,
      { ok: false, code: 1024, message: 'JSON body nested deeper than 64 levels' },
    ]);
    const viaCall = await t.post(`${call}/Parcel/shaped`, nested(100), key);
    expect(viaCall.body).toEqual(shaped.body);
  });
});

describe('body limits per method (MethodOptions.bodyLimit)', () => {
  test('a method with bodyLimit 1kb: through CALL and its alias, 1 KB passes, more is 413 1016 naming its limit', async () => {
    for (const p of [`${call}/Parcel/small`, '/parcels/small']) {
      const ok = await t.post(p, sized(1000), key);
      expect([p, ok.status]).toEqual([p, 200]);
      const big = await t.post(p, sized(2000), key);
      expect([p, big.status, big.body]).toEqual([p, 413, { code: 1016, message: 'Body exceeds the limit of 1kb' }]);
    }
  });

  test('a route alias with a path parameter picks the method limit too; the refused write creates nothing', async () => {
    const big = await t.post('/parcels/n1/note', sized(2000), key);
    expect([big.status, big.body.code]).toEqual([413, 1016]);
    expect(await t.rt.store.read('Parcel', 'n1')).toBeFalsy();
    const ok = await t.post('/parcels/n1/note', sized(900), key);
    expect(ok.status).toBe(200);
    expect(await t.rt.store.read('Parcel', 'n1')).toBeTruthy();
    const viaCall = await t.post(`${call}/Parcel/note/n2`, sized(2000), key);
    expect([viaCall.status, viaCall.body.message]).toEqual([413, 'Body exceeds the limit of 1024']);
  });

  test('a method without a limit of its own keeps BODY_LIMIT; a method limit above BODY_LIMIT does not raise it', async () => {
    const plain = await t.post(`${call}/Parcel/plain`, sized(400_000), key);
    expect(plain.status).toBe(200);
    for (const m of ['plain', 'huge']) {
      const big = await t.post(`${call}/Parcel/${m}`, sized(600_000), key);
      expect([m, big.status, big.body.message]).toEqual([m, 413, 'Body exceeds the limit of 512kb']);
    }
  });

  test('errorShape shapes the size refusal like any other error', async () => {
    const r = await t.post('/parcels/shaped', sized(2000), key);
    expect([r.status, r.body]).toEqual([400, { ok: false, code: 1016, message: 'Body exceeds the limit of 1kb' }]);
  });

  test('other routes and other projects keep BODY_LIMIT', async () => {
    const r = await t.post(`/otherproject/CALL/Parcel/small`, sized(2000), key);
    expect([r.status, r.body.code]).toEqual([404, 1003]);
    await expectHealthy();
  });
});

describe('MAX_JSON_DEPTH', () => {
  test('is read from the environment', async () => {
    const small = await startTestRuntime({ env: { MAX_JSON_DEPTH: '3' } });
    try {
      const p = `/${small.projectId}/CALL/Counter/touch`;
      expect((await small.post(`${p}/d3`, nested(3), key)).status).toBe(200);
      const deep = await small.post(`${p}/d4`, nested(4), key);
      expect([deep.status, deep.body.details]).toEqual([400, { maxDepth: 3 }]);
    } finally {
      await small.stop();
    }
  });
});
