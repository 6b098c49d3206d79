import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime();
});
afterAll(async () => {
  await t.stop();
});

test('init, write, read', async () => {
  const key = { 'x-api-key': TEST_API_KEY };
  const p = `/${t.projectId}/CALL/Counter`;
  const created = await t.post(`${p}/init/c1`, { start: 5 }, key);
  expect(created).toMatchObject({ status: 200, body: { id: 'c1', count: 5 } });
  const inc = await t.post(`${p}/increment/c1`, { by: 2 }, key);
  expect(inc).toMatchObject({ status: 200, body: { count: 7 } });
  const got = await t.get(`${p}/get/c1`, key);
  expect(got.body).toMatchObject({ id: 'c1', count: 7, version: 2 });
});
