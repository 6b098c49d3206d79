/**
 * Workflow + ApprovalManager end to end, through the Gadget fixture
 * (test/fixtures/classes/Gadget, rules in test/fixtures/workflow-configs/Gadget.json).
 */
import { MAX_INLINE_PATCH_BYTES, largeApprovalFileName } from '../../classes/ApprovalManager/rules';
import { waitFor, type TestRuntime } from '../support/harness';
import { bearer, patchOfSize, startWorkflowRuntime, writeRoles } from '../Workflow/support';
import { findLogs } from '../support/logs';

let t: TestRuntime;
let p: string;
let clerk: Record<string, string>;
let approver: Record<string, string>;
let senior: Record<string, string>;
let superUser: Record<string, string>;
let dev: Record<string, string>;

beforeAll(async () => {
  t = await startWorkflowRuntime();
  await writeRoles(t);
  p = `/${t.projectId}/CALL`;
  clerk = bearer(t, 'clerk1', ['clerk']);
  approver = bearer(t, 'ann', ['approver']);
  senior = bearer(t, 'sam', ['senior']);
  superUser = bearer(t, 'root', ['super']);
  dev = bearer(t, 'dave', ['clerk'], { developer: true }); // clerk: passes the method role checks, is no approver
});
afterAll(() => t.stop());

const createGadget = (body: Record<string, unknown>, headers = clerk) => t.post(`${p}/Gadget/init`, body, headers);
const update = (id: string, body: Record<string, unknown>, headers = clerk) =>
  t.post(`${p}/Gadget/update/${id}`, body, headers);
const review = (id: string, action: 'approve' | 'reject', headers: Record<string, string>, note?: string) =>
  t.post(`${p}/ApprovalManager/reviewApproval/${id}`, note === undefined ? { action } : { action, note }, headers);
const getApproval = (id: string, headers = clerk) => t.get(`${p}/ApprovalManager/getApproval/${id}`, headers);
const gadgetDoc = (id: string) => t.rt.documents.get('gadgets', id);
const list = (query: string, headers = approver) => t.get(`${p}/ApprovalManager/listApprovals?${query}`, headers);

/** an active gadget (trusted: created without approval) */
async function activeGadget(extra: Record<string, unknown> = {}) {
  const r = await createGadget({ name: 'active one', category: 'trusted', price: 10, ...extra });
  expect(r.status).toBe(200);
  expect(r.body.gadget.status).toBe('active');
  return r.body.gadget.id as string;
}

/** createApproval as the system identity (as a class would call it) */
async function createApprovalDirect(body: Record<string, unknown>) {
  const r = await t.rt.call('ApprovalManager', 'createApproval', undefined, {
    event: 'thing_update',
    instanceId: 'i1',
    entityId: 'e1',
    jsonPatch: [],
    actor: { id: 'clerk1', type: 'program_management_user', roles: ['clerk'] },
    approvers: ['approver'],
    ...body,
  });
  return r.body as Record<string, any>;
}

