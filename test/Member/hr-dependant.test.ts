/**
 * Spec 4.3 + 7.2: POST /members/hr/dependant, upsert (201 create / 200 update),
 * exact bodies and codes.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  API_KEY,
  createMember,
  dependantRecord,
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

const push = (body: unknown, headers: Record<string, string> = API_KEY) =>
  t.post('/members/hr/dependant', body, headers);

async function employee() {
  const staffId = uniq('S');
  const m = await createMember(t, { staffId });
  return { id: m.id as string, staffId };
}

/** an employee with one dependant created from `overrides` */
async function withDependant(overrides: Record<string, unknown> = {}) {
  const emp = await employee();
  const depId = uniq('d');
  const r = await push(dependantRecord(depId, emp.staffId, overrides));
  expect(r.status).toBe(201);
  return { emp, depId, rec: dependantRecord(depId, emp.staffId, overrides) };
}

async function expect400(body: Record<string, unknown>, errors: Record<string, string[]>) {
  const r = await push(body);
  expect(r.status).toBe(400);
  expect(r.body).toEqual({ success: false, error: { code: 10001, message: 'Validation failed' }, details: { errors } });
}

describe('create and update', () => {
  test('201 on create: the dependant is a member under the primary member', async () => {
    const emp = await employee();
    const depId = uniq('d');
    const r = await push(dependantRecord(depId, emp.staffId));
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      message: 'Dependant added successfully',
      body: { dependantId: depId, primaryMemberId: emp.id, updatedFields: [] },
    });
    const dep = (await memberState(t, depId)).state.private.profile;
    expect(dep).toMatchObject({
      id: depId,
      primaryMemberId: emp.id,
      relation: 'spouse',
      memberSubType: 'mst-spouse',
      company: { id: 'c-1' },
      memberType: 'mt-perm',
      status: 'active',
      name: 'Bea',
      surname: 'Lovelace',
      email: null,
      phone: '+200000',
      staffId: null,
    });
    expect(JSON.stringify(dep)).not.toContain('1992-02-29');
    const primary = (await memberState(t, emp.id)).state.private.profile;
    expect(primary.familyMembers).toEqual([
      {
        id: depId,
        relation: 'spouse',
        memberSubType: 'mst-spouse',
        name: 'Bea',
        surname: 'Lovelace',
        status: 'active',
        createdAt: dep.createdAt,
      },
    ]);
    // the primary member's changed family list is audit-logged too, with the API key's actor
    const link = await waitFor(
      async () => (await memberLogs(t, emp.id)).find((l) => l.additionalData?.source === 'family_member_link') ?? null,
      {
        what: "the audit entry of the primary member's family list",
      },
    );
    expect(link).toMatchObject({
      actor: { type: 'system', name: 'integration:env-1' },
      additionalData: { familyMemberId: depId },
    });
  });

  test('200 on update with the changed fields; the same record again changes nothing (no new version)', async () => {
    const { emp, depId, rec } = await withDependant();
    const upd = await push({ ...rec, name: 'Beatrice', phone: '+300', email: 'Bea@Example.com' });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({
      success: true,
      message: 'Dependant updated successfully',
      body: { dependantId: depId, primaryMemberId: emp.id, updatedFields: ['name', 'email', 'phone'] },
    });
    const before = await memberState(t, depId);
    const primaryBefore = await memberState(t, emp.id);
    const again = await push({ ...rec, name: 'Beatrice', phone: '+300', email: 'Bea@Example.com' });
    expect(again.status).toBe(200);
    expect(again.body.body.updatedFields).toEqual([]);
    expect((await memberState(t, depId)).version).toBe(before.version);
    expect((await memberState(t, emp.id)).version).toBe(primaryBefore.version);
    expect(before.lookups.email).toBe('bea@example.com');
  });

  test('a dependant the primary member does not list (an earlier call failed half-way) is listed by the next push', async () => {
    const emp = await employee();
    const depId = uniq('d');
    const rec = dependantRecord(depId, emp.staffId);
    // the dependant written, the primary member's link not (as when the link call failed)
    const primary = { id: emp.id, company: { id: 'c-1' }, memberType: 'mt-perm', loginMethod: 'email_password' };
    await t.rt.call('Member', 'hrApplyDependant', depId, {
      record: { ...rec, status: 'active', phone: '+200000' },
      memberSubTypeId: 'mst-spouse',
      primary,
    });
    expect((await memberState(t, emp.id)).state.private.profile.familyMembers).toEqual([]);
    const r = await push(rec);
    expect(r.status).toBe(200);
    expect(r.body.body.updatedFields).toEqual([]);
    expect((await memberState(t, emp.id)).state.private.profile.familyMembers.map((f: { id: string }) => f.id)).toEqual(
      [depId],
    );
  });

  test('phone omitted, null or blank leaves the stored phone unchanged', async () => {
    const { depId, rec } = await withDependant();
    const omitted = { ...rec };
    delete omitted.phone;
    for (const body of [omitted, { ...rec, phone: null }, { ...rec, phone: '   ' }, { ...rec, phone: '' }]) {
      const r = await push(body);
      expect(r.status).toBe(200);
      expect(r.body.body.updatedFields).toEqual([]);
    }
    expect((await memberState(t, depId)).state.private.profile.phone).toBe('+200000');
  });

  test('email: empty or blank is null; a given email replaces it; null clears it', async () => {
    const { depId, rec } = await withDependant({ email: '  ' });
    expect((await memberState(t, depId)).state.private.profile.email).toBeNull();
    expect((await push({ ...rec, email: 'x@example.com' })).body.body.updatedFields).toEqual(['email']);
    expect((await push({ ...rec, email: '' })).body.body.updatedFields).toEqual(['email']);
    const s = await memberState(t, depId);
    expect(s.state.private.profile.email).toBeNull();
    expect(s.lookups.email).toBeUndefined();
  });

  test("status: 'In-Active' in any case deactivates, 'Active' in any case reactivates", async () => {
    const { depId, rec } = await withDependant();
    const off = await push({ ...rec, status: 'IN-ACTIVE' });
    expect(off.body.body.updatedFields).toEqual(['status']);
    expect((await memberState(t, depId)).state.private.profile.status).toBe('inactive');
    expect((await push({ ...rec, status: 'in-active' })).body.body.updatedFields).toEqual([]);
    const on = await push({ ...rec, status: 'aCtIvE' });
    expect(on.body.body.updatedFields).toEqual(['status']);
    expect((await memberState(t, depId)).state.private.profile.status).toBe('active');
  });

  test("a new dependant sent as 'In-Active' is created inactive", async () => {
    const { depId } = await withDependant({ status: 'In-Active' });
    expect((await memberState(t, depId)).state.private.profile.status).toBe('inactive');
  });

  test('an unrecognised type is saved without mapping and a warning is returned; warnings only when there are some', async () => {
    const emp = await employee();
    const depId = uniq('d');
    const r = await push(dependantRecord(depId, emp.staffId, { type: 'cousin' }));
    expect(r.status).toBe(201);
    expect(r.body.body).toEqual({
      dependantId: depId,
      primaryMemberId: emp.id,
      updatedFields: [],
      warnings: [
        "Dependant type 'cousin' matches no member sub type mapping; the dependant was saved without a member sub type",
      ],
    });
    expect((await memberState(t, depId)).state.private.profile).toMatchObject({
      relation: 'cousin',
      memberSubType: null,
    });
    // a mapped type later: relation and sub type change, no warning
    const mapped = await push(dependantRecord(depId, emp.staffId, { type: 'Son' }));
    expect(mapped.body.body).toEqual({
      dependantId: depId,
      primaryMemberId: emp.id,
      updatedFields: ['relation', 'memberSubType'],
    });
    // an inactive sub type does not map
    const inactive = await push(dependantRecord(depId, emp.staffId, { type: 'parent' }));
    expect(inactive.body.body.warnings).toHaveLength(1);
    expect(inactive.body.body.updatedFields).toEqual(['relation', 'memberSubType']);
    expect((await memberState(t, emp.id)).state.private.profile.familyMembers[0]).toMatchObject({
      relation: 'parent',
      memberSubType: null,
    });
  });

  test('a type longer than any hrmsMapping entry is saved without mapping, with the warning (not a 500)', async () => {
    const emp = await employee();
    const depId = uniq('d');
    const type = 'spouse'.repeat(30);
    const r = await push(dependantRecord(depId, emp.staffId, { type }));
    expect(r.status).toBe(201);
    expect(r.body.body.warnings).toEqual([
      `Dependant type '${type}' matches no member sub type mapping; the dependant was saved without a member sub type`,
    ]);
    expect((await memberState(t, depId)).state.private.profile).toMatchObject({ relation: type, memberSubType: null });
  });
});

