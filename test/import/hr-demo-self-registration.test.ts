/**
 * docs/hr-integration.md's "An employee registers themselves" walk-through against scripts/hr-demo-server.ts
 * (`npm run hr:demo`) over a runtime seeded with examples/seed.json, mailing through a real SMTP server: Nadia
 * Karim (E3001) asks discoverAuthMethod, gets a registration code by mail, and completeRegistration makes her a
 * member of acme (mt-permanent) with her member id recorded in the demo HR system and a session that reads her
 * profile.
 */
import { startHrDemo, type HrDemo } from '../../scripts/hr-demo-server';
import { startSmtpSink, type SmtpSink } from '../mail/smtp-sink';
import { codeIn, nthMail, PASSWORD } from '../Member/sign-in-support';
import { startTestRuntime, type TestRuntime } from '../support/harness';
import { seedExample } from '../support/seed-example';

const EMAIL = 'nadia.karim@acme.example';

let hr: HrDemo;
let sink: SmtpSink;
let t: TestRuntime;

beforeAll(async () => {
  hr = await startHrDemo({ port: 0, apiKey: 'demo-key' });
  sink = await startSmtpSink();
  t = await startTestRuntime({
    env: {
      CLASS_DIRS: 'classes',
      SCHEMA_DIRS: 'schemas',
      HR_BASE_URL: hr.url,
      HR_API_KEY: 'demo-key',
      HR_RETRY_BASE_MS: '10',
      SMTP_URL: sink.url,
      MAIL_BACKOFF_MS: '50',
    },
  });
  await seedExample(t);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await hr?.stop();
  await sink?.close();
});

test('discoverAuthMethod, the code by mail, completeRegistration: a member of acme, its id in HR, signed in', async () => {
  const p = `/${t.projectId}/CALL/Member`;
  const d = await t.post(`${p}/discoverAuthMethod`, { email: EMAIL });
  expect([d.status, d.body]).toEqual([200, { email: EMAIL, method: 'email_password' }]);
  const code = codeIn(await nthMail(sink, EMAIL, 1));
  const r = await t.post(`${p}/completeRegistration`, { email: EMAIL, code, password: PASSWORD });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({
    member: { name: 'Nadia', surname: 'Karim', email: EMAIL, status: 'pending_id_photo' },
    registration: { dependants: [], memberIdRecorded: true, warnings: [] },
  });
  const memberId = r.body.memberId as string;
  expect(Object.fromEntries(hr.memberIds)).toEqual({ E3001: memberId });
  const profile = await t.get(`${p}/getMemberProfile/${memberId}`, { authorization: `Bearer ${r.body.accessToken}` });
  expect([profile.status, profile.body.company]).toEqual([200, expect.objectContaining({ id: 'acme' })]);
});