describe('spec 3.2 transitions', () => {
  test('pending → approved: a non-approver is refused, an approver approves, the callback applies the change and it is streamed', async () => {
    const created = await createGadget({ name: 'G1', price: 10 });
    expect(created.status).toBe(200);
    const { gadget, approval } = created.body;
    expect(gadget).toMatchObject({ name: 'G1', status: 'pending' });
    expect(created.body).toMatchObject({
      pendingApprovalId: approval.id,
      newStatus: 'active',
      simulatedApprovedState: { name: 'G1', status: 'active' },
    });
    expect(approval).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      event: 'gadget_create',
      classId: 'Gadget',
      instanceId: gadget.id,
      entityId: gadget.id,
      approvalStatus: 'pending',
      approvalType: 'manual',
      entityOldStatus: null,
      entityNewStatus: 'active',
      isLargeApproval: false,
      actor: { id: 'clerk1', type: 'program_management_user', roles: ['clerk'] },
      approvers: ['approver'],
      approveCallback: {
        event: 'gadget_create',
        classId: 'Gadget',
        instanceId: gadget.id,
        methodName: 'approveGadget',
      },
      rejectCallback: { event: 'gadget_create', classId: 'Gadget', instanceId: gadget.id, methodName: 'approveGadget' },
      additionalData: { source: 'fixture' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(approval.jsonPatch).toEqual(expect.arrayContaining([{ op: 'add', path: '/status', value: 'active' }]));
    expect(approval.approvedBy).toBeUndefined();
    await waitFor(async () => (await gadgetDoc(gadget.id))?.pendingApprovalId === approval.id, {
      what: 'pending gadget streamed',
    });

    expect((await getApproval(approval.id)).body).toMatchObject({
      approvalStatus: 'pending',
      jsonPatch: approval.jsonPatch,
    });

    for (const who of [clerk, superUser]) {
      const refused = await review(approval.id, 'approve', who);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 8001, classId: 'ApprovalManager' });
    }
    expect((await getApproval(approval.id)).body.approvalStatus).toBe('pending');

    const ok = await review(approval.id, 'approve', approver, 'looks good');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      approvalStatus: 'approved',
      approvedAt: expect.any(String),
      approvedBy: { id: 'ann', type: 'program_management_user', roles: ['approver'] },
      reviewNote: 'looks good',
      callbackJobId: expect.any(String),
    });
    const doc = await waitFor(
      async () => {
        const d = await gadgetDoc(gadget.id);
        return d?.status === 'active' && d.pendingApprovalId === null ? d : undefined;
      },
      { what: 'approved gadget streamed' },
    );
    expect(doc).toMatchObject({ name: 'G1', price: 10 });
    expect((await t.get(`${p}/Gadget/getGadget/${gadget.id}`, clerk)).body.lastReview).toEqual({
      approvalId: approval.id,
      action: 'approve',
      by: 'ann',
    });
    await waitFor(async () => (await t.rt.documents.get('approvals', approval.id))?.approvalStatus === 'approved', {
      what: 'approval streamed',
    });
    // the approved change left one audit entry, by the reviewer
    const logs = await waitFor(
      async () => {
        const found = await findLogs(t, { classId: 'Gadget', entityId: gadget.id });
        return found.total === 1 ? found.items : undefined;
      },
      { what: 'audit entry' },
    );
    expect(logs![0]).toMatchObject({
      actor: { id: 'ann', type: 'program_management_user' },
      additionalData: { approvalId: approval.id },
    });
    expect(logs![0].fieldUpdates).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'status', operation: 'replace', oldValue: '"pending"', newValue: '"active"' }),
      ]),
    );

    const twice = await review(approval.id, 'approve', approver);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 8000, classId: 'ApprovalManager' });
    expect((await review(approval.id, 'reject', dev)).status).toBe(409);
  });

  test('pending → rejected: the reject callback runs and the entity keeps its state', async () => {
    const { approval, gadget } = (await createGadget({ name: 'G2', price: 1 })).body;
    const r = await review(approval.id, 'reject', approver, 'no');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      approvalStatus: 'rejected',
      reviewNote: 'no',
      approvedBy: { id: 'ann' },
      callbackJobId: expect.any(String),
    });
    const state = await waitFor(
      async () => {
        const g = (await t.get(`${p}/Gadget/getGadget/${gadget.id}`, clerk)).body;
        return g.lastReview ? g : undefined;
      },
      { what: 'reject callback' },
    );
    expect(state).toMatchObject({
      gadget: { status: 'pending', name: 'G2' },
      pendingApprovalId: null,
      lastReview: { action: 'reject', approvalId: approval.id },
    });
    expect((await review(approval.id, 'approve', approver)).status).toBe(409);
  });

  test('creation under a rule without approvers is approved automatically (type auto) and applied at once', async () => {
    const r = await createGadget({ name: 'T1', category: 'trusted' });
    expect(r.body.approval).toMatchObject({
      approvalStatus: 'approved',
      approvalType: 'auto',
      approvers: [],
      approvedBy: { id: 'auto_approve', type: 'system' },
      approvedAt: expect.any(String),
    });
    expect(r.body.approval.callbackJobId).toBeUndefined();
    expect(r.body).toMatchObject({ gadget: { status: 'active' }, pendingApprovalId: null });
    await waitFor(async () => (await gadgetDoc(r.body.gadget.id))?.status === 'active', {
      what: 'auto-approved gadget streamed',
    });
    const again = await review(r.body.approval.id, 'approve', approver);
    expect(again.status).toBe(409);
  });

  test('the system actor is approved automatically even where the rule names approvers', async () => {
    const r = await t.rt.call('Gadget', 'init', undefined, { name: 'seeded' });
    const body = r.body as Record<string, any>;
    expect(body.approval).toMatchObject({
      approvalStatus: 'approved',
      approvalType: 'auto',
      approvers: ['approver'],
      actor: { type: 'system', name: 'system' },
      approvedBy: { id: 'auto_approve' },
    });
    expect(body.gadget.status).toBe('active');
  });

  test('developer bypass: developers create without approval and may review any record', async () => {
    const own = await createGadget({ name: 'by dev' }, dev);
    expect(own.body.approval).toMatchObject({ approvalType: 'auto', actor: { type: 'developer' } });

    const { approval, gadget } = (await createGadget({ name: 'G3' })).body;
    const r = await review(approval.id, 'approve', dev);
    expect(r.status).toBe(200);
    expect(r.body.approvedBy).toMatchObject({ id: 'dave', type: 'developer' });
    await waitFor(async () => (await gadgetDoc(gadget.id))?.status === 'active', {
      what: 'gadget approved by a developer',
    });
  });

  test('updates follow their rule: cheap ones apply at once, expensive ones wait for the senior role', async () => {
    const id = await activeGadget();
    const cheap = await update(id, { price: 5 });
    expect(cheap.body).toMatchObject({
      gadget: { price: 5 },
      approval: { approvalType: 'auto', entityOldStatus: 'active', entityNewStatus: 'active' },
    });
    expect(cheap.body.approval.jsonPatch).toEqual(
      expect.arrayContaining([{ op: 'replace', path: '/price', value: 5 }]),
    );

    const dear = await update(id, { price: 5000 });
    expect(dear.body).toMatchObject({
      gadget: { price: 5 },
      approval: { approvalStatus: 'pending', approvers: ['senior'] },
      simulatedApprovedState: { price: 5000 },
    });
    const busy = await update(id, { price: 1 });
    expect(busy.status).toBe(409);
    expect((await review(dear.body.approval.id, 'approve', approver)).status).toBe(403);
    expect((await review(dear.body.approval.id, 'approve', senior)).status).toBe(200);
    await waitFor(async () => (await gadgetDoc(id))?.price === 5000, { what: 'expensive update applied' });
  });

  test('a status change goes to the requested status through its rule', async () => {
    const id = await activeGadget();
    const r = await t.post(`${p}/Gadget/updateStatus/${id}`, { status: 'inactive' }, clerk);
    expect(r.body).toMatchObject({
      newStatus: 'inactive',
      approval: {
        event: 'gadget_status_update',
        entityOldStatus: 'active',
        entityNewStatus: 'inactive',
        approvalStatus: 'pending',
      },
    });
    expect(r.body.approval.rejectCallback).toBeUndefined();
    await review(r.body.approval.id, 'approve', approver);
    await waitFor(async () => (await gadgetDoc(id))?.status === 'inactive', { what: 'status change applied' });
  });
});

