/**
 * Spec 4.4: the HR client (timeout, retry, env configuration) against a real
 * local HTTP server, and the registration flow through Member.
 */
import { HrClient, HrClientError, hrClientConfig, parseHrEmployee } from '../../classes/Member/hr-client';
import { waitFor, type TestRuntime, seedRoles } from '../support/harness';
import { FakeHr, hrEmployee } from './fake-hr';
import { createMember, memberState, seedProgram, startMemberRuntime, uniq } from './support';

const LOOKUP = '/employees/lookup';
const MEMBER_ID = '/employees/member-id';

// A second per attempt: a stall of the loaded test process while a reply is on its way must not time
// the attempt out (an extra retry would break the exact request counts). Slow answers are held until
// the client gives up, so they time out whatever the machine's load.
function client(hr: FakeHr, env: Record<string, string> = {}) {
  return new HrClient(
    hrClientConfig({
      HR_BASE_URL: hr.url,
      HR_API_KEY: 'hr-secret',
      HR_TIMEOUT_MS: '1000',
      HR_RETRIES: '2',
      HR_RETRY_BASE_MS: '10',
      ...env,
    }),
  );
}

async function failure(p: Promise<unknown>): Promise<HrClientError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HrClientError);
    return err as HrClientError;
  }
  throw new Error('expected a failure');
}

describe('HrClient', () => {
  let hr: FakeHr;
  beforeEach(async () => {
    hr = await new FakeHr().start();
  });
  afterEach(() => hr.stop());

  test('lookup: POST {email} with the API key; the employee parsed', async () => {
    hr.employees.set(
      'e1@example.com',
      hrEmployee('E1', {
        dependants: [{ id: 'd1', type: 'spouse', name: 'A', surname: 'B', email: '', birthdate: '1990-01-01' }],
      }),
    );
    const e = await client(hr).lookupEmployee('e1@example.com');
    expect(e).toMatchObject({
      employeeId: 'E1',
      isCabinCrew: false,
      country: 'US',
      dependants: [{ id: 'd1', email: null }],
    });
    expect(hr.requests[0]).toMatchObject({ path: LOOKUP, body: { email: 'e1@example.com' } });
    expect(hr.requests[0]!.headers['x-api-key']).toBe('hr-secret');
    expect(hr.requests[0]!.headers['content-type']).toBe('application/json');
  });

  test('lookup: 404 is "no such employee", not retried', async () => {
    expect(await client(hr).lookupEmployee('none@example.com')).toBeNull();
    expect(hr.count(LOOKUP)).toBe(1);
  });

  test('retries 5xx and 429 with backoff, then succeeds', async () => {
    hr.employees.set('e1@example.com', hrEmployee('E1'));
    hr.answer(LOOKUP, { status: 503 }, { status: 429 });
    expect(await client(hr).lookupEmployee('e1@example.com')).toMatchObject({ employeeId: 'E1' });
    expect(hr.count(LOOKUP)).toBe(3);
  });

  test('a slow HR system: each attempt times out, retried, then a timeout error', async () => {
    hr.answer(LOOKUP, { hold: true, status: 200 }, { hold: true, status: 200 }, { hold: true, status: 200 });
    const err = await failure(client(hr).lookupEmployee('e1@example.com'));
    expect(err).toMatchObject({ kind: 'timeout', attempts: 3 });
    expect(hr.count(LOOKUP)).toBe(3);
  });

  test('a slow first answer, a fast second one', async () => {
    hr.employees.set('e1@example.com', hrEmployee('E1'));
    hr.answer(LOOKUP, { hold: true, status: 200 });
    expect(await client(hr).lookupEmployee('e1@example.com')).toMatchObject({ employeeId: 'E1' });
    expect(hr.count(LOOKUP)).toBe(2);
  });

  test('no retry for other 4xx and unusable answers', async () => {
    hr.answer(LOOKUP, { status: 400, body: { error: 'bad' } });
    expect(await failure(client(hr).lookupEmployee('x@example.com'))).toMatchObject({
      kind: 'http',
      status: 400,
      attempts: 1,
    });
    hr.answer(LOOKUP, { status: 200, raw: 'not json' });
    expect(await failure(client(hr).lookupEmployee('x@example.com'))).toMatchObject({ kind: 'bad_response' });
    hr.answer(LOOKUP, { status: 200, body: { employeeId: 'E1' } });
    const missing = await failure(client(hr).lookupEmployee('x@example.com'));
    expect(missing.kind).toBe('bad_response');
    expect(missing.message).toContain('email must be a non-empty string');
    expect(hr.count(LOOKUP)).toBe(3);
  });

  test('unreachable: network errors are retried, then reported', async () => {
    const url = hr.url;
    await hr.stop();
    const err = await failure(
      new HrClient(hrClientConfig({ HR_BASE_URL: url, HR_RETRIES: '1', HR_RETRY_BASE_MS: '1' })).lookupEmployee(
        'x@example.com',
      ),
    );
    expect(err).toMatchObject({ kind: 'network', attempts: 2 });
  });

  test('member-id update: POST {employeeId, memberId}; {success:false} is a failure; 5xx retried', async () => {
    await client(hr).recordMemberId('E1', 'm-1');
    expect(hr.memberIds.get('E1')).toBe('m-1');
    hr.answer(MEMBER_ID, { status: 200, body: { success: false, reason: 'locked' } });
    expect(await failure(client(hr).recordMemberId('E1', 'm-2'))).toMatchObject({ kind: 'rejected' });
    hr.answer(MEMBER_ID, { status: 502 });
    await client(hr).recordMemberId('E1', 'm-3');
    expect(hr.memberIds.get('E1')).toBe('m-3');
  });

  test('configuration from the environment', () => {
    expect(hrClientConfig({})).toMatchObject({
      baseUrl: undefined,
      timeoutMs: 5000,
      retries: 2,
      lookupPath: LOOKUP,
      memberIdPath: MEMBER_ID,
    });
    expect(hrClientConfig({ HR_BASE_URL: 'http://hr.local/api/', HR_LOOKUP_PATH: '/lookup' })).toMatchObject({
      baseUrl: 'http://hr.local/api',
      lookupPath: '/lookup',
    });
    expect(() => hrClientConfig({ HR_TIMEOUT_MS: 'soon' })).toThrow('HR_TIMEOUT_MS');
    expect(() => hrClientConfig({ HR_RETRIES: '-1' })).toThrow('HR_RETRIES');
    expect(() => hrClientConfig({ HR_BASE_URL: 'ftp://x' })).toThrow('HR_BASE_URL');
  });

  test('not configured', async () => {
    expect(await failure(new HrClient(hrClientConfig({})).lookupEmployee('x@example.com'))).toMatchObject({
      kind: 'not_configured',
    });
  });

  test('parseHrEmployee accepts numeric ids and an {employee} wrapper', () => {
    const r = parseHrEmployee({ employee: hrEmployee('E1', { employeeId: 42, companyId: 7 }) });
    expect(r).toMatchObject({ ok: true, employee: { employeeId: '42', companyId: '7' } });
  });
});

