/**
 * PartnerUser's states (spec 3.3) and workflow events (spec 6) over HTTP:
 * each of user_create, user_update and user_status_update through a manual
 * approval (the role `approver`, reviewed through ApprovalManager) and an
 * automatic one (a rule without approvers), the approval callback's
 * rejections and conflicts, and every status row of 3.3.
 */
import {
  call,
  createProgramme,
  documentWhen,
  email,
  review,
  setRules,
  settled,
  startPuRuntime,
  userBody,
  type Programme,
  type PuRuntime,
} from './support';

let pu: PuRuntime;
let p: Programme;
beforeAll(async () => {
  pu = await startPuRuntime();
  p = await createProgramme(pu.t);
});
afterAll(() => pu.stop());

const init = (over: Record<string, unknown> = {}) => call(pu.t, 'init', undefined, userBody(p, over), pu.admin);
const full = (u: Record<string, any>) => ({
  fullName: u.fullName,
  email: u.email,
  partners: u.partners,
  venues: u.venues,
});
const approval = (id: string) => call(pu.t, 'getApproval', id, {}, pu.admin, 'ApprovalManager');

describe('manual approvals (every event waits for an approver)', () => {
  beforeAll(() => setRules(pu.t, 'manual'));

  test('user_create: init is pending; approved, the user is active', async () => {
    const r = await init();
    expect(r.body).toMatchObject({
      user: { status: 'pending' },
      pendingApproval: { event: 'user_create', requestedStatus: 'active' },
      approval: { approvalType: 'manual', approvalStatus: 'pending' },
    });
    const id = r.body.user.id;
    expect((await documentWhen(pu, id, (d) => d.pendingApproval?.id === r.body.approval.id)).status).toBe('pending');
    await review(pu, r.body.approval.id, 'approve');
    const after = await settled(pu, id);
    expect(after.user.status).toBe('active');
    expect(typeof after.user.updatedAt).toBe('number');
    expect(after.user.updatedAt).toBeGreaterThanOrEqual(r.body.user.updatedAt);
    expect(after.lastReview).toMatchObject({
      approvalId: r.body.approval.id,
      event: 'user_create',
      action: 'approve',
      outcome: 'applied',
      by: 'pm-approver',
    });
    expect((await approval(r.body.approval.id)).body).toMatchObject({
      approvalStatus: 'approved',
      entityOldStatus: null,
      entityNewStatus: 'active',
    });
    expect((await documentWhen(pu, id, (d) => d.status === 'active')).pendingApproval).toBeNull();
  });

  test('user_create rejected: the user is inactive and its email free for another', async () => {
    const address = email();
    const r = await init({ email: address });
    await review(pu, r.body.approval.id, 'reject');
    const after = await settled(pu, r.body.user.id);
    expect(after.user.status).toBe('inactive');
    expect(after.lastReview).toMatchObject({ action: 'reject', outcome: 'rejected' });
    expect((await init({ email: address })).status).toBe(201);
  });

  test('user_update: held until approved; rejected, nothing changes', async () => {
    const created = await init();
    await review(pu, created.body.approval.id, 'approve');
    const u = (await settled(pu, created.body.user.id)).user;
    const rename = await call(pu.t, 'updateUser', u.id, { ...full(u), fullName: 'Renamed Once' }, pu.admin);
    expect(rename.body).toMatchObject({
      user: { fullName: u.fullName },
      pendingApproval: { event: 'user_update', operation: 'updateUser' },
      requestedUser: { fullName: 'Renamed Once' },
    });
    await review(pu, rename.body.approval.id, 'reject');
    expect((await settled(pu, u.id)).user.fullName).toBe(u.fullName);
    const again = await call(pu.t, 'updateUser', u.id, { ...full(u), fullName: 'Renamed Twice' }, pu.admin);
    await review(pu, again.body.approval.id, 'approve');
    expect((await settled(pu, u.id)).user).toMatchObject({ fullName: 'Renamed Twice', status: 'active' });
    // addVenues and removeVenues are user_update too
    const add = await call(pu.t, 'addVenues', u.id, { venues: [{ partnerId: p.p1, venueId: p.v1b }] }, pu.admin);
    expect(add.body).toMatchObject({
      pendingApproval: { event: 'user_update', operation: 'addVenues' },
      user: { venues: [{ venueId: p.v1a }] },
    });
    await review(pu, add.body.approval.id, 'approve');
    expect((await settled(pu, u.id)).user.venues.map((v: { venueId: string }) => v.venueId)).toEqual([p.v1a, p.v1b]);
    const remove = await call(pu.t, 'removeVenues', u.id, { venueIds: [p.v1a] }, pu.admin);
    expect(remove.body.pendingApproval).toMatchObject({ event: 'user_update', operation: 'removeVenues' });
    await review(pu, remove.body.approval.id, 'approve');
    expect((await settled(pu, u.id)).user.venues).toEqual([{ partnerId: p.p1, venueId: p.v1b }]);
  });

  test('user_status_update: every status row of spec 3.3, each once approved; rejected, the status stays', async () => {
    const created = await init();
    const id = created.body.user.id;
    await review(pu, created.body.approval.id, 'approve');
    expect((await settled(pu, id)).user.status).toBe('active');
    const moves: [string, string][] = [
      ['active', 'inactive'],
      ['inactive', 'pending'],
      ['pending', 'active'],
      ['active', 'pending'],
      ['pending', 'inactive'],
      ['inactive', 'active'],
    ];
    for (const [from, to] of moves) {
      const r = await call(pu.t, 'updateStatus', id, { status: to, statusReason: `${from} to ${to}` }, pu.admin);
      expect([from, to, r.status, r.body.user.status, r.body.pendingApproval?.requestedStatus]).toEqual([
        from,
        to,
        200,
        from,
        to,
      ]);
      await review(pu, r.body.approval.id, 'approve');
      expect((await settled(pu, id)).user).toMatchObject({ status: to, statusReason: `${from} to ${to}` });
    }
    const r = await call(pu.t, 'updateStatus', id, { status: 'inactive' }, pu.admin);
    await review(pu, r.body.approval.id, 'reject');
    expect((await settled(pu, id)).user.status).toBe('active');
  });

  test('an approved change that takes an email another user took meanwhile is not applied: the review is a conflict', async () => {
    const created = await init();
    await review(pu, created.body.approval.id, 'approve');
    const u = (await settled(pu, created.body.user.id)).user;
    const wanted = email('wanted');
    const change = await call(pu.t, 'updateUser', u.id, { ...full(u), email: wanted }, pu.admin);
    expect(change.body.pendingApproval.event).toBe('user_update');
    // the address is not held until the change is applied: another user takes it
    expect((await init({ email: wanted })).status).toBe(201);
    await review(pu, change.body.approval.id, 'approve');
    const after = await settled(pu, u.id);
    expect(after.user.email).toBe(u.email);
    expect(after.lastReview).toMatchObject({ outcome: 'conflict', reason: 'another partner user holds the email now' });
  });

  test('reactivating a user whose email another took while it was inactive is refused', async () => {
    const created = await init();
    await review(pu, created.body.approval.id, 'approve');
    const u = (await settled(pu, created.body.user.id)).user;
    const off = await call(pu.t, 'updateStatus', u.id, { status: 'inactive' }, pu.admin);
    await review(pu, off.body.approval.id, 'approve');
    expect((await settled(pu, u.id)).user.status).toBe('inactive');
    expect((await init({ email: u.email })).status).toBe(201);
    for (const status of ['active', 'pending']) {
      const back = await call(pu.t, 'updateStatus', u.id, { status }, pu.admin);
      expect([status, back.status, back.body.code]).toEqual([status, 409, 17101]);
    }
  });
});

