/**
 * Spec 4.2 + 7.2: POST /members/hr/employee, the external contract (exact
 * bodies, codes and updatedFields).
 */
import { TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import {
  API_KEY,
  classDirsWithout,
  createMember,
  employeeRecord,
  memberLogs,
  memberState,
  PROGRAM_SETTINGS,
  seed,
  seedProgram,
  startMemberRuntime,
  uniq,
} from './support';

let t: TestRuntime;
beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
});
afterAll(() => t.stop());

const push = (body: unknown, headers: Record<string, string> = API_KEY) =>
  t.post('/members/hr/employee', body, headers);

/** a member whose record is already in sync with employeeRecord(staffId) */
async function syncedMember(overrides: Record<string, unknown> = {}) {
  const staffId = uniq('S');
  const m = await createMember(t, { staffId });
  const first = await push(employeeRecord(staffId, overrides));
  expect(first.status).toBe(200);
  return { id: m.id as string, staffId };
}

describe('authentication (401 10072)', () => {
  const body401 = { success: false, error: { code: 10072, message: 'Invalid or missing API key' } };

  test('missing key', async () => {
    const r = await push(employeeRecord('S-X'), {});
    expect(r.status).toBe(401);
    expect(r.body).toEqual(body401);
  });

  test('invalid key, checked before validation', async () => {
    const r = await push({}, { 'x-api-key': 'wrong-key' });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(body401);
  });

  test('a bearer token instead of a key', async () => {
    const r = await push(employeeRecord('S-X'), {
      authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}`,
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(body401);
  });

  test('header name in any case; also reachable through CALL with the same contract', async () => {
    const { staffId } = await syncedMember();
    const upper = await push(employeeRecord(staffId), { 'X-API-KEY': TEST_API_KEY });
    expect(upper.status).toBe(200);
    const viaCall = await t.post(
      `/${t.projectId}/CALL/Member/hrUpdateEmployee`,
      employeeRecord(staffId, { grade: 'G9' }),
      API_KEY,
    );
    expect(viaCall.status).toBe(200);
    expect(viaCall.body.body.updatedFields).toEqual(['grade']);
    const noKey = await t.post(`/${t.projectId}/CALL/Member/hrUpdateEmployee`, employeeRecord(staffId), {});
    expect(noKey.status).toBe(401);
    expect(noKey.body).toEqual(body401);
  });
});

describe('validation (400 10001)', () => {
  const REQUIRED = [
    'employeeId',
    'name',
    'surname',
    'email',
    'phone',
    'grade',
    'employmentType',
    'status',
    'address',
    'birthdate',
    'gender',
    'maritalStatus',
    'coreGrade',
    'dependantsExists',
    'companyId',
  ];

  async function expect400(body: Record<string, unknown>, errors: Record<string, string[]>) {
    const r = await push(body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      success: false,
      error: { code: 10001, message: 'Validation failed' },
      details: { errors },
    });
  }

  test.each(REQUIRED)('missing %s', async (field) => {
    const body = employeeRecord('S-V');
    delete body[field];
    await expect400(body, { [field]: ['is required'] });
  });

  const STRINGS = REQUIRED.filter((f) => !['address', 'status', 'dependantsExists', 'email'].includes(f));
  test.each(STRINGS)('empty and blank %s', async (field) => {
    await expect400(employeeRecord('S-V', { [field]: '' }), { [field]: ['must not be empty'] });
    const blank =
      field === 'birthdate'
        ? 'must be a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDThh:mm:ss[.fff][Z])'
        : 'must not be empty';
    await expect400(employeeRecord('S-V', { [field]: '   ' }), { [field]: [blank] });
  });

  test.each(STRINGS)('null %s (required fields are never null)', async (field) => {
    await expect400(employeeRecord('S-V', { [field]: null }), { [field]: ['must be a string'] });
  });

  test('email: empty and malformed', async () => {
    await expect400(employeeRecord('S-V', { email: '' }), { email: ['must not be empty'] });
    await expect400(employeeRecord('S-V', { email: 'not-an-email' }), { email: ['must be a valid email address'] });
  });

  test('status, dependantsExists: only the listed values', async () => {
    await expect400(employeeRecord('S-V', { status: 'Active' }), {
      status: ['must be one of: active, inactive, terminated'],
    });
    await expect400(employeeRecord('S-V', { dependantsExists: 'yes' }), { dependantsExists: ['must be one of: Y, N'] });
  });

  test('address: an object with country and address', async () => {
    await expect400(employeeRecord('S-V', { address: { country: 'AE' } }), { 'address.address': ['is required'] });
    await expect400(employeeRecord('S-V', { address: { country: '', address: 'x' } }), {
      'address.country': ['must not be empty'],
    });
    await expect400(employeeRecord('S-V', { address: 'AE' }), { address: ['must be an object'] });
  });

  test('nullable fields: null or omitted pass, empty strings fail', async () => {
    for (const f of ['middleName', 'oldStaffId', 'lastDayOfService', 'leavingReason']) {
      await expect400(employeeRecord('S-V', { [f]: '' }), { [f]: ['must not be empty'] });
    }
    const { staffId } = await syncedMember();
    const omitted = employeeRecord(staffId);
    for (const f of ['middleName', 'oldStaffId', 'lastDayOfService', 'leavingReason']) delete omitted[f];
    const r = await push(omitted);
    expect(r.status).toBe(200);
    expect(r.body.body.updatedFields).toEqual([]);
  });

  test('birthdate: date or date-time, a real calendar date; never stored', async () => {
    await expect400(employeeRecord('S-V', { birthdate: '01/05/1990' }), {
      birthdate: ['must be a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDThh:mm:ss[.fff][Z])'],
    });
    await expect400(employeeRecord('S-V', { birthdate: '1990-02-30' }), {
      birthdate: ['is not a valid calendar date'],
    });
    await expect400(employeeRecord('S-V', { lastDayOfService: '2024-13-01' }), {
      lastDayOfService: ['is not a valid calendar date'],
    });
    const { id, staffId } = await syncedMember();
    for (const birthdate of ['1990-05-01T00:00:00', '1990-05-01T00:00:00.000Z', '1988-02-29T23:59:59.123+04:00']) {
      const r = await push(employeeRecord(staffId, { birthdate }));
      expect(r.status).toBe(200);
      expect(r.body.body.updatedFields).toEqual([]);
    }
    expect(JSON.stringify((await memberState(t, id)).state)).not.toContain('birthdate');
  });

  test('employmentType must match an active member type', async () => {
    const { staffId } = await syncedMember();
    await expect400(employeeRecord(staffId, { employmentType: 'Contractor' }), {
      employmentType: ["'Contractor' does not match an active member type"],
    });
    await expect400(employeeRecord(staffId, { employmentType: 'Retire' }), {
      employmentType: ["'Retire' does not match an active member type"],
    });
  });

  test('an employmentType longer than any member type identifier is refused like any other (400, not 500)', async () => {
    const { staffId } = await syncedMember();
    const long = 'Permanent'.repeat(20);
    await expect400(employeeRecord(staffId, { employmentType: long }), {
      employmentType: [`'${long}' does not match an active member type`],
    });
  });

  test('several errors at once are all reported', async () => {
    const body = employeeRecord('S-V', { name: '', email: 'x', status: 'gone' });
    delete body.grade;
    await expect400(body, {
      grade: ['is required'],
      name: ['must not be empty'],
      email: ['must be a valid email address'],
      status: ['must be one of: active, inactive, terminated'],
    });
  });

  test('malformed JSON and a non-object body', async () => {
    const bad = await push('{"employeeId": ', API_KEY);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      success: false,
      error: { code: 10001, message: 'Validation failed' },
      details: { errors: { body: ['must be a JSON object'] } },
    });
    const arr = await push([1, 2]);
    expect(arr.status).toBe(400);
    expect(arr.body.error.code).toBe(10001);
  });

  test('a refused record writes nothing', async () => {
    const { id, staffId } = await syncedMember();
    const before = await memberState(t, id);
    const r = await push(employeeRecord(staffId, { name: 'Changed', email: 'bad' }));
    expect(r.status).toBe(400);
    expect((await memberState(t, id)).version).toBe(before.version);
  });
});

describe('scenarios (200, exact updatedFields)', () => {
  test('first sync of a created member writes the HR fields it lacked', async () => {
    const staffId = uniq('S');
    const m = await createMember(t, { staffId });
    const r = await push(employeeRecord(staffId));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: 'Employee updated successfully',
      body: {
        memberId: m.id,
        staffId,
        updatedFields: ['address', 'gender', 'maritalStatus', 'coreGrade', 'dependantsExists'],
      },
    });
  });

  test('profile update: only the changed fields, in a fixed order; state, stream and audit log follow', async () => {
    const { id, staffId } = await syncedMember();
    const logsBefore = (await memberLogs(t, id)).length;
    const r = await push(
      employeeRecord(staffId, {
        phone: '+555',
        name: 'Augusta',
        middleName: 'Ada',
        address: { country: 'AE', address: '2 Side Road' },
        grade: 'G2',
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.body).toEqual({
      memberId: id,
      staffId,
      updatedFields: ['name', 'middleName', 'phone', 'grade', 'address'],
    });
    const { state } = await memberState(t, id);
    expect(state.private.profile).toMatchObject({
      name: 'Augusta',
      middleName: 'Ada',
      phone: '+555',
      grade: 'G2',
      address: { country: 'AE', address: '2 Side Road' },
    });
    await waitFor(async () => (await t.rt.documents.get('members', id))?.name === 'Augusta', { what: 'projection' });
    await waitFor(async () => (await memberLogs(t, id)).length === logsBefore + 1, { what: 'audit log entry' });
  });

  test('employmentType maps to the member type id', async () => {
    const { id, staffId } = await syncedMember();
    const r = await push(employeeRecord(staffId, { employmentType: 'temporary' }));
    expect(r.body.body.updatedFields).toEqual(['memberType']);
    expect((await memberState(t, id)).state.private.profile.memberType).toBe('mt-temp');
  });

  test('idempotent: the same record twice changes nothing the second time (no version, no log entry)', async () => {
    const { id, staffId } = await syncedMember();
    const rec = employeeRecord(staffId, { surname: 'Byron', leavingReason: null });
    expect((await push(rec)).body.body.updatedFields).toEqual(['surname']);
    await waitFor(async () => (await memberLogs(t, id)).length >= 2, { what: 'log of the change' });
    const before = await memberState(t, id);
    const logs = (await memberLogs(t, id)).length;
    const again = await push(rec);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      success: true,
      message: 'Employee is up to date; nothing changed',
      body: { memberId: id, staffId, updatedFields: [] },
    });
    expect((await memberState(t, id)).version).toBe(before.version);
    expect((await memberState(t, id)).state).toEqual(before.state);
    expect((await memberLogs(t, id)).length).toBe(logs);
  });

  test('staff id migration through oldStaffId: staffId + previousStaffIds, staffIdMigrated, the lookup key moves', async () => {
    const { id, staffId: oldId } = await syncedMember();
    const newId = uniq('N');
    const rec = employeeRecord(newId, { oldStaffId: oldId, email: `${oldId.toLowerCase()}@example.com` });
    const r = await push(rec);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: 'Employee updated successfully',
      body: { memberId: id, staffId: newId, updatedFields: ['staffId', 'previousStaffIds'], staffIdMigrated: true },
    });
    const { state, lookups } = await memberState(t, id);
    expect(state.private.profile).toMatchObject({ staffId: newId, previousStaffIds: [oldId] });
    expect(lookups.staffId).toBe(newId);
    expect(await t.rt.store.resolveLookup('Member', 'staffId', newId)).toBe(id);
    expect(await t.rt.store.resolveLookup('Member', 'staffId', oldId)).toBeUndefined();
    // sent again: found by the new id, nothing to migrate
    const again = await push(rec);
    expect(again.body.body).toEqual({ memberId: id, staffId: newId, updatedFields: [] });
    // the old id alone no longer finds the member
    const old = await push(employeeRecord(oldId, { email: `${oldId.toLowerCase()}@example.com` }));
    expect(old.status).toBe(404);
  });

  test('migration when both ids are unknown: 404 10073', async () => {
    const r = await push(employeeRecord(uniq('N'), { oldStaffId: uniq('O') }));
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, error: { code: 10073, message: 'Employee not found' } });
  });

  test('termination: status and statusReason; the member becomes inactive; reactivation', async () => {
    const { id, staffId } = await syncedMember();
    const term = await push(
      employeeRecord(staffId, { status: 'terminated', leavingReason: 'Resigned', lastDayOfService: '2025-01-31' }),
    );
    expect(term.body.body.updatedFields).toEqual(['lastDayOfService', 'status', 'statusReason']);
    expect((await memberState(t, id)).state.private.profile).toMatchObject({
      status: 'inactive',
      statusReason: 'Resigned',
    });

    const same = await push(
      employeeRecord(staffId, { status: 'terminated', leavingReason: 'Resigned', lastDayOfService: '2025-01-31' }),
    );
    expect(same.body.body.updatedFields).toEqual([]);

    const back = await push(employeeRecord(staffId, { status: 'active' }));
    expect(back.body.body.updatedFields).toEqual(['lastDayOfService', 'status', 'statusReason']);
    expect((await memberState(t, id)).state.private.profile).toMatchObject({ status: 'active', statusReason: null });
  });

  test('inactive without a leaving reason: statusReason is the HR status', async () => {
    const { id, staffId } = await syncedMember();
    const r = await push(employeeRecord(staffId, { status: 'inactive' }));
    expect(r.body.body.updatedFields).toEqual(['status', 'statusReason']);
    expect((await memberState(t, id)).state.private.profile).toMatchObject({
      status: 'inactive',
      statusReason: 'inactive',
    });
  });

  test('status active leaves a member that is not inactive as it is (pending_invite stays)', async () => {
    const { id, staffId } = await syncedMember();
    expect((await memberState(t, id)).state.private.profile.status).toBe('pending_invite');
    const r = await push(employeeRecord(staffId, { status: 'active', phone: '+1' }));
    expect(r.body.body.updatedFields).toEqual(['phone']);
    expect((await memberState(t, id)).state.private.profile.status).toBe('pending_invite');
  });

  test('company reassignment by bgId within the same group type; unchanged bgId changes nothing', async () => {
    const { id, staffId } = await syncedMember();
    const r = await push(employeeRecord(staffId, { companyId: 'BG2' }));
    expect(r.status).toBe(200);
    expect(r.body.body.updatedFields).toEqual(['company']);
    expect((await memberState(t, id)).state.private.profile.company).toEqual({ id: 'c-2' });
    expect((await push(employeeRecord(staffId, { companyId: 'BG2' }))).body.body.updatedFields).toEqual([]);
  });

  test('409 11017: the new company is of another group type; nothing changes', async () => {
    const { id, staffId } = await syncedMember();
    const before = await memberState(t, id);
    const r = await push(employeeRecord(staffId, { companyId: 'BG3', phone: '+9' }));
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      success: false,
      error: {
        code: 11017,
        message:
          "The company of the given companyId belongs to a different company group type than the member's current company",
      },
    });
    expect((await memberState(t, id)).version).toBe(before.version);
  });

  test('404 11016: companyId maps to no company', async () => {
    const { staffId } = await syncedMember();
    const r = await push(employeeRecord(staffId, { companyId: 'BG-NONE' }));
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      success: false,
      error: { code: 11016, message: 'No company is mapped to the given companyId (BG_ID)' },
    });
  });

  test('404 10073: employee not found', async () => {
    const r = await push(employeeRecord(uniq('S')));
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, error: { code: 10073, message: 'Employee not found' } });
  });

  test('400: the email of another member', async () => {
    const a = await syncedMember();
    const b = await syncedMember();
    const r = await push(employeeRecord(b.staffId, { email: `${a.staffId.toLowerCase()}@EXAMPLE.com` }));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      success: false,
      error: { code: 10001, message: 'Validation failed' },
      details: { errors: { email: ['is already used by another member'] } },
    });
  });

  test('an email change moves the email lookup', async () => {
    const { id, staffId } = await syncedMember();
    const r = await push(employeeRecord(staffId, { email: `New.${staffId}@Example.com` }));
    expect(r.body.body.updatedFields).toEqual(['email']);
    expect((await memberState(t, id)).lookups.email).toBe(`new.${staffId.toLowerCase()}@example.com`);
    expect(await t.rt.store.resolveLookup('Member', 'email', `${staffId.toLowerCase()}@example.com`)).toBeUndefined();
  });

  test('500 10000 on an internal error (a dependency fails)', async () => {
    // a process of the service deployed without the Company class: the company look-up fails
    const broken = await startMemberRuntime({ CLASS_DIRS: classDirsWithout('Company') });
    try {
      await seed(broken, PROGRAM_SETTINGS);
      const r = await broken.post('/members/hr/employee', employeeRecord(uniq('S')), API_KEY);
      expect(r.status).toBe(500);
      expect(r.body).toEqual({
        success: false,
        error: { code: 10000, message: 'Internal server error, please retry later' },
      });
    } finally {
      await broken.stop();
    }
  });
});
