/**
 * A self-registration (use-cases/self-registration.ts) killed half-way and
 * finished on the next try: the service runs as its own process
 * (runtime/main.ts), the local HR server (fake-hr.ts) holds the member-id
 * update unanswered, and the process is SIGKILLed while it waits. The member
 * exists then, created by the self-registration, with no password and not
 * finished, so it cannot sign in. Asking discoverAuthMethod again mails a
 * new code (the crashed call spent the first); a second process refuses it
 * while the crashed call's hold lasts (409 5043, before the code is looked
 * at, so it still works afterwards), then finishes the same member with it
 * (200 `resumed`), sets the password and signs it in. Real Redis, real
 * processes, real SMTP.
 */
import { RedisRateLimits } from '../../runtime/actor/rate-limit';
import { COMPLETE_LOCK } from '../../classes/Member/use-cases/self-registration';
import { startSmtpSink, type SmtpSink } from '../mail/smtp-sink';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { uniqueProjectId } from '../support/redis';
import { FakeHr, hrEmployee, killWhileMemberIdHeld } from './fake-hr';
import { codeIn, nthMail, PASSWORD } from './sign-in-support';
import { MEMBER_CLASS_DIRS, memberState, seedProgram, uniq } from './support';

let hr: FakeHr;
let sink: SmtpSink;
let api: TestRuntime;
let projectId: string;
let env: Record<string, string>;
const running: RuntimeProcess[] = [];

beforeAll(async () => {
  hr = await new FakeHr().start();
  sink = await startSmtpSink();
  projectId = uniqueProjectId('srk');
  // a long HR time-out: the held update is still waited for when the process is killed
  env = {
    CLASS_DIRS: MEMBER_CLASS_DIRS,
    SCHEMA_DIRS: 'schemas',
    HR_BASE_URL: hr.url,
    HR_TIMEOUT_MS: '20000',
    HR_RETRIES: '1',
    HR_RETRY_BASE_MS: '10',
    SMTP_URL: sink.url,
    MAIL_BACKOFF_MS: '50',
  };
  // this process seeds the program and reads the stored state; the calls go to the spawned ones
  api = await startTestRuntime({ projectId, env });
  await seedProgram(api);
}, 60_000);

afterAll(async () => {
  hr?.release();
  await Promise.all(running.splice(0).map((r) => r.kill()));
  await api?.stop();
  await hr?.stop();
  await sink?.close();
});

async function post(
  base: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/${projectId}/CALL/Member/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

test('a self-registration killed after the member was created is finished with a new code, as the same member', async () => {
  const staffId = uniq('SK');
  const email = `${staffId.toLowerCase()}@example.com`;
  hr.employees.set(email, hrEmployee(staffId, { email }));

  const first = await spawnRuntime(projectId, env);
  running.push(first);
  expect((await post(first.base, 'discoverAuthMethod', { email })).status).toBe(200);
  const code = codeIn(await nthMail(sink, email, 1));

  expect(
    await killWhileMemberIdHeld(hr, first, () =>
      post(first.base, 'completeRegistration', { email, code, password: PASSWORD }),
    ),
  ).toHaveProperty('failed');

  // what the crash left: the member, created by the self-registration, no password, not finished
  const memberId = (await api.rt.store.resolveLookup('Member', 'staffId', staffId))!;
  expect(memberId).toEqual(expect.any(String));
  const left = (await memberState(api, memberId)).state.private;
  expect(left).toMatchObject({ creationSource: 'self_registration', profile: { status: 'pending_id_photo' } });
  expect(left.credentials ?? null).toBeNull();
  expect(left.hrRegistrationFinishedAt).toBeUndefined();

  const second = await spawnRuntime(projectId, env);
  running.push(second);
  // it cannot sign in yet
  expect((await post(second.base, 'login', { email, password: PASSWORD })).status).toBe(401);
  // the crashed call spent its code; asking again mails a new one for the member it left
  expect((await post(second.base, 'discoverAuthMethod', { email })).status).toBe(200);
  const fresh = codeIn(await nthMail(sink, email, 2));
  // the crashed call's hold is refused before the code is looked at, so the new code outlives the wait
  const held = await post(second.base, 'completeRegistration', { email, code: fresh, password: PASSWORD });
  expect([held.status, held.body.code]).toEqual([409, 5043]);
  expect(held.body.details.retryAfterSeconds).toBeGreaterThan(0);
  const lock = new RedisRateLimits(api.rt.store.redis, api.rt.store.keys.base).keyOf(COMPLETE_LOCK, email);
  await waitFor(async () => (await api.rt.store.redis.exists(lock)) === 0, {
    timeoutMs: 60_000,
    intervalMs: 250,
    what: "the crashed call's hold to lapse",
  });
  const resumed = await post(second.base, 'completeRegistration', { email, code: fresh, password: PASSWORD });
  expect(resumed.status).toBe(200);
  expect(resumed.body).toMatchObject({
    memberId,
    member: { id: memberId, status: 'pending_id_photo' },
    registration: { resumed: true, memberIdRecorded: true },
  });
  expect(hr.memberIds.get(staffId)).toBe(memberId);
  const done = (await memberState(api, memberId)).state.private;
  expect(done.credentials.passwordHash).toEqual(expect.any(String));
  expect(done.hrRegistrationFinishedAt).toEqual(expect.any(String));
  // one member, and it signs in with its password
  let count = 0;
  for await (const ids of api.rt.store.instanceIds('Member')) count += ids.length;
  expect(count).toBe(1);
  expect((await post(second.base, 'login', { email, password: PASSWORD })).status).toBe(200);
  // both codes are spent
  for (const spent of [code, fresh])
    expect((await post(second.base, 'completeRegistration', { email, code: spent, password: PASSWORD })).status).toBe(
      401,
    );
}, 150_000);