describe('registerFromHr (Member)', () => {
  let hr: FakeHr;
  let t: TestRuntime;
  let pm: Record<string, string>;

  beforeAll(async () => {
    hr = await new FakeHr().start();
    t = await startMemberRuntime({
      HR_BASE_URL: hr.url,
      HR_API_KEY: 'hr-secret',
      HR_TIMEOUT_MS: '1000',
      HR_RETRIES: '1',
      HR_RETRY_BASE_MS: '10',
    });
    await seedProgram(t);
    await seedRoles(t, []); // the built-in super role
    pm = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
  });
  afterAll(async () => {
    await t.stop();
    await hr.stop();
  });

  const register = (body: unknown) => t.post(`/${t.projectId}/CALL/Member/registerFromHr`, body, pm);

  test('looks the employee up, creates the member and dependants, records the member id', async () => {
    const staffId = uniq('H');
    const depA = uniq('d');
    const depB = uniq('d');
    hr.employees.set(
      `${staffId.toLowerCase()}@example.com`,
      hrEmployee(staffId, {
        dependants: [
          { id: depA, type: 'Wife', name: 'Mary', surname: 'Hopper', email: null, birthdate: '1991-01-01' },
          {
            id: depB,
            type: 'nephew',
            name: 'Tom',
            surname: 'Hopper',
            email: 'tom@example.com',
            birthdate: '2010-01-01',
          },
        ],
      }),
    );
    const r = await register({ email: `${staffId.toLowerCase()}@example.com` });
    expect(r.status).toBe(201);
    const member = r.body.member;
    expect(member).toMatchObject({
      staffId,
      name: 'Grace',
      company: { id: 'c-1' },
      memberType: 'mt-perm',
      address: { country: 'US', address: '1 Navy Yard' },
      isCabinCrew: false,
      status: 'pending_invite',
    });
    expect(r.body.memberIdRecorded).toBe(true);
    expect(r.body.dependants).toEqual([
      { id: depA, created: true, warnings: [] },
      {
        id: depB,
        created: true,
        warnings: [
          "Dependant type 'nephew' matches no member sub type mapping; the dependant was saved without a member sub type",
        ],
      },
    ]);
    expect(hr.memberIds.get(staffId)).toBe(member.id);
    const primary = (await memberState(t, member.id)).state.private.profile;
    expect(primary.familyMembers.map((f: { id: string }) => f.id)).toEqual([depA, depB]);
    expect((await memberState(t, depA)).state.private.profile).toMatchObject({
      primaryMemberId: member.id,
      memberSubType: 'mst-spouse',
    });
    expect(await t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBe(member.id);
  });

  test('404 5025 when the HR system knows no such employee; 409 5026 when already a member', async () => {
    const none = await register({ email: 'nobody@example.com' });
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ code: 5025, classId: 'Member' });
    const staffId = uniq('H');
    hr.employees.set(`${staffId.toLowerCase()}@example.com`, hrEmployee(staffId));
    expect((await register({ email: `${staffId.toLowerCase()}@example.com` })).status).toBe(201);
    const again = await register({ email: `${staffId.toLowerCase()}@example.com` });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe(5026);
  });

  test('checkRegistrationFromHr: what registerFromHr would register, or its refusal, creating nothing and recording nothing in HR', async () => {
    const check = (body: unknown) => t.post(`/${t.projectId}/CALL/Member/checkRegistrationFromHr`, body, pm);
    const staffId = uniq('H');
    const email = `${staffId.toLowerCase()}@example.com`;
    hr.employees.set(
      email,
      hrEmployee(staffId, {
        dependants: [
          { id: uniq('d'), type: 'Wife', name: 'Mary', surname: 'Hopper', email: null, birthdate: '1991-01-01' },
        ],
      }),
    );
    const recorded = hr.count(MEMBER_ID);
    const ok = await check({ email });
    expect([ok.status, ok.body]).toEqual([
      200,
      { registrable: true, employeeId: staffId, memberType: 'mt-perm', company: { id: 'c-1' }, dependants: 1 },
    ]);
    expect(await t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBeUndefined();
    expect(hr.count(MEMBER_ID)).toBe(recorded);
    // the same refusals as registerFromHr
    expect((await check({ email: 'nobody@example.com' })).body).toMatchObject({ code: 5025 });
    expect((await check({ email: 'not-an-email' })).status).toBe(400);
    const terminated = uniq('H');
    hr.employees.set(`${terminated.toLowerCase()}@example.com`, hrEmployee(terminated, { status: 'Terminated' }));
    expect((await check({ email: `${terminated.toLowerCase()}@example.com` })).body).toMatchObject({ code: 5031 });
    expect((await register({ email })).status).toBe(201);
    expect((await check({ email })).body).toMatchObject({ code: 5026 });
  });

  test('422 5031 when the record cannot become a member (employment type, company, HR status)', async () => {
    for (const over of [{ employmentType: 'Contractor' }, { companyId: 'BG-NONE' }, { status: 'Terminated' }]) {
      const staffId = uniq('H');
      hr.employees.set(`${staffId.toLowerCase()}@example.com`, hrEmployee(staffId, over));
      const r = await register({ email: `${staffId.toLowerCase()}@example.com` });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe(5031);
      expect(await t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBeUndefined();
    }
  });

  test('502 5024 when the HR system keeps failing; nothing is created', async () => {
    hr.answer(LOOKUP, { status: 500 }, { status: 500 });
    const r = await register({ email: 'x@example.com' });
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({ code: 5024, details: { kind: 'http', status: 500, attempts: 2 } });
  });

  test('a failing member-id update is retried in the background until the HR system takes it', async () => {
    const staffId = uniq('H');
    hr.employees.set(`${staffId.toLowerCase()}@example.com`, hrEmployee(staffId));
    // the flow's two attempts and the first background attempt fail
    hr.answer(MEMBER_ID, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    const r = await register({ email: `${staffId.toLowerCase()}@example.com` });
    expect(r.status).toBe(201);
    expect(r.body.memberIdRecorded).toBe(false);
    expect(r.body.warnings[0]).toContain('retried in the background');
    await waitFor(() => hr.memberIds.get(staffId) === r.body.member.id, {
      what: 'background member-id update',
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await memberState(t, r.body.member.id)).state.private.hrMemberIdRecordedAt, {
      what: 'recorded flag',
    });
  });

  test('a member the registration did not create, or one whose member id was recorded, is refused as already registered, never resumed', async () => {
    const check = (body: unknown) => t.post(`/${t.projectId}/CALL/Member/checkRegistrationFromHr`, body, pm);
    // created in the back office with the staff id the HR system gives
    const backOffice = uniq('H');
    const byBackOffice = await createMember(t, { staffId: backOffice });
    hr.employees.set(`${backOffice.toLowerCase()}@example.com`, hrEmployee(backOffice));
    expect((await memberState(t, byBackOffice.id)).state.private.creationSource).toBeUndefined();
    const recorded = hr.count(MEMBER_ID);
    const refused = await register({ email: `${backOffice.toLowerCase()}@example.com` });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 5026, details: { memberId: byBackOffice.id } });
    expect((await check({ email: `${backOffice.toLowerCase()}@example.com` })).body).toMatchObject({ code: 5026 });
    expect(hr.count(MEMBER_ID)).toBe(recorded);

    // registered, its member id recorded inline: the member knows both
    const staffId = uniq('H');
    hr.employees.set(`${staffId.toLowerCase()}@example.com`, hrEmployee(staffId));
    const r = await register({ email: `${staffId.toLowerCase()}@example.com` });
    expect([r.status, r.body.memberIdRecorded, r.body.resumed]).toEqual([201, true, undefined]);
    const state = (await memberState(t, r.body.member.id)).state.private;
    expect(state).toMatchObject({
      creationSource: 'hr_registration',
      hrMemberIdRecordedAt: expect.any(String),
      hrRegistrationFinishedAt: expect.any(String),
    });
    const again = await register({ email: `${staffId.toLowerCase()}@example.com` });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 5026, details: { memberId: r.body.member.id } });
    expect((await check({ email: `${staffId.toLowerCase()}@example.com` })).body).toMatchObject({ code: 5026 });
  });

  test('a registration whose member id is still queued for HR is finished, not resumed: a repeat is refused, the queued retry records the id', async () => {
    const staffId = uniq('H');
    const dep = uniq('d');
    const email = `${staffId.toLowerCase()}@example.com`;
    hr.employees.set(
      email,
      hrEmployee(staffId, {
        dependants: [{ id: dep, type: 'Wife', name: 'Mary', surname: 'Hopper', email: null, birthdate: '1991-01-01' }],
      }),
    );
    // the HR system refuses member-id updates until the script is cleared: inline, and in the background
    hr.answer(MEMBER_ID, ...Array.from({ length: 100 }, () => ({ status: 503 })));
    try {
      const first = await register({ email });
      expect([first.status, first.body.memberIdRecorded]).toEqual([201, false]);
      const memberId = first.body.member.id;
      // the finishing step ran (dependants linked, the member id left to the queued retry): the registration is finished
      const state = (await memberState(t, memberId)).state.private;
      expect(state).toMatchObject({ creationSource: 'hr_registration', hrRegistrationFinishedAt: expect.any(String) });
      expect(state.hrMemberIdRecordedAt).toBeUndefined();
      expect(state.profile.familyMembers.map((f: { id: string }) => f.id)).toEqual([dep]);
      const check = await t.post(`/${t.projectId}/CALL/Member/checkRegistrationFromHr`, { email }, pm);
      expect([check.status, check.body]).toMatchObject([409, { code: 5026, details: { memberId } }]);
      const again = await register({ email });
      expect([again.status, again.body]).toMatchObject([409, { code: 5026, details: { memberId } }]);
      hr.script.delete(MEMBER_ID);
      await waitFor(async () => (await memberState(t, memberId)).state.private.hrMemberIdRecordedAt, {
        what: 'the background member-id update',
        timeoutMs: 60_000,
      });
      expect(hr.memberIds.get(staffId)).toBe(memberId);
      expect(
        (await memberState(t, memberId)).state.private.profile.familyMembers.map((f: { id: string }) => f.id),
      ).toEqual([dep]);
      expect((await register({ email })).body).toMatchObject({ code: 5026, details: { memberId } });
    } finally {
      hr.script.delete(MEMBER_ID);
    }
  }, 90_000);

  test('a member program management creates with source hr_registration in its body is not one the registration created: never resumed', async () => {
    const staffId = uniq('H');
    const email = `${staffId.toLowerCase()}@example.com`;
    const created = await t.post(
      `/${t.projectId}/CALL/Member/createMember`,
      {
        name: 'Ada',
        surname: 'Lovelace',
        staffId,
        email,
        phone: '+100000',
        company: { id: 'c-1' },
        grade: 'G1',
        memberType: 'mt-perm',
        loginMethod: 'email_password',
        source: 'hr_registration',
      },
      pm,
    );
    expect(created.status).toBe(200);
    const memberId = created.body.member.id;
    expect((await memberState(t, memberId)).state.private.creationSource).toBeUndefined();
    expect((await t.rt.call('Member', 'hrRegistrationOf', memberId, {})).body).toMatchObject({
      creationSource: null,
      hrRegistrationFinishedAt: null,
      resumable: false,
    });
    hr.employees.set(email, hrEmployee(staffId));
    const recorded = hr.count(MEMBER_ID);
    const r = await register({ email });
    expect([r.status, r.body]).toMatchObject([409, { code: 5026, details: { memberId } }]);
    expect(hr.count(MEMBER_ID)).toBe(recorded);
  });

  test('input validation: an email is required', async () => {
    const r = await register({});
    expect(r.status).toBe(400);
  });
});
