/**
 * registerFromHr stopped half-way by a crash and run again (spec 2.9, issue
 * "register-from-hr ... started again finishes the rest with no duplicates"):
 * the service runs as its own process (runtime/main.ts), the local HR server
 * (fake-hr.ts, real HTTP) holds the member-id update unanswered, and the
 * process is SIGKILLed while it waits. The member exists then, created by the
 * registration, with its member id neither in HR nor recorded on it. A second
 * process answers the same registration 200 `resumed`: the dependants listed
 * once each, the member id in HR; a third call is refused as already
 * registered. Real Redis, real processes.
 */
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';
import { FakeHr, hrEmployee } from './fake-hr';
import { MEMBER_CLASS_DIRS, memberState, seedProgram, uniq } from './support';

const MEMBER_ID = '/employees/member-id';

let hr: FakeHr;
let api: TestRuntime | undefined;
const running: RuntimeProcess[] = [];

afterAll(async () => {
  await Promise.all(running.splice(0).map((r) => r.kill()));
  await api?.stop();
  await hr?.stop();
});

/** POST as a back-office user to a process of the service */
async function post(base: string, pathname: string, body: unknown, token: string): Promise<{ status: number; body: any }> {
  const res = await fetch(base + pathname, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

test('a registration killed while the HR system holds the member-id update: run again, it finishes the rest once', async () => {
  hr = await new FakeHr().start();
  const projectId = uniqueProjectId('hrr');
  // a long HR time-out: the held update is still waited for when the process is killed
  const env = { CLASS_DIRS: MEMBER_CLASS_DIRS, SCHEMA_DIRS: 'schemas', HR_BASE_URL: hr.url, HR_API_KEY: 'hr-secret', HR_TIMEOUT_MS: '20000', HR_RETRIES: '1', HR_RETRY_BASE_MS: '10' };
  // this process seeds the program and reads the stored state; the registrations go to the spawned ones
  api = await startTestRuntime({ projectId, env });
  await seedProgram(api);
  await seedRoles(api, []); // the built-in super role
  const token = api.token('program_management_user', 'pm1', ['super']);
  const path = (method: string) => `/${projectId}/CALL/Member/${method}`;

  const staffId = uniq('K');
  const email = `${staffId.toLowerCase()}@example.com`;
  const depA = uniq('d');
  const depB = uniq('d');
  hr.employees.set(
    email,
    hrEmployee(staffId, {
      dependants: [
        { id: depA, type: 'Wife', name: 'Mary', surname: 'Hopper', email: null, birthdate: '1991-01-01' },
        { id: depB, type: 'Son', name: 'Tom', surname: 'Hopper', email: null, birthdate: '2010-01-01' },
      ],
    }),
  );

  const first = await spawnRuntime(projectId, env);
  running.push(first);
  hr.answer(MEMBER_ID, { hold: true });
  const answer = post(first.base, path('registerFromHr'), { email }, token).then(
    (r) => ({ answered: r }),
    (err: unknown) => ({ failed: err }),
  );
  await waitFor(() => hr.count(MEMBER_ID) === 1, { timeoutMs: 30_000, what: 'the member-id update reaching the HR system' });
  await first.kill();
  // the caller got no answer: its connection went with the process
  expect(await answer).toHaveProperty('failed');

  // what the crash left: the member, created by the registration, its member id neither in HR nor on it
  const memberId = (await api.rt.store.resolveLookup('Member', 'staffId', staffId))!;
  expect(memberId).toBeDefined();
  const left = (await memberState(api, memberId)).state.private;
  expect(left.creationSource).toBe('hr_registration');
  expect(left.hrMemberIdRecordedAt).toBeUndefined();
  // the dependants were created (each its own call), but their links are committed with the registration's end, which never came
  expect(left.profile.familyMembers).toEqual([]);
  for (const dep of [depA, depB]) expect((await memberState(api, dep)).state.private.profile.primaryMemberId).toBe(memberId);
  expect(hr.memberIds.has(staffId)).toBe(false);

  const second = await spawnRuntime(projectId, env);
  running.push(second);
  // the dry run says what the registration will do: finish this member
  const check = await post(second.base, path('checkRegistrationFromHr'), { email }, token);
  expect([check.status, check.body]).toEqual([200, { registrable: true, employeeId: staffId, memberType: 'mt-perm', company: { id: 'c-1' }, dependants: 2, resumed: true, memberId }]);

  const resumed = await post(second.base, path('registerFromHr'), { email }, token);
  expect(resumed.status).toBe(200);
  expect(resumed.body).toMatchObject({ resumed: true, memberIdRecorded: true, warnings: [], member: { id: memberId, staffId } });
  // created before the crash, found again by the upsert
  expect(resumed.body.dependants).toEqual([
    { id: depA, created: false, warnings: [] },
    { id: depB, created: false, warnings: [] },
  ]);
  expect(hr.memberIds.get(staffId)).toBe(memberId);
  const done = (await memberState(api, memberId)).state.private;
  expect(done.profile.familyMembers.map((f: { id: string }) => f.id)).toEqual([depA, depB]);
  expect(done.hrMemberIdRecordedAt).toEqual(expect.any(String));
  for (const dep of [depA, depB]) expect((await memberState(api, dep)).state.private.profile.primaryMemberId).toBe(memberId);
  // one member for the staff id, one for each dependant: nothing was created twice
  let members = 0;
  for await (const ids of api.rt.store.instanceIds('Member')) members += ids.length;
  expect(members).toBe(3);

  const third = await post(second.base, path('registerFromHr'), { email }, token);
  expect(third.status).toBe(409);
  expect(third.body).toMatchObject({ code: 5026, details: { memberId } });
  const refusedCheck = await post(second.base, path('checkRegistrationFromHr'), { email }, token);
  expect(refusedCheck.body).toMatchObject({ code: 5026 });
}, 120_000);
