/**
 * The quarantine of mass deactivations from HR: past a company's limit in the
 * window, a deactivating push (4.2 terminated/inactive, 4.3 In-Active) is held
 * on the member (202, code 10076, nothing applied), listed for the back office,
 * and released (applied once) or discarded through its approval; everything
 * else keeps flowing, the operators hear of it once per window. Rules
 * unit-tested; flows over HTTP with our real classes, an SMTP sink for mail.
 */
import { deactivates, deactivationLimit, quarantineSettings, quarantineStep } from '../../classes/Member/hr-quarantine';
import type { Identity } from '../../runtime';
import { startSmtpSink, type SmtpSink } from '../mail/smtp-sink';
import { seedRoles, waitFor, type TestRuntime } from '../support/harness';
import {
  API_KEY,
  dependantRecord,
  employeeRecord,
  memberLogs,
  memberState,
  seed,
  seedProgram,
  startMemberRuntime,
  uniq,
} from './support';

describe('the quarantine rules (pure)', () => {
  test('settings: defaults, off when both limits are 0, a wrong value refused naming it', () => {
    expect(quarantineSettings({})).toEqual({
      enabled: true,
      count: 50,
      percent: 10,
      floor: 5,
      windowSeconds: 3600,
      notifyTo: [],
    });
    expect(quarantineSettings({ HR_QUARANTINE_COUNT: '0', HR_QUARANTINE_PERCENT: '0' }).enabled).toBe(false);
    expect(quarantineSettings({ HR_QUARANTINE_WINDOW_MINUTES: '0' }).enabled).toBe(false);
    expect(quarantineSettings({ HR_QUARANTINE_NOTIFY: ' ops@example.com, hr@example.com ' }).notifyTo).toEqual([
      'ops@example.com',
      'hr@example.com',
    ]);
    expect(() => quarantineSettings({ HR_QUARANTINE_PERCENT: '101' })).toThrow(/HR_QUARANTINE_PERCENT/);
    expect(() => quarantineSettings({ HR_QUARANTINE_COUNT: '-1' })).toThrow(/HR_QUARANTINE_COUNT/);
    expect(() => quarantineSettings({ HR_QUARANTINE_FLOOR: 'x' })).toThrow(/HR_QUARANTINE_FLOOR/);
    expect(() => quarantineSettings({ HR_QUARANTINE_NOTIFY: 'ops@example.com,not-an-address' })).toThrow(
      /HR_QUARANTINE_NOTIFY.*not-an-address/,
    );
  });

  test('a deactivation is a move to inactive from any other status of an existing member', () => {
    expect(deactivates('active', 'inactive')).toBe(true);
    expect(deactivates('pending_invite', 'inactive')).toBe(true);
    expect(deactivates('inactive', 'inactive')).toBe(false);
    expect(deactivates('active', 'active')).toBe(false);
    expect(deactivates(null, 'inactive')).toBe(false);
  });

  test('the limit: the smaller of the count and the percentage of active members, never below the floor', () => {
    const s = { count: 50, percent: 10, floor: 5 };
    expect(deactivationLimit(s, 10_000)).toBe(50);
    expect(deactivationLimit(s, 200)).toBe(20);
    expect(deactivationLimit(s, 20)).toBe(5);
    expect(deactivationLimit({ ...s, count: 0 }, 10_000)).toBe(1000);
    expect(deactivationLimit({ ...s, percent: 0 }, 20)).toBe(50);
    expect(deactivationLimit({ count: 0, percent: 0, floor: 5 }, 20)).toBe(Number.POSITIVE_INFINITY);
    expect(deactivationLimit({ ...s, floor: 0 }, 0)).toBe(0);
  });

  test('the step: a held member takes a newer deactivation in place of the held one; anything else supersedes it', () => {
    expect(quarantineStep(true, false)).toBe('count');
    expect(quarantineStep(true, true)).toBe('hold-again');
    expect(quarantineStep(false, true)).toBe('supersede');
    expect(quarantineStep(false, false)).toBe('none');
  });
});