describe('errors', () => {
  test('401 10072 without a valid key', async () => {
    for (const headers of [{}, { 'x-api-key': 'nope' }] as Record<string, string>[]) {
      const r = await push(dependantRecord('d1', 'S1'), headers);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ success: false, error: { code: 10072, message: 'Invalid or missing API key' } });
    }
  });

  test.each(['id', 'employeeId', 'status', 'name', 'surname', 'email', 'type', 'birthdate'])(
    '400: %s is required',
    async (field) => {
      const body = dependantRecord('d1', 'S1');
      delete body[field];
      await expect400(body, { [field]: ['is required'] });
    },
  );

  test.each(['id', 'employeeId', 'name', 'surname', 'type'])('400: empty %s', async (field) => {
    await expect400(dependantRecord('d1', 'S1', { [field]: '' }), { [field]: ['must not be empty'] });
  });

  test('400: email must be an email or null, status Active/In-Active, id a safe id', async () => {
    await expect400(dependantRecord('d1', 'S1', { email: 'nope' }), {
      email: ['must be a valid email address or null'],
    });
    await expect400(dependantRecord('d1', 'S1', { email: 5 }), { email: ['must be a valid email address or null'] });
    await expect400(dependantRecord('d1', 'S1', { status: 'Inactive' }), {
      status: ["must be 'Active' or 'In-Active'"],
    });
    await expect400(dependantRecord('d/1', 'S1'), {
      id: ['must start with a letter or digit and contain only letters, digits, _ and -'],
    });
    await expect400(dependantRecord('d1', 'S1', { phone: 7 }), { phone: ['must be a string or null'] });
  });

  test('birthdate: YYYY-MM-DD or a date-time with time and fraction, a real date', async () => {
    const emp = await employee();
    for (const birthdate of [
      '1992-02-29',
      '1992-02-29T10:11:12',
      '1992-02-29T10:11:12.123',
      '1992-02-29T10:11:12.123456Z',
    ]) {
      const r = await push(dependantRecord(uniq('d'), emp.staffId, { birthdate }));
      expect(r.status).toBe(201);
    }
    await expect400(dependantRecord('d1', emp.staffId, { birthdate: '2001-02-29' }), {
      birthdate: ['is not a valid calendar date'],
    });
    await expect400(dependantRecord('d1', emp.staffId, { birthdate: '29/02/1992' }), {
      birthdate: ['must be a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDThh:mm:ss[.fff][Z])'],
    });
  });

  test('404 10075: primary member not found', async () => {
    const r = await push(dependantRecord(uniq('d'), uniq('S')));
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, error: { code: 10075, message: 'Primary member not found' } });
  });

  test('403 10074: the dependant belongs to another employee', async () => {
    const { depId, rec } = await withDependant();
    const other = await employee();
    const before = await memberState(t, depId);
    const r = await push({ ...rec, employeeId: other.staffId, name: 'Stolen' });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      success: false,
      error: { code: 10074, message: 'The dependant does not belong to the given employee' },
    });
    expect((await memberState(t, depId)).version).toBe(before.version);
  });

  test('403 10074: the id already exists for another member (an employee, or the employee itself)', async () => {
    const a = await employee();
    const b = await employee();
    for (const id of [b.id, a.id]) {
      const r = await push(dependantRecord(id, a.staffId));
      expect(r.status).toBe(403);
      expect(r.body).toEqual({
        success: false,
        error: { code: 10074, message: 'The dependant id already exists for another member' },
      });
    }
  });
});
