/**
 * reconcileHrPopulation over HTTP: the back office hands HR's population as
 * 4.2 records and gets the summary and the differences; with `apply` the
 * corrections go through 4.2 as the caller (audited under the back-office
 * user). Bad input is a 400 naming the row's field; company users and
 * members are refused (403). Missing in HR reads the `members` listing for
 * candidates and confirms each against the member's state.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createAjv } from '../../runtime/actor/validation';
import { projectRoot } from '../../runtime/config';
import type { TestRuntime } from '../support/harness';
import { waitFor } from '../support/harness';
import {
  API_KEY,
  createMember,
  employeeRecord,
  memberLogs,
  memberState,
  seedProgram,
  startMemberRuntime,
  uniq,
} from './support';

describe('reconcileHrPopulation over HTTP', () => {
  let t: TestRuntime;
  const pm = () => ({
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'pm-reconciler', identity: 'program_management_user', roles: ['super'] })}`,
  });
  /** the method's answer schema (the API reference's): every 200 this file gets must match it */
  const answerShape = createAjv().compile(
    JSON.parse(fs.readFileSync(path.join(projectRoot(), 'schemas/Member/reconcileHrPopulation.answer.json'), 'utf8')),
  );
  const reconcile = async (body: unknown, headers: Record<string, string> = pm()) => {
    const r = await t.post(`/${t.projectId}/CALL/Member/reconcileHrPopulation`, body, headers);
    if (r.status === 200)
      expect({ valid: answerShape(r.body), errors: answerShape.errors ?? null }).toEqual({ valid: true, errors: null });
    return r;
  };

  /** an employee HR has pushed (so every HR field is set), in the company of `bgId` (created in c-1, moved there by HR) */
  async function employee(bgId = 'BG1'): Promise<{ id: string; staffId: string; record: Record<string, unknown> }> {
    const staffId = uniq('K');
    const m = await createMember(t, { staffId });
    const record = employeeRecord(staffId, { companyId: bgId });
    const r = await t.post('/members/hr/employee', record, API_KEY);
    expect(r.status).toBe(200);
    return { id: m.id, staffId, record };
  }
  const listed = (id: string) =>
    waitFor(async () => (await t.rt.documents.get('members', id)) !== null, { what: `member ${id} listed` });

  beforeAll(async () => {
    t = await startMemberRuntime({ HR_QUARANTINE_COUNT: '0', HR_QUARANTINE_PERCENT: '0' });
    await seedProgram(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('reports drift, missing in the program and missing in HR; apply corrects them as the caller; then nothing differs', async () => {
    const inSync = await employee();
    const drifting = await employee();
    const gone = await employee();
    await Promise.all([inSync, drifting, gone].map((e) => listed(e.id)));
    const newcomer = employeeRecord(uniq('N'));
    const rows = [inSync.record, { ...drifting.record, grade: 'G9', phone: '+999' }, newcomer];

    // scoped to BG1: members of other companies (earlier tests, other files) are not this population's
    const dry = await reconcile({ rows, companies: ['BG1'] });
    expect(dry.status).toBe(200);
    const mine = (dry.body.differences as any[]).filter(
      (d) => [inSync, drifting, gone].some((e) => e.id === d.memberId) || d.employeeId === newcomer.employeeId,
    );
    expect(mine).toEqual(
      expect.arrayContaining([
        {
          kind: 'drift',
          row: 1,
          employeeId: drifting.staffId,
          memberId: drifting.id,
          changes: [
            { field: 'phone', member: '+100000', hr: '+999' },
            { field: 'grade', member: 'G1', hr: 'G9' },
          ],
          outcome: 'reported',
        },
        expect.objectContaining({
          kind: 'missing_in_program',
          row: 2,
          employeeId: newcomer.employeeId,
          outcome: 'manual',
        }),
        { kind: 'missing_in_hr', employeeId: gone.staffId, memberId: gone.id, outcome: 'reported' },
      ]),
    );
    expect(mine).toHaveLength(3);
    expect(dry.body.summary).toMatchObject({
      apply: false,
      rows: 3,
      inSync: 1,
      drift: 1,
      missingInProgram: 1,
      applied: 0,
    });
    expect((await memberState(t, drifting.id)).state.private.profile.grade).toBe('G1');

    const applied = await reconcile({ rows, companies: ['BG1'], apply: true });
    expect(applied.status).toBe(200);
    const outcomes = Object.fromEntries(
      (applied.body.differences as any[]).map((d) => [d.memberId ?? d.employeeId, d.outcome]),
    );
    expect(outcomes).toMatchObject({
      [drifting.id]: 'applied',
      [gone.id]: 'applied',
      [newcomer.employeeId as string]: 'manual',
    });
    expect((await memberState(t, drifting.id)).state.private.profile).toMatchObject({ grade: 'G9', phone: '+999' });
    expect((await memberState(t, gone.id)).state.private.profile).toMatchObject({
      status: 'inactive',
      statusReason: 'Not in the HR population (reconciliation)',
    });
    // the 4.2 path, audited under the back-office user who applied it
    const logs = await waitFor(
      async () => {
        const l = await memberLogs(t, drifting.id);
        return l.find((e) => e.additionalData?.source === 'hr_employee_update' && e.actor?.id === 'pm-reconciler');
      },
      { what: 'audit entry of the correction' },
    );
    expect(logs?.actor).toMatchObject({ id: 'pm-reconciler', type: 'program_management_user' });

    // the listing may still show `gone` active: it is read from its state, which says inactive
    const again = await reconcile({ rows: rows.slice(0, 2), companies: ['BG1'] });
    expect(
      (again.body.differences as any[]).filter((d) => [inSync.id, drifting.id, gone.id].includes(d.memberId)),
    ).toEqual([]);
  });

  test('companies limits "missing in HR" to the BG_IDs the rows cover; limit bounds the list, not the counts', async () => {
    const here = await employee('BG1');
    const other = await employee('BG2');
    await Promise.all([listed(here.id), listed(other.id)]);
    const scoped = await reconcile({ rows: [here.record], companies: ['BG2'] });
    expect(scoped.status).toBe(200);
    const ids = (scoped.body.differences as any[]).map((d) => d.memberId);
    expect(ids).toContain(other.id);
    expect(ids).not.toContain(here.id);

    const all = await reconcile({ rows: [here.record], limit: 1 });
    expect(all.status).toBe(200);
    expect(all.body.differences).toHaveLength(1);
    expect(all.body.truncated).toBe(true);
    expect(all.body.summary.missingInHr).toBeGreaterThan(1);
  });

  test('asOf: a member HR pushed after the export is neither compared nor missing; corrections carry it, so 4.2 does not undo a newer push', async () => {
    const pushedLater = await employee();
    const absentButNewer = await employee();
    const older = await employee();
    // HR pushed these two at 08:00, after the 06:00 export
    for (const e of [pushedLater, absentButNewer]) {
      expect(
        (
          await t.post(
            '/members/hr/employee',
            { ...e.record, grade: 'G8' },
            { ...API_KEY, 'x-hr-timestamp': '2026-11-29T08:00:00Z' },
          )
        ).status,
      ).toBe(200);
    }
    await Promise.all([pushedLater, absentButNewer, older].map((e) => listed(e.id)));
    const rows = [
      { ...pushedLater.record, grade: 'G1' },
      { ...older.record, grade: 'G5' },
    ];
    const r = await reconcile({ rows, companies: ['BG1'], asOf: '2026-11-29T10:00:00+04:00', apply: true });
    expect(r.status).toBe(200);
    const mine = (r.body.differences as any[]).filter((d) =>
      [pushedLater.id, absentButNewer.id, older.id].includes(d.memberId),
    );
    expect(mine).toEqual([expect.objectContaining({ kind: 'drift', memberId: older.id, outcome: 'applied' })]);
    expect(r.body.summary.newerInService).toBeGreaterThanOrEqual(2);
    expect((await memberState(t, pushedLater.id)).state.private.profile.grade).toBe('G8');
    // the correction carried the file's time: the member now holds it
    expect((await memberState(t, older.id)).state.private).toMatchObject({
      profile: { grade: 'G5' },
      hrRecordedAt: '2026-11-29T06:00:00.000Z',
    });
    const bad = await reconcile({ rows, asOf: '2026-11-29' });
    expect(bad.status).toBe(400);
  });

  test('bad input is a 400 naming the row and field; the schema bounds the body', async () => {
    const staffId = uniq('B');
    const empty = await reconcile({ rows: [employeeRecord(staffId, { email: '' })] });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body.details)).toContain('rows.0.email');
    const date = await reconcile({
      rows: [employeeRecord(staffId), employeeRecord(uniq('B'), { birthdate: '2026-02-30' })],
    });
    expect(date.status).toBe(400);
    expect(date.body).toMatchObject({
      code: 5028,
      details: { errors: [{ field: 'rows.1.birthdate', reason: 'is not a valid calendar date' }] },
    });
    for (const body of [
      { rows: [] },
      {},
      { rows: [employeeRecord(staffId)], limit: 0 },
      { rows: [employeeRecord(staffId)], apply: 'yes' },
      { rows: [employeeRecord(staffId)], extra: 1 },
    ]) {
      const r = await reconcile(body);
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
    }
  });

  test('company users, members and the HR system are refused', async () => {
    const rows = [employeeRecord(uniq('A'))];
    const company = {
      authorization: `Bearer ${t.rt.tokens.sign({ sub: 'cu1', identity: 'program_management_user', roles: ['super'], userType: 'company', tenant: 'c-1' } as never)}`,
    };
    const refused = await reconcile({ rows }, company);
    expect([refused.status, refused.body.code]).toEqual([403, 1023]);
    const member = { authorization: `Bearer ${t.rt.tokens.sign({ sub: 'm1', identity: 'enduser', roles: [] })}` };
    expect((await reconcile({ rows }, member)).status).toBe(403);
    expect([401, 403]).toContain((await reconcile({ rows }, API_KEY)).status);
  });
});

