/**
 * Consent flags are not personal data: a member's
 * `permissions.sms` / `permissions.email` changes are readable in the audit
 * log, while its email and phone stay masked (spec 6).
 */
import type { TestRuntime } from '../support/harness';
import { waitFor } from '../support/harness';
import { createMember, memberLogs, seedProgram, startMemberRuntime } from './support';

let t: TestRuntime;
beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
});
afterAll(() => t.stop());

test('permissions.* changes are logged in clear; email and phone stay masked', async () => {
  const m = await createMember(t);
  const r = await t.rt.call('Member', 'updateMemberContact', m.id, {
    phone: '+444',
    permissions: { sms: true, email: true },
  });
  expect(r.status).toBe(200);
  // the creation's entry and the contact change's: the newest is the change
  const entry = await waitFor(
    async () => {
      const logs = await memberLogs(t, m.id);
      return logs.length === 2
        ? [...logs].sort((a, b) => String(b.timeStamp).localeCompare(String(a.timeStamp)))[0]!
        : undefined;
    },
    { what: 'the contact change in the audit log' },
  );
  const full = (await t.rt.call('LogManager', 'getLog', undefined, { logId: entry!.id ?? entry!._id })).body as {
    fieldUpdates: { key: string; oldValue?: string; newValue?: string }[];
  };
  const byKey = Object.fromEntries(full.fieldUpdates.map((u) => [u.key, u]));
  expect(JSON.parse(byKey.permissions!.newValue!)).toEqual({ sms: true, email: true });
  expect(JSON.parse(byKey.permissions!.oldValue!)).toEqual({ sms: false, email: false });
  expect(byKey.phone!.newValue).toBe('"***"');
});