describe('spec 3.4 failures', () => {
  test('no rule matches: 400 14001 and nothing changes', async () => {
    const id = await activeGadget({ price: undefined });
    const r = await update(id, { name: 'renamed' }); // no price: neither update rule's condition holds
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 14001,
      classId: 'Workflow',
      details: { classId: 'Gadget', event: 'gadget_update', currentStatus: 'active', rulesForEvent: 3 },
    });
    const inactive = await activeGadget();
    await review(
      (await t.post(`${p}/Gadget/updateStatus/${inactive}`, { status: 'inactive' }, clerk)).body.approval.id,
      'approve',
      approver,
    );
    await waitFor(async () => (await gadgetDoc(inactive))?.status === 'inactive');
    const fromInactive = await t.post(`${p}/Gadget/updateStatus/${inactive}`, { status: 'active' }, clerk);
    expect(fromInactive.status).toBe(400);
    expect(fromInactive.body.code).toBe(14001);
    expect((await t.get(`${p}/Gadget/getGadget/${id}`, clerk)).body.gadget.name).toBe('active one');
    expect((await list(`entityId=${id}`)).body.totalCount).toBe(1); // the creation only
  });

  test('several rules match: 500 14002', async () => {
    const id = await activeGadget();
    const r = await update(id, { name: 'ambiguous' });
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ code: 14002, classId: 'Workflow', details: { ruleIndexes: [2, 4] } });
  });

  const callbacks: [string, Record<string, string>, number | string | undefined][] = [
    ['an unknown method', { classId: 'Gadget', methodName: 'nope' }, 1005],
    [
      'an unknown instance',
      { classId: 'Gadget', instanceId: 'no-such-gadget', methodName: 'approveGadget' },
      undefined,
    ],
    ['an unknown class', { classId: 'Nope', methodName: 'approve' }, 1004],
    ['a method that refuses ApprovalManager', { classId: 'Gadget', methodName: 'adminOnly' }, 1008],
  ];
  test.each(callbacks)(
    'a callback to %s cannot be queued: 502 8002, nothing committed',
    async (_what, cb, innerCode) => {
      const gadget = await activeGadget();
      const approveCallback = { event: 'thing_update', instanceId: gadget, ...cb };
      const record = await createApprovalDirect({ approveCallback });
      expect(record.approvalStatus).toBe('pending');
      const r = await review(record.id, 'approve', approver);
      expect(r.status).toBe(502);
      expect(r.body).toMatchObject({
        code: 8002,
        classId: 'ApprovalManager',
        details: { callback: approveCallback, error: { message: expect.any(String) } },
      });
      expect(r.body.details.error.code).toBe(innerCode);
      const after = (await getApproval(record.id)).body;
      expect(after).toMatchObject({ approvalStatus: 'pending' });
      expect(after.approvedBy).toBeUndefined();
      // reject has no callback here: it goes through
      expect((await review(record.id, 'reject', approver)).body).toMatchObject({ approvalStatus: 'rejected' });
    },
  );

  test('a class may only register callbacks on itself (403 8005)', async () => {
    const id = await activeGadget();
    await expect(t.rt.call('Gadget', 'rogueApproval', id, {})).rejects.toMatchObject({ status: 403, code: 8005 });
  });
});

