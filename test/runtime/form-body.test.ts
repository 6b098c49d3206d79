/**
 * formBody: a method may take application/x-www-form-urlencoded bodies (an
 * identity provider posting a SAML response from the user's browser); other
 * methods parse every body as JSON. Real HTTP.
 */
import * as path from 'node:path';
import { EXAMPLE_CLASS_DIR, startTestRuntime, type TestRuntime } from '../support/harness';

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'form-fixtures')}` } });
});
afterAll(() => t.stop());

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const call = (method: string, body: string, headers: Record<string, string>) =>
  t.post(`/${t.projectId}/CALL/FormEcho/${method}`, body, headers);

test('a formBody method reads a posted form as flat string fields (a repeated field: its last value)', async () => {
  const r = await call('echoForm', 'SAMLResponse=PHNhbWw%2BPC9zYW1sPg%3D%3D&RelayState=%2Fhome&a=1&a=2', FORM);
  expect(r.status).toBe(200);
  expect(r.body).toEqual({
    fields: { SAMLResponse: 'PHNhbWw+PC9zYW1sPg==', RelayState: '/home', a: '2' },
    nullPrototype: true,
  });
});

test("a form's __proto__ field is a plain field, not the object's prototype", async () => {
  const r = await call('echoForm', '__proto__=x&constructor=y', FORM);
  expect(r.status).toBe(200);
  expect(r.body.nullPrototype).toBe(true);
  expect(r.body.fields.constructor).toBe('y');
});

test('a formBody method still takes JSON', async () => {
  const r = await call('echoForm', JSON.stringify({ SAMLResponse: 'x' }), { 'content-type': 'application/json' });
  expect(r.status).toBe(200);
  expect(r.body.fields).toEqual({ SAMLResponse: 'x' });
});

test('other methods do not parse forms: the body is read as JSON and refused', async () => {
  const r = await call('echoJson', 'a=1', FORM);
  expect(r.status).toBe(400);
  const ok = await call('echoJson', JSON.stringify({ a: 1 }), { 'content-type': 'application/json' });
  expect(ok.body).toEqual({ fields: { a: 1 } });
});
