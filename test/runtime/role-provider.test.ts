import * as path from 'node:path';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'fixtures')}` } });
  // the provider's instance exists (read methods need it)
  await t.rt.call('RoleBook', 'publish', 'default', {});
  await t.rt.redis.del(t.rt.store.keys.roles);
  t.rt.roleSource.invalidate();
});
afterAll(() => t.stop());

test('without a snapshot the role check asks the provider, and the snapshot is regenerated', async () => {
  const p = `/${t.projectId}/CALL/Counter`;
  await t.post(`${p}/init/x`, {}, { 'x-api-key': TEST_API_KEY });
  const viewer = { authorization: `Bearer ${t.token('program_management_user', 'pm', ['viewer'])}` };
  expect(await t.rt.ports.roles.current()).toBeNull();
  expect((await t.get(`${p}/get/x`, viewer)).status).toBe(200);
  expect((await t.post(`${p}/increment/x`, {}, viewer)).status).toBe(403);
  const snapshot = await waitFor(() => t.rt.ports.roles.current(), { what: 'regenerated snapshot' });
  expect(snapshot).toMatchObject({ version: 2, roles: [{ id: 'viewer' }] });
  // from now on the snapshot answers
  t.rt.roleSource.invalidate();
  expect((await t.get(`${p}/get/x`, viewer)).status).toBe(200);
});

test('a role provider without an instance yet means no roles (403), not a 500', async () => {
  const fresh = await startTestRuntime({
    env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'fixtures')}` },
  });
  try {
    const p = `/${fresh.projectId}/CALL/Counter`;
    await fresh.post(`${p}/init/y`, {}, { 'x-api-key': TEST_API_KEY });
    const viewer = { authorization: `Bearer ${fresh.token('program_management_user', 'pm', ['viewer'])}` };
    expect((await fresh.get(`${p}/get/y`, viewer)).status).toBe(403);
    // the regeneration it triggered creates the provider's instance and publishes; then the role works
    await waitFor(() => fresh.rt.ports.roles.current(), { what: 'snapshot published by regeneration' });
    fresh.rt.roleSource.invalidate();
    expect((await fresh.get(`${p}/get/y`, viewer)).status).toBe(200);
  } finally {
    await fresh.stop();
  }
});