describe('large patches (spec 8)', () => {
  test.each([
    [MAX_INLINE_PATCH_BYTES - 1, false],
    [MAX_INLINE_PATCH_BYTES, false],
    [MAX_INLINE_PATCH_BYTES + 1, true],
  ])('a %i-byte patch is large: %s; reads return it whole', async (bytes, large) => {
    const jsonPatch = patchOfSize(bytes);
    const entityId = `size-${bytes}`;
    const record = await createApprovalDirect({ entityId, jsonPatch });
    expect(record).toMatchObject({ isLargeApproval: large, jsonPatch });
    const stored = JSON.parse((await t.rt.store.read('ApprovalManager', record.id))!.stateJson).public.approval;
    const blobName = largeApprovalFileName(entityId, record.id);
    const blob = await t.rt.ports.blobs.get(blobName);
    if (large) {
      expect(stored).toMatchObject({ isLargeApproval: true, jsonPatch: [] });
      expect(blobName).toBe(`LARGE_APPROVAL_${entityId}_${record.id}.json`);
      expect(JSON.parse(blob!.data.toString('utf8'))).toEqual(jsonPatch);
      expect(blob!.info.contentType).toBe('application/json');
    } else {
      expect(stored.jsonPatch).toEqual(jsonPatch);
      expect(blob).toBeNull();
    }
    const read = await getApproval(record.id);
    expect(read.body).toMatchObject({ isLargeApproval: large, jsonPatch });
    expect(read.body.largePatchFile).toBeUndefined();
    const doc = await waitFor(() => t.rt.documents.get('approvals', record.id));
    expect(doc!.jsonPatch).toEqual(large ? [] : jsonPatch);
  });

  test('a large change reaches the entity whole through the approve callback', async () => {
    const id = await activeGadget();
    const payload = 'y'.repeat(12_000);
    const r = await update(id, { price: 2000, payload });
    expect(r.body.approval).toMatchObject({ isLargeApproval: true, approvalStatus: 'pending' });
    expect(r.body.approval.jsonPatch).toEqual(
      expect.arrayContaining([{ op: 'add', path: '/payload', value: payload }]),
    );
    expect((await t.rt.ports.blobs.stat(largeApprovalFileName(id, r.body.approval.id)))?.size).toBeGreaterThan(
      MAX_INLINE_PATCH_BYTES,
    );
    const ok = await review(r.body.approval.id, 'approve', senior);
    expect(ok.status).toBe(200);
    expect(ok.body.jsonPatch).toEqual(r.body.approval.jsonPatch);
    const doc = await waitFor(
      async () => {
        const d = await gadgetDoc(id);
        return d?.price === 2000 ? d : undefined;
      },
      { what: 'large change applied' },
    );
    expect(doc!.payload).toBe(payload);
  });

  test('a missing patch blob is a distinct error (500 8003)', async () => {
    const record = await createApprovalDirect({ entityId: 'lost', jsonPatch: patchOfSize(MAX_INLINE_PATCH_BYTES + 1) });
    await t.rt.ports.blobs.delete(largeApprovalFileName('lost', record.id));
    const r = await getApproval(record.id);
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ code: 8003 });
  });
});

