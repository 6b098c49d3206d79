/**
 * The HR ledger: every push of the HR endpoints (spec 4.1-4.3) leaves one
 * entry in the `hr` call journal whatever it answered, and listHrLedger
 * lists them for internal back-office users, by staff id, status, code and
 * time. The entries keep identifiers, HR status values, field names and
 * warnings, never a name, email, phone, birthdate or photo.
 */
import { Redis } from 'ioredis';
import { describeDependantPush, describeEmployeePush, describePhotoPush } from '../../classes/Member/hr-ledger';
import { waitFor, type TestRuntime } from '../support/harness';
import { redisUrl } from '../support/redis';
import {
  API_KEY,
  createMember,
  dependantRecord,
  employeeRecord,
  IMAGES,
  seedProgram,
  startMemberRuntime,
  uniq,
} from './support';

describe('what a push leaves in the ledger (pure)', () => {
  test('employee: ids, BG_ID, HR status, and what the service wrote', () => {
    const body = employeeRecord('E1', { oldStaffId: 'E0', status: 'terminated' });
    const answer = {
      success: true,
      message: 'ok',
      body: { memberId: 'm-1', staffId: 'E1', updatedFields: ['status', 'statusReason'], staffIdMigrated: true },
    };
    expect(describeEmployeePush({ body, answer, status: 200 })).toEqual({
      endpoint: 'employee',
      employeeId: 'E1',
      oldStaffId: 'E0',
      bgId: 'BG1',
      hrStatus: 'terminated',
      memberId: 'm-1',
      updatedFields: ['status', 'statusReason'],
      staffIdMigrated: true,
    });
    // a refused push: what the body names, nothing from an error envelope
    const refused = describeEmployeePush({
      body: { employeeId: 'E1' },
      answer: { success: false, error: { code: 11016, message: 'x' } },
      status: 404,
    });
    expect(refused).toMatchObject({
      endpoint: 'employee',
      employeeId: 'E1',
      memberId: undefined,
      updatedFields: undefined,
    });
    expect(describeEmployeePush({ body: undefined, answer: undefined, status: 400 })).toMatchObject({
      endpoint: 'employee',
      employeeId: undefined,
    });
  });

  test('dependant: its id, the primary staff id, relationship and warnings; photo: extension and size, never the photo', () => {
    const d = describeDependantPush({
      body: dependantRecord('d-1', 'E1', { type: 'cousin' }),
      answer: {
        success: true,
        message: 'added',
        body: {
          dependantId: 'd-1',
          primaryMemberId: 'm-1',
          updatedFields: [],
          warnings: ['type cousin is not mapped'],
        },
      },
      status: 201,
    });
    expect(d).toEqual({
      endpoint: 'dependant',
      employeeId: 'E1',
      dependantId: 'd-1',
      hrStatus: 'Active',
      relationship: 'cousin',
      primaryMemberId: 'm-1',
      updatedFields: [],
      warnings: ['type cousin is not mapped'],
    });
    expect(
      describePhotoPush({
        body: { photo: 'aGVsbG8=', fileExtension: 'png' },
        answer: { success: true },
        status: 200,
        instanceId: 'staffId!E1',
      }),
    ).toEqual({
      endpoint: 'photo',
      employeeId: 'E1',
      memberId: undefined,
      fileExtension: 'png',
      photoBytes: 5,
    });
    expect(describePhotoPush({ body: {}, answer: undefined, status: 500, instanceId: 'm-9' })).toMatchObject({
      employeeId: undefined,
      memberId: 'm-9',
    });
  });
});

