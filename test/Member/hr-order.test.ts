/**
 * HR pushes delivered out of order (X-HR-Timestamp, beyond the spec): a
 * record older than the newest one applied to the member is answered 200 and
 * not applied; pushes without the header are applied as they arrive; a
 * malformed header is a 400 (10001) naming it. Rules unit-tested, flows over
 * HTTP with the employee (4.2) and dependant (4.3) endpoints.
 */
import { hrTimestampOf, isStalePush, newerPush } from '../../classes/Member/hr-contract';
import type { TestRuntime } from '../support/harness';
import {
  API_KEY,
  createMember,
  dependantRecord,
  employeeRecord,
  memberState,
  seedProgram,
  startMemberRuntime,
  uniq,
} from './support';

describe('the ordering rules (pure)', () => {
  test('the header: absent, an ISO time with a zone (normalised to UTC), anything else refused naming it', () => {
    expect(hrTimestampOf({})).toBeUndefined();
    expect(hrTimestampOf({ 'x-hr-timestamp': '2026-11-29T09:14:00+04:00' })).toBe('2026-11-29T05:14:00.000Z');
    expect(hrTimestampOf({ 'x-hr-timestamp': '2026-11-29T09:14:00.123456Z' })).toBe('2026-11-29T09:14:00.123Z');
    for (const bad of ['2026-11-29', '2026-11-29T09:14:00', 'yesterday', '2026-13-45T09:14:00Z', '']) {
      let thrown: any;
      try {
        hrTimestampOf({ 'x-hr-timestamp': bad });
      } catch (err) {
        thrown = err;
      }
      expect(thrown?.status).toBe(400);
      expect(JSON.stringify(thrown.toBody())).toContain('X-HR-Timestamp');
    }
  });

  test('older than applied is stale; equal or unknown is not; the newer time is kept', () => {
    const t1 = '2026-11-29T09:00:00.000Z';
    const t2 = '2026-11-29T10:00:00.000Z';
    expect(isStalePush(t2, t1)).toBe(true);
    expect(isStalePush(t1, t2)).toBe(false);
    expect(isStalePush(t1, t1)).toBe(false);
    expect(isStalePush(undefined, t1)).toBe(false);
    expect(isStalePush(t1, undefined)).toBe(false);
    expect(newerPush(t1, t2)).toBe(t2);
    expect(newerPush(t2, t1)).toBe(t2);
    expect(newerPush(undefined, t1)).toBe(t1);
    expect(newerPush(t1, undefined)).toBe(t1);
  });
});

describe('over HTTP', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await startMemberRuntime();
    await seedProgram(t);
  });
  afterAll(() => t.stop());

  const at = (iso: string) => ({ ...API_KEY, 'x-hr-timestamp': iso });

  test('employee: a record older than the one applied is answered and not applied; one without the header is applied', async () => {
    const staffId = uniq('S');
    const m = await createMember(t, { staffId });
    const newer = await t.post(
      '/members/hr/employee',
      employeeRecord(staffId, { grade: 'G2' }),
      at('2026-11-29T10:00:00Z'),
    );
    expect(newer.status).toBe(200);
    expect(newer.body.body.updatedFields).toContain('grade');
    const older = await t.post(
      '/members/hr/employee',
      employeeRecord(staffId, { grade: 'G1', status: 'terminated' }),
      at('2026-11-29T09:00:00Z'),
    );
    expect(older.status).toBe(200);
    expect(older.body).toEqual({
      success: true,
      message: 'A newer record of this employee was already applied; this one was not',
      body: { memberId: m.id, staffId, updatedFields: [] },
    });
    let s = (await memberState(t, m.id)).state;
    expect(s.private.profile.grade).toBe('G2');
    expect(s.private.profile.status).not.toBe('inactive');
    expect(s.private.hrRecordedAt).toBe('2026-11-29T10:00:00.000Z');
    // a later record applies; so does one without the header
    expect(
      (await t.post('/members/hr/employee', employeeRecord(staffId, { grade: 'G3' }), at('2026-11-29T11:00:00Z'))).body
        .body.updatedFields,
    ).toEqual(['grade']);
    expect(
      (await t.post('/members/hr/employee', employeeRecord(staffId, { grade: 'G4' }), API_KEY)).body.body.updatedFields,
    ).toEqual(['grade']);
    s = (await memberState(t, m.id)).state;
    expect([s.private.profile.grade, s.private.hrRecordedAt]).toEqual(['G4', '2026-11-29T11:00:00.000Z']);
  });

  test('dependant: the same rule on the dependant; a malformed header is a 400 naming it', async () => {
    const staffId = uniq('S');
    await createMember(t, { staffId });
    const depId = uniq('D');
    expect(
      (
        await t.post(
          '/members/hr/dependant',
          dependantRecord(depId, staffId, { surname: 'Newer' }),
          at('2026-11-29T10:00:00Z'),
        )
      ).status,
    ).toBe(201);
    const older = await t.post(
      '/members/hr/dependant',
      dependantRecord(depId, staffId, { surname: 'Older', status: 'In-Active' }),
      at('2026-11-29T09:59:59Z'),
    );
    expect(older.status).toBe(200);
    expect(older.body.message).toBe('A newer record of this dependant was already applied; this one was not');
    expect(older.body.body.updatedFields).toEqual([]);
    const s = (await memberState(t, depId)).state;
    expect([s.private.profile.surname, s.private.profile.status]).toEqual([
      'Newer',
      expect.not.stringMatching(/^inactive$/),
    ]);

    const bad = await t.post('/members/hr/dependant', dependantRecord(depId, staffId), at('tuesday'));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(10001);
    expect(JSON.stringify(bad.body)).toContain('X-HR-Timestamp');
  });
});