describe('listApprovals', () => {
  const made: Record<string, string> = {};
  beforeAll(async () => {
    const specs: [string, Record<string, unknown>][] = [
      [
        'A1',
        {
          event: 'a_create',
          entityId: 'la-1',
          approvers: ['approver'],
          approveCallback: { event: 'a_create', classId: 'ListA', instanceId: 'x', methodName: 'm' },
        },
      ],
      [
        'A2',
        {
          event: 'a_update',
          entityId: 'la-2',
          approvers: ['senior'],
          approveCallback: { event: 'a_update', classId: 'ListA', instanceId: 'x', methodName: 'm' },
        },
      ],
      [
        'B1',
        {
          event: 'b_create',
          entityId: 'lb-1',
          approvers: [],
          approveCallback: { event: 'b_create', classId: 'ListB', instanceId: 'x', methodName: 'm' },
        },
      ],
      [
        'B2',
        {
          event: 'b_create',
          entityId: 'lb-2',
          approvers: ['approver'],
          approveCallback: { event: 'b_create', classId: 'ListB', instanceId: 'x', methodName: 'm' },
        },
      ],
    ];
    let last = 0;
    for (const [name, spec] of specs) {
      await waitFor(() => Date.now() > last, { what: 'a later millisecond' }); // distinct createdAt: newest-first is checkable
      made[name] = (await createApprovalDirect(spec)).id;
      last = Date.now();
    }
    expect((await review(made.B2, 'reject', approver)).status).toBe(200);
    await waitFor(async () => (await t.rt.documents.get('approvals', made.B2))?.approvalStatus === 'rejected', {
      what: 'listing docs',
    });
    await waitFor(async () => (await t.rt.documents.get('approvals', made.A2)) !== null);
  });

  const ids = (r: { body: { approvals: { id: string }[] } }) => r.body.approvals.map((a) => a.id);

  test('filters by class, status, event and entity; newest first', async () => {
    const a = await list('classId=ListA');
    expect(a.status).toBe(200);
    expect(ids(a)).toEqual([made.A2, made.A1]);
    expect(a.body).toMatchObject({ totalCount: 2, page: 1, limit: 10, totalPages: 1 });
    expect(a.body.approvals[0]).toMatchObject({
      id: made.A2,
      classId: 'ListA',
      event: 'a_update',
      approvalStatus: 'pending',
      approvers: ['senior'],
    });
    expect(a.body.approvals[0]._id).toBeUndefined();
    expect(ids(await list('classId=ListB&approvalStatus=approved'))).toEqual([made.B1]);
    expect(ids(await list('classId=ListB&approvalStatus=rejected'))).toEqual([made.B2]);
    expect(ids(await list('event=a_update'))).toEqual([made.A2]);
    expect(ids(await list('entityId=lb-1'))).toEqual([made.B1]);
    const posted = await t.post(
      `${p}/ApprovalManager/listApprovals`,
      { classId: 'ListA', approvalStatus: 'pending', limit: 1, page: 2 },
      approver,
    );
    expect(ids(posted)).toEqual([made.A1]);
    expect(posted.body).toMatchObject({ totalCount: 2, page: 2, limit: 1, totalPages: 2 });
  });

  test('actionable: pending records whose approvers include one of my roles (all for developers)', async () => {
    const scope = (headers: Record<string, string>) =>
      Promise.all(['ListA', 'ListB'].map((c) => list(`classId=${c}&actionable=true`, headers)));
    const mine = async (headers: Record<string, string>) => (await scope(headers)).flatMap(ids).sort();
    expect(await mine(approver)).toEqual([made.A1]);
    expect(await mine(senior)).toEqual([made.A2]);
    expect(await mine(clerk)).toEqual([]);
    expect(await mine(dev)).toEqual([made.A1, made.A2].sort());
    expect(await mine(bearer(t, 'both', ['approver', 'senior']))).toEqual([made.A1, made.A2].sort());
  });

  test('bad paging is a 400; non-program-management callers are refused', async () => {
    const bad = await list('limit=101');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 8004, details: { errors: [{ field: 'limit' }] } });
    expect((await list('page=0')).body.code).toBe(8004);
    expect((await t.post(`${p}/ApprovalManager/listApprovals`, { limit: 0 }, approver)).status).toBe(400);
    const member = { authorization: `Bearer ${t.token('enduser', 'm1')}` };
    expect((await list('', member)).status).toBe(403);
  });
});