describe('listHrLedger over HTTP', () => {
  let t: TestRuntime;
  let redis: Redis;
  const pm = () => ({
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'pm1', identity: 'program_management_user', roles: ['super'] })}`,
  });
  const list = (query: Record<string, unknown>, headers = pm()) =>
    t.post(`/${t.projectId}/CALL/Member/listHrLedger`, query, headers);

  beforeAll(async () => {
    // the replay window as it is out of the box (the suite turns it off elsewhere)
    t = await startMemberRuntime({ HR_REPLAY_WINDOW_SECONDS: '' });
    await seedProgram(t);
    redis = new Redis(redisUrl());
  });
  afterAll(async () => {
    redis.disconnect();
    await t.stop();
  });

  test("an employee's pushes, dependants' and photos' included, whatever they answered, newest first", async () => {
    const staffId = uniq('S');
    await createMember(t, { staffId });
    expect((await t.post('/members/hr/employee', employeeRecord(staffId, { grade: 'G7' }), API_KEY)).status).toBe(200);
    expect((await t.post('/members/hr/employee', employeeRecord(staffId, { grade: 'G7' }), API_KEY)).status).toBe(200);
    expect(
      (await t.post('/members/hr/employee', employeeRecord(staffId, { email: 'not-an-email' }), API_KEY)).status,
    ).toBe(400);
    expect((await t.post('/members/hr/employee', employeeRecord(staffId), { 'x-api-key': 'wrong' })).status).toBe(401);
    expect((await t.post('/members/hr/dependant', dependantRecord(uniq('D'), staffId), API_KEY)).status).toBe(201);
    const photo = await t.post(
      `/${t.projectId}/CALL/Member/updateEmployeePhoto/staffId!${staffId}`,
      { photo: IMAGES.png, fileExtension: 'png' },
      API_KEY,
    );
    expect(photo.status).toBe(200);
    const unknown = uniq('S');
    expect((await t.post('/members/hr/employee', employeeRecord(unknown), API_KEY)).status).toBe(404);

    let entries: any[] = [];
    await waitFor(async () => (entries = (await list({ employeeId: staffId })).body.entries).length >= 5, {
      timeoutMs: 10_000,
      what: 'five ledger entries',
    });
    expect(entries.map((e) => [e.data.endpoint, e.status, e.code ?? null])).toEqual([
      ['photo', 200, null],
      ['dependant', 201, null],
      ['employee', 400, 10001],
      ['employee', 200, null],
      ['employee', 200, null],
    ]);
    // the first push wrote the grade; the same record again, within the replay window, got the same answer
    expect(entries[4].data.updatedFields).toContain('grade');
    expect(entries[3].data.updatedFields).toEqual(entries[4].data.updatedFields);
    expect(entries[3].bodySha256).toBe(entries[4].bodySha256);
    expect(entries[4]).toMatchObject({
      method: 'hrUpdateEmployee',
      caller: { type: 'integration_user' },
      data: { employeeId: staffId, bgId: 'BG1', hrStatus: 'active' },
    });

    const notFound = await list({ employeeId: unknown });
    expect(notFound.status).toBe(200);
    await waitFor(async () => (await list({ employeeId: unknown })).body.entries.length === 1, { timeoutMs: 10_000 });
    expect((await list({ employeeId: unknown })).body.entries[0]).toMatchObject({
      status: 404,
      code: 10073,
      data: { endpoint: 'employee' },
    });
    expect((await list({ code: 10073, limit: 100 })).body.entries.some((e: any) => e.data.employeeId === unknown)).toBe(
      true,
    );

    // counted by endpoint, status and code as well
    const metrics = await (await fetch(`${t.base}/metrics`)).text();
    expect(metrics).toMatch(
      /runtime_journal_entries_total\{journal="hr",class="Member",method="hrUpdateEmployee",status="404",code="10073"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /runtime_journal_entries_total\{journal="hr",class="Member",method="hrUpsertDependant",status="201",code=""\} [1-9]/,
    );
    expect(metrics).not.toMatch(/runtime_journal_entries_total\{[^}]*status="401"/);

    // nothing personal reaches Redis: names, emails, phones, birthdates, the photo
    const raw = JSON.stringify(await redis.xrange(`rt:{${t.projectId}:journal:hr}`, '-', '+'));
    expect(raw).toContain(staffId);
    for (const personal of [
      'Lovelace',
      `${staffId.toLowerCase()}@example.com`,
      '+100000',
      '1990-05-01',
      IMAGES.png.slice(0, 40),
    ])
      expect(raw).not.toContain(personal);
  });

  test('a late retry of a push (same key, same record, no Idempotency-Key) gets its first answer and does not undo a newer push', async () => {
    const staffId = uniq('S');
    const m = await createMember(t, { staffId });
    const first = await t.post(
      '/members/hr/employee',
      employeeRecord(staffId, { grade: 'G1', status: 'active' }),
      API_KEY,
    );
    expect(first.status).toBe(200);
    const newer = await t.post(
      '/members/hr/employee',
      employeeRecord(staffId, { grade: 'G2', status: 'active' }),
      API_KEY,
    );
    expect(newer.body.body.updatedFields).toEqual(['grade']);
    const retry = await t.post(
      '/members/hr/employee',
      employeeRecord(staffId, { status: 'active', grade: 'G1' }),
      API_KEY,
    );
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const profile = await t.get(`/${t.projectId}/CALL/Member/getMemberEmployment/${m.id}`, pm());
    expect(profile.body.grade ?? profile.body.employment?.grade).toBe('G2');
  });

  test('pages with a cursor; a bad query is a 400 naming the field; company users and members are refused', async () => {
    const first = await list({ limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.entries).toHaveLength(2);
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await list({ limit: 2, cursor: first.body.nextCursor });
    expect(
      second.body.entries[0].id < first.body.entries[1].id || second.body.entries[0].at <= first.body.entries[1].at,
    ).toBe(true);
    expect(second.body.entries.map((e: any) => e.id)).not.toContain(first.body.entries[1].id);

    const bad = await list({ limit: 500 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('limit');

    const company = {
      authorization: `Bearer ${t.rt.tokens.sign({ sub: 'cu1', identity: 'program_management_user', roles: ['super'], userType: 'company', tenant: 'c-1' } as never)}`,
    };
    expect((await list({}, company)).status).toBe(403);
    const member = { authorization: `Bearer ${t.rt.tokens.sign({ sub: 'm1', identity: 'enduser', roles: [] })}` };
    expect((await list({}, member)).status).toBe(403);
  });
});
