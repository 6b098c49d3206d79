/**
 * registerFromHr stopped half-way by a crash and run again finishes the
 * rest with no duplicates (spec 2.9's HR-driven registration):
 * the service runs as its own process (runtime/main.ts), the local HR server
 * (fake-hr.ts, real HTTP) holds the member-id update unanswered, and the
 * process is SIGKILLed while it waits. The member exists then, created by the
 * registration, with its member id neither in HR nor recorded on it. A second
 * process answers the same registration 200 `resumed`: the dependants listed
 * once each, the member id in HR; a third call is refused as already
 * registered. Real Redis, real processes.
 *
 * The crashed call still holds its employee's registration lock (ctx.limits,
 * REGISTER_FROM_HR_TIMEOUT_SECONDS): until it lapses a registration is
 * refused 409 5043 in progress, so the second process is polled (waitFor)
 * until it answers something else. While the registration is half-done, the
 * resume is refused as a new registration would be when the HR record no
 * longer admits it (terminated, moved to another company: 422 5031) or the
 * member is inactive (409 5026), and a company user of another company is
 * refused 403; none of them writes to HR.
 *
 * Two calls at once for one employee (the same runtime, the HR system
 * holding the first one's member-id update): the second is refused 409 5043,
 * the first completes 201, each dependant listed once.
 */
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { REGISTER_FROM_HR_TIMEOUT_SECONDS } from '../../classes/Member/use-cases/registration';
import { seedRoles, startTestRuntime, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';
import { FakeHr, hrEmployee, killWhileMemberIdHeld } from './fake-hr';
import { MEMBER_CLASS_DIRS, memberState, seedProgram, uniq } from './support';

const MEMBER_ID = '/employees/member-id';

let hr: FakeHr;
let api: TestRuntime;
let projectId: string;
let env: Record<string, string>;
let token: string;
const running: RuntimeProcess[] = [];
const path = (method: string) => `/${projectId}/CALL/Member/${method}`;

beforeAll(async () => {
  hr = await new FakeHr().start();
  projectId = uniqueProjectId('hrr');
  // a long HR time-out: the held update is still waited for when the process is killed
  env = {
    CLASS_DIRS: MEMBER_CLASS_DIRS,
    SCHEMA_DIRS: 'schemas',
    HR_BASE_URL: hr.url,
    HR_API_KEY: 'hr-secret',
    HR_TIMEOUT_MS: '20000',
    HR_RETRIES: '1',
    HR_RETRY_BASE_MS: '10',
  };
  // this process seeds the program and reads the stored state; the crashed and resumed registrations go to the spawned ones
  api = await startTestRuntime({ projectId, env });
  await seedProgram(api);
  await seedRoles(api, []); // the built-in super role
  token = api.token('program_management_user', 'pm1', ['super']);
});

afterAll(async () => {
  hr?.release();
  await Promise.all(running.splice(0).map((r) => r.kill()));
  await api?.stop();
  await hr?.stop();
});

/** POST as a back-office user to a process of the service */
async function post(
  base: string,
  pathname: string,
  body: unknown,
  token: string,
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

test('a registration killed while the HR system holds the member-id update: run again, it finishes the rest once', async () => {
  const staffId = uniq('K');
  const email = `${staffId.toLowerCase()}@example.com`;
  const depA = uniq('d');
  const depB = uniq('d');
  const record = hrEmployee(staffId, {
    dependants: [
      { id: depA, type: 'Wife', name: 'Mary', surname: 'Hopper', email: null, birthdate: '1991-01-01' },
      { id: depB, type: 'Son', name: 'Tom', surname: 'Hopper', email: null, birthdate: '2010-01-01' },
    ],
  });
  hr.employees.set(email, record);

  const first = await spawnRuntime(projectId, env);
  running.push(first);
  // the caller got no answer: its connection went with the process
  expect(
    await killWhileMemberIdHeld(hr, first, () => post(first.base, path('registerFromHr'), { email }, token)),
  ).toHaveProperty('failed');

  // what the crash left: the member, created by the registration, its member id neither in HR nor on it
  const memberId = (await api.rt.store.resolveLookup('Member', 'staffId', staffId))!;
  expect(memberId).toBeDefined();
  const left = (await memberState(api, memberId)).state.private;
  expect(left.creationSource).toBe('hr_registration');
  expect(left.hrMemberIdRecordedAt).toBeUndefined();
  expect(left.hrRegistrationFinishedAt).toBeUndefined();
  // the dependants were created (each its own call), but their links are committed with the registration's end, which never came
  expect(left.profile.familyMembers).toEqual([]);
  for (const dep of [depA, depB])
    expect((await memberState(api, dep)).state.private.profile.primaryMemberId).toBe(memberId);
  expect(hr.memberIds.has(staffId)).toBe(false);

  const second = await spawnRuntime(projectId, env);
  running.push(second);
  const recorded = hr.count(MEMBER_ID);
  // a company user of another company: refused by scope (before the lock), nothing read of the member, nothing to HR
  const otherCompany = api.rt.tokens.sign({
    sub: 'oth',
    identity: 'program_management_user',
    roles: ['super'],
    tenant: 'c-2',
  });
  const scoped = await post(second.base, path('registerFromHr'), { email }, otherCompany);
  expect([scoped.status, [1023, 6018].includes(scoped.body.code)]).toEqual([403, true]);
  // the dry run says what the registration will do: finish this member
  const check = await post(second.base, path('checkRegistrationFromHr'), { email }, token);
  expect([check.status, check.body]).toEqual([
    200,
    {
      registrable: true,
      employeeId: staffId,
      memberType: 'mt-perm',
      company: { id: 'c-1' },
      dependants: 2,
      resumed: true,
      memberId,
    },
  ]);

  // HR has terminated the employee meanwhile: the resume is refused as a new registration would be, dry run too.
  // The crashed call's lock is held until its window lapses: polled until the answer is no longer "in progress"
  hr.employees.set(email, { ...record, status: 'Terminated' });
  const terminated = (await waitFor(
    async () => {
      const r = await post(second.base, path('registerFromHr'), { email }, token);
      if (r.status === 409 && r.body.code === 5043) {
        expect(r.body.details).toMatchObject({ employeeId: staffId, retryAfterSeconds: expect.any(Number) });
        expect(r.body.details.retryAfterSeconds).toBeLessThanOrEqual(REGISTER_FROM_HR_TIMEOUT_SECONDS);
        return null;
      }
      return r;
    },
    { timeoutMs: 60_000, intervalMs: 500, what: "the crashed call's registration lock to lapse" },
  ))!;
  expect([terminated.status, terminated.body.code, terminated.body.details.field]).toEqual([422, 5031, 'status']);
  expect((await post(second.base, path('checkRegistrationFromHr'), { email }, token)).body).toMatchObject({
    code: 5031,
    details: { field: 'status' },
  });
  // moved to another company (c-2, active): not this member's company, refused on companyId
  hr.employees.set(email, { ...record, companyId: 'BG2' });
  const moved = await post(second.base, path('registerFromHr'), { email }, token);
  expect([moved.status, moved.body.code, moved.body.details]).toEqual([
    422,
    5031,
    expect.objectContaining({ field: 'companyId', memberId }),
  ]);
  expect((await post(second.base, path('checkRegistrationFromHr'), { email }, token)).body).toMatchObject({
    code: 5031,
    details: { field: 'companyId' },
  });
  // the member deactivated meanwhile (here by the system, applied at once): not finished either, 409 naming it and its status
  hr.employees.set(email, record);
  const setStatus = async (status: string) => {
    await api.rt.call('Member', 'updateMemberStatus', memberId, { status, reason: 'crash test' });
    expect((await memberState(api, memberId)).state.private.profile.status).toBe(status);
  };
  await setStatus('inactive');
  const inactive = await post(second.base, path('registerFromHr'), { email }, token);
  expect([inactive.status, inactive.body.code, inactive.body.details]).toEqual([
    409,
    5026,
    { memberId, status: 'inactive' },
  ]);
  expect((await post(second.base, path('checkRegistrationFromHr'), { email }, token)).body).toMatchObject({
    code: 5026,
    details: { memberId, status: 'inactive' },
  });
  await setStatus('active');
  // nothing reached the HR system, nothing was linked
  expect(hr.count(MEMBER_ID)).toBe(recorded);
  expect((await memberState(api, memberId)).state.private.profile.familyMembers).toEqual([]);

  hr.employees.set(email, record);
  const resumed = await post(second.base, path('registerFromHr'), { email }, token);
  expect(resumed.status).toBe(200);
  expect(resumed.body).toMatchObject({
    resumed: true,
    memberIdRecorded: true,
    warnings: [],
    member: { id: memberId, staffId },
  });
  // created before the crash, found again by the upsert
  expect(resumed.body.dependants).toEqual([
    { id: depA, created: false, warnings: [] },
    { id: depB, created: false, warnings: [] },
  ]);
  expect(hr.memberIds.get(staffId)).toBe(memberId);
  const done = (await memberState(api, memberId)).state.private;
  expect(done.profile.familyMembers.map((f: { id: string }) => f.id)).toEqual([depA, depB]);
  expect(done.hrMemberIdRecordedAt).toEqual(expect.any(String));
  expect(done.hrRegistrationFinishedAt).toEqual(expect.any(String));
  for (const dep of [depA, depB])
    expect((await memberState(api, dep)).state.private.profile.primaryMemberId).toBe(memberId);
  // one member for the staff id, one for each dependant: nothing was created twice
  let members = 0;
  for await (const ids of api.rt.store.instanceIds('Member')) members += ids.length;
  expect(members).toBe(3);

  const third = await post(second.base, path('registerFromHr'), { email }, token);
  expect(third.status).toBe(409);
  expect(third.body).toMatchObject({ code: 5026, details: { memberId } });
  const refusedCheck = await post(second.base, path('checkRegistrationFromHr'), { email }, token);
  expect(refusedCheck.body).toMatchObject({ code: 5026 });
}, 180_000);

test('two registrations of one employee at once: the second is refused as in progress, the first completes once', async () => {
  const staffId = uniq('K');
  const email = `${staffId.toLowerCase()}@example.com`;
  const dep = uniq('d');
  hr.employees.set(
    email,
    hrEmployee(staffId, {
      dependants: [{ id: dep, type: 'Wife', name: 'Mary', surname: 'Hopper', email: null, birthdate: '1991-01-01' }],
    }),
  );
  const before = hr.count(MEMBER_ID);
  const auth = { authorization: `Bearer ${token}` };
  hr.answer(MEMBER_ID, { hold: true });
  // the first registration waits on the HR system's member-id update, which is held
  const first = api.post(path('registerFromHr'), { email }, auth);
  await waitFor(() => hr.count(MEMBER_ID) === before + 1, {
    timeoutMs: 30_000,
    what: "the first registration's member-id update reaching the HR system",
  });
  const second = await api.post(path('registerFromHr'), { email }, auth);
  expect([second.status, second.body.code]).toEqual([409, 5043]);
  expect(second.body.message).toContain('in progress');
  expect(second.body.details).toEqual({ employeeId: staffId, retryAfterSeconds: expect.any(Number) });
  hr.release();
  const done = await first;
  expect(done.status).toBe(201);
  expect(done.body).toMatchObject({ memberIdRecorded: true, dependants: [{ id: dep, created: true, warnings: [] }] });
  const memberId = done.body.member.id;
  expect(hr.count(MEMBER_ID)).toBe(before + 1);
  expect(hr.memberIds.get(staffId)).toBe(memberId);
  expect(
    (await memberState(api, memberId)).state.private.profile.familyMembers.map((f: { id: string }) => f.id),
  ).toEqual([dep]);
  // ended: the lock is released, and the next call is the usual refusal
  const again = await api.post(path('registerFromHr'), { email }, auth);
  expect([again.status, again.body.code]).toEqual([409, 5026]);
}, 90_000);