describe('access', () => {
  test('createApproval is for classes only; reviewApproval for program management users', async () => {
    const r = await t.post(
      `${p}/ApprovalManager/createApproval`,
      { event: 'e', instanceId: 'i', entityId: 'e', jsonPatch: [], actor: { id: 'x', type: 'system' }, approvers: [] },
      superUser,
    );
    expect(r.status).toBe(403);
    const record = await createApprovalDirect({});
    const member = { authorization: `Bearer ${t.token('enduser', 'm1', ['approver'])}` };
    expect((await review(record.id, 'approve', member)).status).toBe(403);
    expect((await review(record.id, 'maybe' as 'approve', approver)).status).toBe(400);
    const unknown = await review('00000000-0000-4000-8000-000000000000', 'approve', approver);
    expect(unknown.status).toBe(500);
    expect(Object.keys(unknown.body)).toEqual(['message']);
  });

  test('the approve callback of an entity admits ApprovalManager only', async () => {
    const id = await activeGadget();
    const body = { approvalId: 'x', action: 'approve', event: 'e', entityId: id, jsonPatch: [] };
    expect((await t.post(`${p}/Gadget/approveGadget/${id}`, body, superUser)).status).toBe(403);
    await expect(t.rt.call('Gadget', 'approveGadget', id, body)).resolves.toMatchObject({ status: 202 });
  });
});