describe('over HTTP', () => {
  const ACTIVE = 20;
  const OPS = 'ops@example.com';
  const AM: Identity = { type: 'class', classId: 'ApprovalManager', instanceId: 'am-test' };
  let t: TestRuntime;
  let sink: SmtpSink;
  let approver: Record<string, string>;
  let pm: Record<string, string>;
  const staffIds: string[] = [];
  const memberIds = new Map<string, string>();

  beforeAll(async () => {
    sink = await startSmtpSink();
    // limit: 10 % of the active members (2 of 20; fewer as they leave), never below 2, per hour
    t = await startMemberRuntime({
      HR_QUARANTINE_COUNT: '50',
      HR_QUARANTINE_PERCENT: '10',
      HR_QUARANTINE_FLOOR: '2',
      HR_QUARANTINE_WINDOW_MINUTES: '60',
      HR_QUARANTINE_NOTIFY: OPS,
      SMTP_URL: sink.url,
      MAIL_BACKOFF_MS: '50',
    });
    await seedProgram(t);
    await seedRoles(t, [
      { id: 'super', name: 'super', level: 1, permissions: {} },
      {
        id: 'r-approver',
        name: 'approver',
        level: 10,
        permissions: { ApprovalManager: ['getApproval', 'listApprovals'] },
      },
    ]);
    approver = { authorization: `Bearer ${t.token('program_management_user', 'ann', ['approver'])}` };
    pm = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
    const members = [];
    for (let i = 0; i < ACTIVE; i++) {
      const staffId = uniq('Q');
      staffIds.push(staffId);
      members.push({
        id: `q-${staffId}`,
        name: 'Ada',
        surname: 'Lovelace',
        staffId,
        email: `${staffId.toLowerCase()}@example.com`,
        phone: '+100000',
        company: { id: 'c-1' },
        grade: 'G1',
        memberType: 'mt-perm',
        loginMethod: 'sso',
        status: 'active',
      });
      memberIds.set(staffId, `q-${staffId}`);
    }
    await seed(t, { members });
    // the percentage's base is the listing's count of active members: wait until it has them all
    await waitFor(
      async () => (await t.rt.documents.count('members', { companyId: 'c-1', status: 'active' })) === ACTIVE,
      { what: 'the seeded members listed' },
    );
  });
  afterAll(async () => {
    await t?.stop();
    await sink?.close();
  });

  const metricsText = async () => (await fetch(`${t.base}/metrics`)).text();
  const terminate = (staffId: string) =>
    t.post(
      '/members/hr/employee',
      employeeRecord(staffId, { status: 'terminated', leavingReason: 'resigned' }),
      API_KEY,
    );
  const stateOf = async (staffId: string) => (await memberState(t, memberIds.get(staffId)!)).state.private;
  const review = async (approvalId: string, action: 'approve' | 'reject') => {
    const r = await t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, approver);
    expect(r.status).toBe(200);
  };

  test('a mass termination of 30 %: the first within the limit applied, the rest held (202, 10076), listed, released by approval exactly once', async () => {
    const doomed = staffIds.slice(0, 6);
    const answers = [];
    for (const s of doomed) answers.push(await terminate(s));
    expect(answers.slice(0, 2).map((a) => a.status)).toEqual([200, 200]);
    for (const a of answers.slice(0, 2)) expect(a.body.body.updatedFields).toEqual(expect.arrayContaining(['status']));
    const held = answers.slice(2);
    for (const [i, a] of held.entries()) {
      expect(a.status).toBe(202);
      expect(a.body).toEqual({
        success: true,
        code: 10076,
        message: expect.stringContaining('held for review'),
        body: {
          memberId: memberIds.get(doomed[i + 2]!),
          staffId: doomed[i + 2],
          updatedFields: [],
          held: true,
          approvalId: expect.any(String),
        },
      });
    }
    // nothing of a held push applied
    for (const s of doomed.slice(2)) {
      const st = await stateOf(s);
      expect(st.profile.status).toBe('active');
      expect(st.heldHr).toMatchObject({ kind: 'employee', companyId: 'c-1', replaced: 0 });
    }
    for (const s of doomed.slice(0, 2)) expect((await stateOf(s)).profile.status).toBe('inactive');

    // everything else keeps flowing: another member's change, in the same company, now
    const other = staffIds[10]!;
    const changed = await t.post('/members/hr/employee', employeeRecord(other, { grade: 'G7' }), API_KEY);
    expect(changed.status).toBe(200);
    expect(changed.body.body.updatedFields).toContain('grade');

    // listed for the back office, oldest first, each with the approval that settles it
    const approvalIds = held.map((a) => a.body.body.approvalId as string);
    const listed = await waitFor(
      async () => {
        const r = await t.post(`/${t.projectId}/CALL/Member/listHeldHrPushes`, { companyId: 'c-1' }, pm);
        return r.status === 200 && r.body.totalCount === 4 ? r.body : undefined;
      },
      { what: 'the held pushes listed' },
    );
    expect(listed.held.map((h: any) => h.approvalId).sort()).toEqual([...approvalIds].sort());
    expect(listed.held[0]).toMatchObject({ kind: 'employee', status: 'active', companyId: 'c-1', replaced: 0 });
    // and as approvals of their own event, pending
    const approval = await t.get(`/${t.projectId}/CALL/ApprovalManager/getApproval/${approvalIds[0]}`, approver);
    expect(approval.body).toMatchObject({ event: 'HR_DEACTIVATION_HELD', approvalStatus: 'pending', companyId: 'c-1' });

    // the operators are told once for the window, not once per held member
    await waitFor(() => sink.accepted.some((m) => m.envelopeTo.includes(OPS)), {
      timeoutMs: 15_000,
      what: 'the quarantine notice',
    });
    expect(sink.accepted.filter((m) => m.envelopeTo.includes(OPS))).toHaveLength(1);
    expect(sink.accepted.find((m) => m.envelopeTo.includes(OPS))!.parsed.html).toContain(approvalIds[0]);

    // released (approve) for three, discarded (reject) for one
    const [r1, r2, r3, discarded] = approvalIds;
    for (const id of [r1!, r2!, r3!]) await review(id, 'approve');
    await review(discarded!, 'reject');
    for (const s of doomed.slice(2, 5)) {
      await waitFor(async () => (await stateOf(s)).profile.status === 'inactive', {
        what: `${s} deactivated on release`,
      });
      const st = await stateOf(s);
      expect(st.heldHr).toBeNull();
      expect(st.profile.statusReason).toBe('resigned');
    }
    await waitFor(async () => (await stateOf(doomed[5]!)).heldHr === null, { what: 'the discarded hold cleared' });
    expect((await stateOf(doomed[5]!)).profile.status).toBe('active');

    // exactly once: one status change in the audit log of a released member, and a redelivered callback changes nothing
    const released = memberIds.get(doomed[2]!)!;
    const before = await memberState(t, released);
    const again = await t.rt.call(
      'Member',
      'settleHeldHrPush',
      released,
      { event: 'HR_DEACTIVATION_HELD', entityId: released, approvalId: r1, action: 'approve', jsonPatch: [] },
      { identity: AM, origin: 'class' },
    );
    const { jobId } = again.body as { jobId: string };
    const job = await waitFor(
      async () => {
        const { status } = await t.rt.jobs.status(jobId);
        return status.status === 'completed' || status.status === 'failed' ? status : undefined;
      },
      { what: 'the redelivered callback' },
    );
    expect(job).toMatchObject({ status: 'completed', result: { body: { ignored: true } } });
    expect((await memberState(t, released)).version).toBe(before.version);
    const logs = await waitFor(
      async () => {
        const l = await memberLogs(t, released);
        return l.some((e) => e.additionalData?.outcome === 'released') ? l : undefined;
      },
      { what: 'the release audited' },
    );
    const applied = logs!.filter((e) => e.additionalData?.source === 'hr_employee_update');
    expect(applied).toHaveLength(1);
    expect(applied[0]!.additionalData.updatedFields).toContain('status');

    // on /metrics: the holds still waiting (the four above are settled; one more is held now), pushes by outcome, the ledger's lag
    await t.post('/members/hr/employee', employeeRecord(staffIds[11]!, { status: 'terminated' }), API_KEY);
    await waitFor(
      async () =>
        /runtime_document_count\{collection="members",gauge="hr_held_deactivations"\} 1\n/.test(await metricsText()),
      {
        what: 'the held-deactivations gauge at 1',
      },
    );
    const metrics = await metricsText();
    expect(metrics).toMatch(
      /runtime_journal_entries_total\{journal="hr",class="Member",method="hrUpdateEmployee",status="202",code=""\} 5\n/,
    );
    expect(metrics).toMatch(/runtime_journal_append_seconds_count\{journal="hr"\} [1-9]/);
    expect(metrics).not.toMatch(/runtime_journal_append_failures_total\{journal="hr"\} [1-9]/);

    // the ledger shows the held pushes as 202 with their approvals
    const ledger = await t.post(`/${t.projectId}/CALL/Member/listHrLedger`, { employeeId: doomed[2], status: 202 }, pm);
    expect(ledger.body.entries).toEqual([
      expect.objectContaining({ status: 202, data: expect.objectContaining({ held: true, approvalId: r1 }) }),
    ]);
  });

  test('a held member: a newer termination replaces the held record; HR saying active again supersedes the hold', async () => {
    // the window is spent: the next termination is held at once
    const s = staffIds[12]!;
    const first = await terminate(s);
    expect(first.status).toBe(202);
    const again = await t.post(
      '/members/hr/employee',
      employeeRecord(s, { status: 'terminated', leavingReason: 'retired' }),
      API_KEY,
    );
    expect([again.status, again.body.body.approvalId]).toEqual([202, first.body.body.approvalId]);
    expect((await stateOf(s)).heldHr).toMatchObject({ replaced: 1, body: { record: { leavingReason: 'retired' } } });
    const back = await t.post('/members/hr/employee', employeeRecord(s, { grade: 'G3' }), API_KEY);
    expect(back.status).toBe(200);
    expect(back.body.body.updatedFields).toContain('grade');
    const st = await stateOf(s);
    expect([st.heldHr, st.profile.status]).toEqual([null, 'active']);
    // its approval, approved late, changes nothing
    await review(first.body.body.approvalId, 'approve');
    const m = memberIds.get(s)!;
    const log = await waitFor(
      async () => {
        const l = await memberLogs(t, m);
        return l.some((e) => e.additionalData?.outcome === 'superseded') ? l : undefined;
      },
      { what: 'the superseded hold audited' },
    );
    expect(log!.some((e) => e.additionalData?.outcome === 'released')).toBe(false);
    expect((await stateOf(s)).profile.status).toBe('active');
  });

  test('dependants: an In-Active dependant past the limit is held the same way, and released onto its primary member', async () => {
    const primary = staffIds[15]!;
    const depId = uniq('D');
    expect((await t.post('/members/hr/dependant', dependantRecord(depId, primary), API_KEY)).status).toBe(201);
    const r = await t.post('/members/hr/dependant', dependantRecord(depId, primary, { status: 'In-Active' }), API_KEY);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      success: true,
      code: 10076,
      body: { dependantId: depId, primaryMemberId: memberIds.get(primary), updatedFields: [], held: true },
    });
    expect((await memberState(t, depId)).state.private.profile.status).toBe('active');
    await review(r.body.body.approvalId, 'approve');
    await waitFor(async () => (await memberState(t, depId)).state.private.profile.status === 'inactive', {
      what: 'the dependant deactivated',
    });
    // the primary member lists it as it is now
    await waitFor(
      async () =>
        (await memberState(t, memberIds.get(primary)!)).state.private.profile.familyMembers?.find(
          (f: any) => f.id === depId,
        )?.status === 'inactive',
      { what: 'the family entry updated' },
    );
  });
});