describe('automatic approvals (no event has approvers)', () => {
  beforeAll(() => setRules(pu.t, 'auto'));

  test('user_create: the user is active at once', async () => {
    const r = await init();
    expect(r.body).toMatchObject({
      user: { status: 'active' },
      pendingApproval: null,
      approval: { event: 'user_create', approvalType: 'auto', approvalStatus: 'approved' },
    });
    expect((await documentWhen(pu, r.body.user.id, (d) => d.status === 'active')).pendingApproval).toBeNull();
  });

  test('user_update: updateUser, addVenues and removeVenues apply at once', async () => {
    const u = (await init()).body.user;
    const r = await call(pu.t, 'updateUser', u.id, { ...full(u), fullName: 'Auto Renamed' }, pu.admin);
    expect(r.body).toMatchObject({
      user: { fullName: 'Auto Renamed' },
      pendingApproval: null,
      approval: { event: 'user_update', approvalType: 'auto' },
    });
    const add = await call(pu.t, 'addVenues', u.id, { venues: [{ partnerId: p.p1, venueId: p.v1b }] }, pu.admin);
    expect(add.body).toMatchObject({
      user: { venues: [{ venueId: p.v1a }, { venueId: p.v1b }] },
      approval: { approvalType: 'auto' },
    });
    const remove = await call(pu.t, 'removeVenues', u.id, { venueIds: [p.v1a, p.v1b] }, pu.admin);
    expect(remove.body).toMatchObject({ user: { venues: [] }, approval: { approvalType: 'auto' } });
    expect((await documentWhen(pu, u.id, (d) => d.venues.length === 0)).fullName).toBe('Auto Renamed');
  });

  test('user_status_update: every move of spec 3.3 applies at once', async () => {
    const u = (await init()).body.user;
    for (const to of ['inactive', 'pending', 'active', 'pending', 'inactive', 'active']) {
      const r = await call(pu.t, 'updateStatus', u.id, { status: to }, pu.admin);
      expect([to, r.status, r.body.user.status, r.body.user.statusReason, r.body.approval.approvalType]).toEqual([
        to,
        200,
        to,
        null,
        'auto',
      ]);
    }
  });
});

describe('the default rules (workflow-configs/PartnerUser.json)', () => {
  beforeAll(async () => {
    // back to the file's rules: the instance's own configuration is replaced by the file's content
    const file = (await import('../../workflow-configs/PartnerUser.json')).default;
    const r = await pu.t.rt.call('Workflow', 'updateWorkflowConfiguration', 'PartnerUser', file);
    expect(r.status).toBe(200);
  });

  test('creation and status changes wait for an approver; updates apply at once', async () => {
    const r = await init();
    expect(r.body.approval).toMatchObject({ approvalType: 'manual', approvers: ['approver'] });
    await review(pu, r.body.approval.id, 'approve');
    const u = (await settled(pu, r.body.user.id)).user;
    const upd = await call(pu.t, 'updateUser', u.id, { ...full(u), fullName: 'Default Rules' }, pu.admin);
    expect(upd.body.approval.approvalType).toBe('auto');
    const st = await call(pu.t, 'updateStatus', u.id, { status: 'inactive' }, pu.admin);
    expect(st.body.approval).toMatchObject({ approvalType: 'manual', approvers: ['approver'] });
    expect((await documentWhen(pu, u.id, (d) => d.pendingApproval?.event === 'user_status_update')).status).toBe(
      'active',
    );
  });
});