describe('deactivations the HR quarantine holds', () => {
  let t: TestRuntime;
  const pm = () => ({
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'pm-reconciler', identity: 'program_management_user', roles: ['super'] })}`,
  });

  beforeAll(async () => {
    // one deactivation from HR per company and window: the second and later are held for review
    t = await startMemberRuntime({ HR_QUARANTINE_COUNT: '1', HR_QUARANTINE_PERCENT: '0', HR_QUARANTINE_FLOOR: '0' });
    await seedProgram(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('are reported held, not failed: the members stay as they were and the next run still lists them', async () => {
    const gone: string[] = [];
    for (let i = 0; i < 3; i++) {
      const staffId = uniq('Q');
      const m = await createMember(t, { staffId });
      expect((await t.post('/members/hr/employee', employeeRecord(staffId), API_KEY)).status).toBe(200);
      gone.push(m.id);
    }
    await Promise.all(
      gone.map((id) =>
        waitFor(async () => (await t.rt.documents.get('members', id)) !== null, { what: `member ${id} listed` }),
      ),
    );
    const kept = employeeRecord(uniq('Q'));
    const r = await t.post(
      `/${t.projectId}/CALL/Member/reconcileHrPopulation`,
      { rows: [kept], companies: ['BG1'], apply: true },
      pm(),
    );
    expect(r.status).toBe(200);
    const outcomes = (r.body.differences as any[])
      .filter((d) => d.kind === 'missing_in_hr')
      .map((d) => d.outcome)
      .sort();
    expect(outcomes).toEqual(['applied', 'held', 'held']);
    expect(r.body.summary).toMatchObject({ missingInHr: 3, applied: 1, held: 2, failed: 0 });
    for (const d of r.body.differences as any[])
      if (d.outcome === 'held') expect(d.reason).toMatch(/^held for review by the HR quarantine/);
    const statuses = await Promise.all(gone.map(async (id) => (await memberState(t, id)).state.private.profile.status));
    expect(statuses.sort()).toEqual(['inactive', 'pending_invite', 'pending_invite']);
    // still active here: a dry run lists the two held ones again (a later --apply pushes them again, held once more until reviewed)
    const next = await t.post(
      `/${t.projectId}/CALL/Member/reconcileHrPopulation`,
      { rows: [kept], companies: ['BG1'] },
      pm(),
    );
    expect((next.body.differences as any[]).filter((d) => d.kind === 'missing_in_hr')).toHaveLength(2);
  });
});
