/**
 * Audit of the HR integration contract (spec 4.1-4.3, 7.2) against what the
 * service answers, over real HTTP.
 *
 * The first describe blocks prove deviations that were found (each test
 * failed before its fix, including the two whose fix lay outside the HR
 * files: the runtime dispatcher and Member.class.ts). The last blocks pin
 * behaviour that was checked and found right but had no test: non-object bodies and wrong types are 400s (never a
 * 500), header case, odd staff ids, migration replays, scenario order.
 */
import { TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { isCalendarDate } from '../../classes/Member/hr-contract';
import { applyEmployeeRecord } from '../../classes/Member/hr-sync';
import type { MemberProfile } from '../../classes/Member/types';
import {
  API_KEY,
  createMember,
  dependantRecord,
  employeeRecord,
  IMAGES,
  memberLogs,
  memberState,
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

const EMPLOYEE = '/members/hr/employee';
const DEPENDANT = '/members/hr/dependant';
const callPath = (method: string, instanceId?: string) =>
  `/${t.projectId}/CALL/Member/${method}${instanceId ? `/${instanceId}` : ''}`;
const photoPath = (instanceId: string) => callPath('updateEmployeePhoto', instanceId);

/** a POST with a raw (possibly malformed) body */
async function postRaw(pathname: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(t.base + pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

const HR_400 = (errors: Record<string, string[]>) => ({
  success: false,
  error: { code: 10001, message: 'Validation failed' },
  details: { errors },
});
const HR_401 = { success: false, error: { code: 10072, message: 'Invalid or missing API key' } };
const PHOTO_400 = (errors: Record<string, string[]>) => ({
  code: 10001,
  message: 'Validation error',
  details: { errors },
});
const PHOTO_401 = { code: 10072, message: 'Unauthorized: invalid or missing API key' };

/** a member in sync with employeeRecord(staffId) */
async function syncedMember(staffId = uniq('S'), overrides: Record<string, unknown> = {}) {
  const m = await createMember(t, { staffId, email: `${uniq('m').toLowerCase()}@example.com` });
  const r = await t.post(EMPLOYEE, employeeRecord(staffId, { email: m.email, ...overrides }), API_KEY);
  expect(r.status).toBe(200);
  return { id: m.id as string, staffId, email: m.email as string };
}

// ------------------------------------------------------------------ deviations found (fixed)

describe('deviation: a malformed body through CALL answered the runtime shape, not the contract (7.2, 4.1)', () => {
  // The HR endpoints are also reachable through CALL; body-parser errors there skipped the method's errorShape
  // and answered {code: 1001, message} (runtime/http/app.ts shaped route aliases only).
  test.each(['hrUpdateEmployee', 'hrUpsertDependant'])(
    '%s through CALL: 400 10001 with details.errors.body',
    async (method) => {
      const r = await postRaw(callPath(method), '{"employeeId": ', API_KEY);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(HR_400({ body: ['must be a JSON object'] }));
    },
  );

  test('updateEmployeePhoto: 400 VALIDATION_ERROR (10001), the same body as a schema failure', async () => {
    const m = await createMember(t);
    const r = await postRaw(photoPath(m.id), '{"photo": "abc", ', API_KEY);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(PHOTO_400({ body: ['must be a JSON object'] }));
  });

  test('other methods keep the runtime shape', async () => {
    const r = await postRaw(callPath('getMemberPersonal', 'x'), '{', {});
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(1001);
  });
});

describe('deviation: a malformed body without a valid key answered 400, not 401 (7.2 401 10072, 4.1 UNAUTHORIZED)', () => {
  // A parsed body is validated only after the key is checked; a malformed one was reported before it.
  test.each([
    ['missing key', {}],
    ['invalid key', { 'x-api-key': 'wrong-key' }],
    ['a bearer token', { authorization: 'Bearer not-a-key' }],
  ] as [string, Record<string, string>][])('%s', async (_label, headers) => {
    for (const path of [EMPLOYEE, DEPENDANT, callPath('hrUpdateEmployee'), callPath('hrUpsertDependant')]) {
      const r = await postRaw(path, '{"id": ', headers);
      expect([path, r.status, r.body]).toEqual([path, 401, HR_401]);
    }
    const photo = await postRaw(photoPath('any-member'), '{"photo": ', headers);
    expect(photo.status).toBe(401);
    expect(photo.body).toEqual(PHOTO_401);
  });

  test('a valid key with a malformed body is still the 400', async () => {
    const r = await postRaw(EMPLOYEE, '{"id": ', { 'X-Api-Key': TEST_API_KEY });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(HR_400({ body: ['must be a JSON object'] }));
  });
});

describe('deviation: an oversized body answered 413 (code 10001 is a 400 in 7.2; photo: 413 {1016} through CALL)', () => {
  let small: TestRuntime;
  beforeAll(async () => {
    small = await startMemberRuntime({ BODY_LIMIT: '2kb' });
  });
  afterAll(() => small.stop());

  const big = (extra: Record<string, unknown>) => ({ ...extra, filler: 'x'.repeat(4000) });

  test('employee and dependant, alias and CALL: 400 10001 with details.errors.body', async () => {
    const paths = [
      EMPLOYEE,
      DEPENDANT,
      `/${small.projectId}/CALL/Member/hrUpdateEmployee`,
      `/${small.projectId}/CALL/Member/hrUpsertDependant`,
    ];
    for (const path of paths) {
      const r = await small.post(path, big(employeeRecord('S1')), API_KEY);
      expect([path, r.status, r.body]).toEqual([path, 400, HR_400({ body: ['is too large'] })]);
    }
  });

  test('photo: 400 VALIDATION_ERROR', async () => {
    const r = await small.post(
      `/${small.projectId}/CALL/Member/updateEmployeePhoto/m1`,
      big({ photo: IMAGES.png, fileExtension: 'png' }),
      API_KEY,
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual(PHOTO_400({ body: ['is too large'] }));
  });

  test('without a valid key: 401', async () => {
    const r = await small.post(EMPLOYEE, big(employeeRecord('S1')), {});
    expect([r.status, r.body]).toEqual([401, HR_401]);
  });
});

describe('deviation: a staff id migrated back and forth lost previousStaffIds from updatedFields (4.2 "Staff id migration")', () => {
  // A→B→A→B: the third migration found A already listed and reported ['staffId'] only, and the member kept
  // its current staff id B among its previous ones.
  test('every migration reports staffId and previousStaffIds; the current id is never a previous one', async () => {
    const A = uniq('A');
    const B = uniq('B');
    const { id, email } = await syncedMember(A);
    const migrate = (to: string, from: string) =>
      t.post(EMPLOYEE, employeeRecord(to, { oldStaffId: from, email }), API_KEY);
    const steps: [string, string, string[]][] = [
      [B, A, [A]],
      [A, B, [B]],
      [B, A, [A]],
    ];
    for (const [to, from, previous] of steps) {
      const r = await migrate(to, from);
      expect(r.status).toBe(200);
      expect(r.body.body).toEqual({
        memberId: id,
        staffId: to,
        updatedFields: ['staffId', 'previousStaffIds'],
        staffIdMigrated: true,
      });
      const { state, lookups } = await memberState(t, id);
      expect(state.private.profile).toMatchObject({ staffId: to, previousStaffIds: previous });
      expect(lookups.staffId).toBe(to);
    }
  });

  test('pure rule: the id given up moves to the end, the id taken leaves the list', () => {
    const profile = {
      staffId: 'B',
      previousStaffIds: ['A', 'C'],
      status: 'active',
      statusReason: null,
    } as unknown as MemberProfile;
    const record = employeeRecord('A', { oldStaffId: 'B' }) as never;
    const r = applyEmployeeRecord(profile, { record, memberTypeId: 'mt', companyId: 'c', migrated: true }, 'now');
    expect(r.profile.staffId).toBe('A');
    expect(r.profile.previousStaffIds).toEqual(['C', 'B']);
    expect(r.updatedFields.slice(0, 2)).toEqual(['staffId', 'previousStaffIds']);
  });
});

describe('deviation: date-times with an offset out of range were accepted (4.2 birthdate, lastDayOfService; 4.3 birthdate)', () => {
  const BAD = [
    '1990-05-01T10:00:00+24:00',
    '1990-05-01T10:00:00+99:99',
    '1990-05-01T10:00:00-05:60',
    '1990-05-01T10:00+0975',
  ];

  test.each(BAD)('employee birthdate %s: 400', async (birthdate) => {
    const r = await t.post(EMPLOYEE, employeeRecord('S-V', { birthdate }), API_KEY);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(HR_400({ birthdate: ['is not a valid calendar date'] }));
  });

  test('employee lastDayOfService and dependant birthdate: 400', async () => {
    const e = await t.post(EMPLOYEE, employeeRecord('S-V', { lastDayOfService: '2025-01-31T00:00:00+25:00' }), API_KEY);
    expect([e.status, e.body]).toEqual([400, HR_400({ lastDayOfService: ['is not a valid calendar date'] })]);
    const d = await t.post(
      DEPENDANT,
      dependantRecord('d1', 'S1', { birthdate: '1992-02-29T10:11:12.123+14:75' }),
      API_KEY,
    );
    expect([d.status, d.body]).toEqual([400, HR_400({ birthdate: ['is not a valid calendar date'] })]);
  });

  test('offsets in range, fractions up to 9 digits, Z: accepted', async () => {
    const { staffId, email } = await syncedMember();
    for (const birthdate of [
      '1990-05-01T10:00:00+14:00',
      '1990-05-01T10:00:00-1200',
      '1990-05-01T23:59:59.123456789Z',
      '1990-05-01T00:00',
    ]) {
      const r = await t.post(EMPLOYEE, employeeRecord(staffId, { email, birthdate }), API_KEY);
      expect([birthdate, r.status, r.body.body.updatedFields]).toEqual([birthdate, 200, []]);
    }
  });

  test('pure rule: calendar and clock ranges', () => {
    expect(isCalendarDate('2000-02-29')).toBe(true);
    expect(isCalendarDate('1900-02-29')).toBe(false);
    expect(isCalendarDate('2023-02-30')).toBe(false);
    expect(isCalendarDate('0000-02-29')).toBe(true); // year 0 is a leap year (Date.UTC read it as 1900)
    expect(isCalendarDate('2024-02-29T23:59:59.5+23:59')).toBe(true);
    expect(isCalendarDate('2024-02-29T23:59:59+24:00')).toBe(false);
    expect(isCalendarDate('2024-02-29T23:60')).toBe(false);
    expect(isCalendarDate('2024-02-29junk')).toBe(false);
  });
});

// ------------------------------------------------------------------ deviations whose fix lies elsewhere

describe('deviations whose fix lay outside the HR files (dispatcher, Member.class.ts)', () => {
  // Spec 4.1 rule 3: no member instance → 500 with only `message`, by member id as by `staffId!<id>`,
  // even when the body is invalid too (the platform answers before the handler and its input).
  test('photo for an unknown member id with an invalid body: 500 message only, as by staff id', async () => {
    const id = '00000000-0000-0000-0000-00000000dead';
    const r = await t.post(photoPath(id), { fileExtension: 'png' }, API_KEY);
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      message: `No instance with id '${id}' exists in class 'Member' of project '${t.projectId}'`,
    });
  });

  // Spec 4.1 rule 5 takes the actor from the API key context; the employee and dependant writes run as the
  // INTERNAL hrApplyEmployee / hrApplyDependant, whose audit entries (and a new dependant's createdBy) must
  // still name the integration caller, not the class (`class:Member`).
  test('employee and dependant audit entries name the API-key caller', async () => {
    const { id, staffId, email } = await syncedMember();
    await t.post(EMPLOYEE, employeeRecord(staffId, { email, grade: 'G-AUDIT' }), API_KEY);
    const entry = await waitFor(
      async () => (await memberLogs(t, id)).find((l) => l.additionalData?.updatedFields?.includes('grade')) ?? null,
      {
        what: 'the audit entry of the grade change',
      },
    );
    const depId = uniq('d');
    await t.post(DEPENDANT, dependantRecord(depId, staffId), API_KEY);
    const dep = (await memberState(t, depId)).state.private.profile;
    expect(entry!.actor).toMatchObject({ type: 'system', name: 'integration:env-1' });
    expect(dep.createdBy).toMatchObject({ type: 'system', name: 'integration:env-1' });
  });
});

// ------------------------------------------------------------------ checked and found right

describe('never a 500 for bad input: non-object bodies and wrong types are 400s with the field', () => {
  test.each([
    ['null', 'null'],
    ['a string', '"x"'],
    ['a number', '5'],
    ['an array', '[1,2]'],
    ['true', 'true'],
  ])('%s as the body', async (_label, body) => {
    for (const path of [EMPLOYEE, DEPENDANT, callPath('hrUpdateEmployee')]) {
      const r = await postRaw(path, body, API_KEY);
      expect([path, r.status, r.body]).toEqual([path, 400, HR_400({ body: ['must be an object'] })]);
    }
    const m = await createMember(t);
    const photo = await postRaw(photoPath(m.id), body, API_KEY);
    expect([photo.status, photo.body]).toEqual([400, PHOTO_400({ body: ['must be an object'] })]);
  });

  const EMPLOYEE_STRINGS = [
    'employeeId',
    'name',
    'surname',
    'phone',
    'grade',
    'employmentType',
    'gender',
    'maritalStatus',
    'coreGrade',
    'companyId',
    'birthdate',
  ];
  test.each([5, true, ['a'], { a: 1 }])('employee: %j where a string is expected', async (value) => {
    for (const field of EMPLOYEE_STRINGS) {
      const r = await t.post(EMPLOYEE, employeeRecord('S-T', { [field]: value }), API_KEY);
      expect([field, r.status, r.body]).toEqual([field, 400, HR_400({ [field]: ['must be a string'] })]);
    }
    for (const field of ['middleName', 'oldStaffId', 'lastDayOfService', 'leavingReason']) {
      const r = await t.post(EMPLOYEE, employeeRecord('S-T', { [field]: value }), API_KEY);
      expect([field, r.status, r.body]).toEqual([field, 400, HR_400({ [field]: ['must be a string or null'] })]);
    }
    const addr = await t.post(
      EMPLOYEE,
      employeeRecord('S-T', { address: { country: value, address: value } }),
      API_KEY,
    );
    expect(addr.body).toEqual(
      HR_400({ 'address.country': ['must be a string'], 'address.address': ['must be a string'] }),
    );
  });

  test('employee: address null or an array; email, status, dependantsExists of another type', async () => {
    for (const address of [null, [], 'AE']) {
      expect((await t.post(EMPLOYEE, employeeRecord('S-T', { address }), API_KEY)).body).toEqual(
        HR_400({ address: ['must be an object'] }),
      );
    }
    expect((await t.post(EMPLOYEE, employeeRecord('S-T', { email: 7 }), API_KEY)).body).toEqual(
      HR_400({ email: ['must be a string'] }),
    );
    const r = await t.post(EMPLOYEE, employeeRecord('S-T', { status: 1, dependantsExists: true }), API_KEY);
    expect(r.body).toEqual(
      HR_400({
        status: ['must be a string', 'must be one of: active, inactive, terminated'],
        dependantsExists: ['must be a string', 'must be one of: Y, N'],
      }),
    );
  });

  test.each([5, true, ['a'], { a: 1 }])('dependant: %j where a string is expected', async (value) => {
    for (const field of ['id', 'employeeId', 'name', 'surname', 'type', 'birthdate']) {
      const r = await t.post(DEPENDANT, dependantRecord('d1', 'S1', { [field]: value }), API_KEY);
      expect([field, r.status, r.body]).toEqual([field, 400, HR_400({ [field]: ['must be a string'] })]);
    }
    const status = await t.post(DEPENDANT, dependantRecord('d1', 'S1', { status: value }), API_KEY);
    expect(status.body).toEqual(HR_400({ status: ['must be a string'] }));
    const email = await t.post(DEPENDANT, dependantRecord('d1', 'S1', { email: value }), API_KEY);
    expect(email.body).toEqual(HR_400({ email: ['must be a valid email address or null'] }));
    const phone = await t.post(DEPENDANT, dependantRecord('d1', 'S1', { phone: value }), API_KEY);
    expect(phone.body).toEqual(HR_400({ phone: ['must be a string or null'] }));
  });

  test('dependant: null for every required field is reported field by field', async () => {
    const body = dependantRecord('d1', 'S1', {
      id: null,
      employeeId: null,
      status: null,
      name: null,
      surname: null,
      type: null,
      birthdate: null,
    });
    const r = await t.post(DEPENDANT, body, API_KEY);
    const errors = Object.fromEntries(
      ['id', 'employeeId', 'status', 'name', 'surname', 'type', 'birthdate'].map((f) => [f, ['must be a string']]),
    );
    expect(r.body).toEqual(HR_400(errors));
  });

  test('photo: wrong types, empty photo, null extension', async () => {
    const m = await createMember(t);
    expect((await t.post(photoPath(m.id), { photo: 5, fileExtension: ['png'] }, API_KEY)).body).toEqual(
      PHOTO_400({ photo: ['must be a string'], fileExtension: ['must be a string'] }),
    );
    expect((await t.post(photoPath(m.id), { photo: '', fileExtension: 'png' }, API_KEY)).body).toEqual(
      PHOTO_400({ photo: ['must not be empty'] }),
    );
    expect((await t.post(photoPath(m.id), { photo: IMAGES.png, fileExtension: null }, API_KEY)).body).toEqual(
      PHOTO_400({ fileExtension: ['must be a string'] }),
    );
    for (const ext of [' png', 'png ', 'JPEG']) {
      const r = await t.post(photoPath(m.id), { photo: IMAGES.png, fileExtension: ext }, API_KEY);
      expect([r.status, r.body]).toEqual([
        400,
        { code: 10005, message: `Invalid file extension '${ext}'. Allowed extensions: jpg, jpeg, png, gif, webp` },
      ]);
    }
  });

  test('a body that is not UTF-8 JSON (unsupported charset) is a 400, a JSON body sent as text/plain is read', async () => {
    const bad = await postRaw(EMPLOYEE, JSON.stringify(employeeRecord('S-T')), {
      ...API_KEY,
      'content-type': 'application/json; charset=latin1',
    });
    expect([bad.status, bad.body]).toEqual([400, HR_400({ body: ['must be a JSON object'] })]);
    const { staffId, email } = await syncedMember();
    const text = await postRaw(EMPLOYEE, JSON.stringify(employeeRecord(staffId, { email })), {
      ...API_KEY,
      'content-type': 'text/plain',
    });
    expect([text.status, text.body.body.updatedFields]).toEqual([200, []]);
  });
});

describe('headers and extra fields', () => {
  test('x-api-key in any case on all three endpoints; an empty key is a 401', async () => {
    const { id, staffId, email } = await syncedMember();
    for (const name of ['X-API-KEY', 'X-Api-Key', 'x-API-key']) {
      expect((await t.post(EMPLOYEE, employeeRecord(staffId, { email }), { [name]: TEST_API_KEY })).status).toBe(200);
      expect(
        (await t.post(DEPENDANT, dependantRecord(`d-${staffId}`, staffId), { [name]: TEST_API_KEY })).status,
      ).toBeLessThan(300);
      expect(
        (await t.post(photoPath(id), { photo: IMAGES.png, fileExtension: 'png' }, { [name]: TEST_API_KEY })).status,
      ).toBe(200);
    }
    const empty = await t.post(EMPLOYEE, employeeRecord(staffId, { email }), { 'x-api-key': '' });
    expect([empty.status, empty.body]).toEqual([401, HR_401]);
  });

  test('unknown fields are ignored and never stored', async () => {
    const { id, staffId, email } = await syncedMember();
    const before = await memberState(t, id);
    const r = await t.post(
      EMPLOYEE,
      { ...employeeRecord(staffId, { email }), isCabinCrew: true, salary: 1, status2: 'x' },
      API_KEY,
    );
    expect([r.status, r.body.body.updatedFields]).toEqual([200, []]);
    const after = await memberState(t, id);
    expect(after.version).toBe(before.version);
    expect(JSON.stringify(after.state)).not.toMatch(/salary|status2/);
  });
});

describe('staff ids, migrations and dependants', () => {
  test.each(['a:b', 'x!y', 'sp ace', 'ü-1'])(
    'staff id %j: employee update, dependant upsert and photo by staffId!',
    async (raw) => {
      const staffId = `${raw}-${uniq('')}`;
      const { id, email } = await syncedMember(staffId);
      expect(
        (await t.post(EMPLOYEE, employeeRecord(staffId, { email, grade: 'G5' }), API_KEY)).body.body.updatedFields,
      ).toEqual(['grade']);
      const dep = await t.post(DEPENDANT, dependantRecord(uniq('d'), staffId), API_KEY);
      expect([dep.status, dep.body.body.primaryMemberId]).toEqual([201, id]);
      const photo = await t.post(
        photoPath(encodeURIComponent(`staffId!${staffId}`)),
        { photo: IMAGES.png, fileExtension: 'png' },
        API_KEY,
      );
      expect([photo.status, photo.body]).toEqual([200, { success: true }]);
    },
  );

  test('a migration replayed changes nothing (no staffIdMigrated, no version, no log); dependants and photos follow the new id', async () => {
    const oldId = uniq('O');
    const newId = uniq('N');
    const { id, email } = await syncedMember(oldId);
    const depId = uniq('d');
    expect((await t.post(DEPENDANT, dependantRecord(depId, oldId), API_KEY)).status).toBe(201);
    const rec = employeeRecord(newId, { oldStaffId: oldId, email });
    expect((await t.post(EMPLOYEE, rec, API_KEY)).body.body.staffIdMigrated).toBe(true);
    await waitFor(
      async () => (await memberLogs(t, id)).some((l) => l.additionalData?.updatedFields?.includes('staffId')),
      { what: 'migration log' },
    );
    const before = await memberState(t, id);
    const logs = (await memberLogs(t, id)).length;
    const again = await t.post(EMPLOYEE, rec, API_KEY);
    expect(again.body).toEqual({
      success: true,
      message: 'Employee is up to date; nothing changed',
      body: { memberId: id, staffId: newId, updatedFields: [] },
    });
    expect((await memberState(t, id)).version).toBe(before.version);
    expect((await memberLogs(t, id)).length).toBe(logs);

    expect((await t.post(DEPENDANT, dependantRecord(depId, newId), API_KEY)).body.body).toEqual({
      dependantId: depId,
      primaryMemberId: id,
      updatedFields: [],
    });
    const byOld = await t.post(DEPENDANT, dependantRecord(depId, oldId), API_KEY);
    expect([byOld.status, byOld.body]).toEqual([
      404,
      { success: false, error: { code: 10075, message: 'Primary member not found' } },
    ]);
    const photoOld = await t.post(photoPath(`staffId!${oldId}`), { photo: IMAGES.png, fileExtension: 'png' }, API_KEY);
    expect([photoOld.status, Object.keys(photoOld.body)]).toEqual([500, ['message']]);
    expect(
      (await t.post(photoPath(`staffId!${newId}`), { photo: IMAGES.png, fileExtension: 'png' }, API_KEY)).status,
    ).toBe(200);
  });

  test('a member without a staff id: the photo by member id works, no employee record reaches it', async () => {
    const m = await createMember(t, { staffId: null, email: `${uniq('n').toLowerCase()}@example.com` });
    expect(m.staffId).toBeNull();
    const photo = await t.post(photoPath(m.id), { photo: IMAGES.png, fileExtension: 'png' }, API_KEY);
    expect([photo.status, photo.body]).toEqual([200, { success: true }]);
    const r = await t.post(EMPLOYEE, employeeRecord(uniq('S'), { email: m.email, oldStaffId: uniq('O') }), API_KEY);
    expect([r.status, r.body]).toEqual([
      404,
      { success: false, error: { code: 10073, message: 'Employee not found' } },
    ]);
  });

  test('a record naming two existing members (employeeId and oldStaffId): the employeeId member is updated, nothing migrates', async () => {
    const a = await syncedMember();
    const b = await syncedMember();
    const r = await t.post(EMPLOYEE, employeeRecord(b.staffId, { oldStaffId: a.staffId, email: b.email }), API_KEY);
    expect(r.body.body).toEqual({ memberId: b.id, staffId: b.staffId, updatedFields: [] });
    expect((await memberState(t, a.id)).state.private.profile.staffId).toBe(a.staffId);
  });

  test('every scenario in one record: updatedFields in the documented order; then termination reason, reactivation', async () => {
    const oldId = uniq('O');
    const newId = uniq('N');
    const { id } = await syncedMember(oldId);
    const rec = employeeRecord(newId, {
      oldStaffId: oldId,
      email: `${newId.toLowerCase()}@example.com`,
      name: 'Zed',
      middleName: 'Q',
      employmentType: 'Temporary',
      dependantsExists: 'Y',
      lastDayOfService: '2025-01-31',
      companyId: 'BG2',
      status: 'terminated',
      leavingReason: 'Retired',
    });
    const r = await t.post(EMPLOYEE, rec, API_KEY);
    expect(r.body.body).toEqual({
      memberId: id,
      staffId: newId,
      updatedFields: [
        'staffId',
        'previousStaffIds',
        'name',
        'middleName',
        'email',
        'memberType',
        'dependantsExists',
        'lastDayOfService',
        'company',
        'status',
        'statusReason',
      ],
      staffIdMigrated: true,
    });
    expect((await memberState(t, id)).state.private.profile).toMatchObject({
      status: 'inactive',
      statusReason: 'Retired',
      company: { id: 'c-2' },
      memberType: 'mt-temp',
    });
    const reason = await t.post(EMPLOYEE, { ...rec, leavingReason: 'Other' }, API_KEY);
    expect(reason.body.body.updatedFields).toEqual(['statusReason']);
    const back = await t.post(
      EMPLOYEE,
      { ...rec, status: 'active', leavingReason: null, lastDayOfService: null },
      API_KEY,
    );
    expect(back.body.body.updatedFields).toEqual(['lastDayOfService', 'status', 'statusReason']);
    expect((await memberState(t, id)).state.private.profile).toMatchObject({ status: 'active', statusReason: null });
  });

  test('a dependant email of another case is a change; a padded email is refused like the employee one', async () => {
    const { staffId } = await syncedMember();
    const depId = uniq('d');
    await t.post(DEPENDANT, dependantRecord(depId, staffId, { email: 'bea@example.com' }), API_KEY);
    expect(
      (await t.post(DEPENDANT, dependantRecord(depId, staffId, { email: 'Bea@Example.com' }), API_KEY)).body.body
        .updatedFields,
    ).toEqual(['email']);
    expect((await memberState(t, depId)).lookups.email).toBe('bea@example.com');
    const padded = await t.post(DEPENDANT, dependantRecord(depId, staffId, { email: ' bea@example.com ' }), API_KEY);
    expect(padded.body).toEqual(HR_400({ email: ['must be a valid email address or null'] }));
  });
});
