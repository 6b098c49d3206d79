/**
 * Approvers are real (docs/access.md): only a holder of an active role named
 * on the record approves it, end to end over real Redis and HTTP, with the
 * roles RoleManager deploys (no hand-written snapshot) and the Gadget fixture
 * (test/fixtures/classes/Gadget):
 *
 *  - an approver whose role was deactivated (and the deactivation deployed)
 *    is refused although its token still names the role;
 *  - the maker of a change cannot approve it, unless its rule says
 *    `allowSelfApproval: true`;
 *  - an approver without any ApprovalManager permission lists what it can act
 *    on (`actionable: true`) and reads those records, and nothing else;
 *  - records show a before/after view of the changed fields next to the patch.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { largeOldValuesFileName, MAX_INLINE_PATCH_BYTES } from '../../classes/ApprovalManager/rules';
import { repoRoot } from '../../classes/Workflow/config';
import { waitFor, type TestRuntime } from '../support/harness';
import { bearer, startWorkflowRuntime } from '../Workflow/support';

let t: TestRuntime;
let p: string;
const roleIds: Record<string, string> = {};
/** makes gadgets; no ApprovalManager permission */
let clerk: Record<string, string>;
/** holds `approver` only: no permission at all, ApprovalManager's included */
let ann: Record<string, string>;
/** holds `senior` only */
let sam: Record<string, string>;
/** makes gadgets and holds `approver` */
let pat: Record<string, string>;

const GADGET = ['init', 'update', 'updateStatus', 'getGadget'];

/** the published role snapshot once `check` holds */
const snapshotWhere = (check: (roles: { id: string; name: string; status?: string }[]) => boolean, what: string) =>
  waitFor(
    async () => {
      const s = await t.rt.ports.roles.current();
      return s && check(s.roles as { id: string; name: string; status?: string }[]) ? s : undefined;
    },
    { what },
  );

/** an active role, created as the system identity (approved at once) and deployed */
async function seedRole(name: string, permissions: Record<string, string[]>): Promise<string> {
  const r = await t.rt.call('RoleManager', 'createRole', 'default', { name, permissions });
  const role = (r.body as { role: { id: string; status: string } }).role;
  expect(role.status).toBe('active');
  await snapshotWhere((roles) => roles.some((x) => x.id === role.id), `${name} deployed`);
  return role.id;
}

beforeAll(async () => {
  t = await startWorkflowRuntime({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '0' });
  p = `/${t.projectId}/CALL`;
  await t.rt.call('RoleManager', 'init', 'default', {});
  roleIds.maker = await seedRole('maker', { Gadget: GADGET });
  roleIds.approver = await seedRole('approver', {});
  roleIds.senior = await seedRole('senior', {});
  clerk = bearer(t, 'clerk1', ['maker']);
  ann = bearer(t, 'ann', ['approver']);
  sam = bearer(t, 'sam', ['senior']);
  pat = bearer(t, 'pat', ['maker', 'approver']);
});
afterAll(() => t.stop());

const createGadget = (body: Record<string, unknown>, headers = clerk) => t.post(`${p}/Gadget/init`, body, headers);
const update = (id: string, body: Record<string, unknown>, headers = clerk) =>
  t.post(`${p}/Gadget/update/${id}`, body, headers);
const review = (id: string, action: 'approve' | 'reject', headers: Record<string, string>) =>
  t.post(`${p}/ApprovalManager/reviewApproval/${id}`, { action }, headers);
const getApproval = (id: string, headers: Record<string, string>) =>
  t.get(`${p}/ApprovalManager/getApproval/${id}`, headers);
const list = (body: Record<string, unknown>, headers: Record<string, string>) =>
  t.post(`${p}/ApprovalManager/listApprovals`, body, headers);
const gadgetDoc = (id: string) => t.rt.documents.get('gadgets', id);
/** the approval's listing document exists (listings read the streamed collection) */
const streamed = (approvalId: string, status = 'pending') =>
  waitFor(async () => (await t.rt.documents.get('approvals', approvalId))?.approvalStatus === status, {
    what: `approval ${approvalId} streamed as ${status}`,
  });
const actionableIds = async (headers: Record<string, string>, extra: Record<string, unknown> = {}) => {
  const r = await list({ actionable: true, classId: 'Gadget', limit: 100, ...extra }, headers);
  expect(r.status).toBe(200);
  return (r.body.approvals as { id: string }[]).map((a) => a.id);
};

/** a pending gadget creation (approvers: approver) */
async function pendingCreation(headers = clerk, name = 'G') {
  const r = await createGadget({ name, price: 10 }, headers);
  expect(r.status).toBe(200);
  expect(r.body.approval).toMatchObject({ approvalStatus: 'pending', approvers: ['approver'] });
  await streamed(r.body.approval.id);
  return { gadgetId: r.body.gadget.id as string, approvalId: r.body.approval.id as string };
}

/** an active gadget (trusted: created without approval) */
async function activeGadget(extra: Record<string, unknown> = {}) {
  const r = await createGadget({ name: 'active one', category: 'trusted', price: 10, ...extra });
  expect(r.body.gadget.status).toBe('active');
  return r.body.gadget.id as string;
}

describe('an approver without any ApprovalManager permission', () => {
  test('lists what it can act on (actionable: true) and reads those records; every other listing and record is refused', async () => {
    const mine = await pendingCreation();
    const id = await activeGadget();
    const seniors = (await update(id, { price: 5000 })).body.approval;
    expect(seniors).toMatchObject({ approvalStatus: 'pending', approvers: ['senior'] });
    await streamed(seniors.id);

    // the runtime's role check would refuse these: ann's only role grants nothing
    expect(await actionableIds(ann)).toContain(mine.approvalId);
    expect(await actionableIds(ann)).not.toContain(seniors.id);
    expect((await t.get(`${p}/ApprovalManager/listApprovals?actionable=true&classId=Gadget`, ann)).status).toBe(200);
    expect((await getApproval(mine.approvalId, ann)).status).toBe(200);

    for (const body of [{}, { actionable: false }, { classId: 'Gadget' }, { approvalStatus: 'pending' }]) {
      const refused = await list(body, ann);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 8008, classId: 'ApprovalManager' });
    }
    // a well-formed query is refused by the class (a malformed one, query or body, is a 400 from the schema first)
    const listed = await t.get(`${p}/ApprovalManager/listApprovals?limit=5`, ann);
    expect([listed.status, listed.body.code]).toEqual([403, 8008]);
    const other = await getApproval(seniors.id, ann);
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ code: 8008 });

    // a maker holds no approver role and no permission: nothing is open to it but an empty actionable list
    expect(await actionableIds(clerk)).toEqual([]);
    expect((await list({}, clerk)).status).toBe(403);
    expect((await getApproval(mine.approvalId, clerk)).status).toBe(403);
    // the permission still opens every listing and record
    const viewer = bearer(t, 'vera', [await seedRole('viewer', { ApprovalManager: ['listApprovals', 'getApproval'] })]);
    expect((await list({ classId: 'Gadget' }, viewer)).status).toBe(200);
    expect((await getApproval(seniors.id, viewer)).status).toBe(200);
  });
});

describe('the maker of a change', () => {
  test('cannot approve it (403 8007) and does not see it as actionable; may withdraw it; another approver approves', async () => {
    const made = await pendingCreation(pat, 'by pat');
    const own = await review(made.approvalId, 'approve', pat);
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({
      code: 8007,
      classId: 'ApprovalManager',
      details: { actor: { id: 'pat', type: 'program_management_user' } },
    });
    expect((await getApproval(made.approvalId, pat)).body.approvalStatus).toBe('pending');
    expect(await actionableIds(pat)).not.toContain(made.approvalId);
    expect(await actionableIds(ann)).toContain(made.approvalId);
    expect((await getApproval(made.approvalId, pat)).status).toBe(200); // an approver of it may still read it

    const byAnn = await review(made.approvalId, 'approve', ann);
    expect(byAnn.status).toBe(200);
    expect(byAnn.body.approvedBy).toMatchObject({ id: 'ann', roles: ['approver'] });
    await waitFor(async () => (await gadgetDoc(made.gadgetId))?.status === 'active', {
      what: 'approved by another approver',
    });

    const withdrawn = await pendingCreation(pat, 'withdrawn');
    expect((await review(withdrawn.approvalId, 'reject', pat)).body).toMatchObject({
      approvalStatus: 'rejected',
      approvedBy: { id: 'pat' },
    });
  });

  test('approves it when its rule says allowSelfApproval: true (set at run time)', async () => {
    const file = JSON.parse(
      fs.readFileSync(path.join(repoRoot(), 'test/fixtures/workflow-configs/Gadget.json'), 'utf8'),
    );
    const rules = file.rules.map((r: Record<string, unknown>) =>
      r.event === 'gadget_create' ? { ...r, allowSelfApproval: true } : r,
    );
    await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'Gadget', { classId: 'Gadget', rules });
    try {
      const made = await pendingCreation(pat, 'self-approved');
      expect((await getApproval(made.approvalId, pat)).body.allowSelfApproval).toBe(true);
      expect(await actionableIds(pat)).toContain(made.approvalId);
      const ok = await review(made.approvalId, 'approve', pat);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ approvalStatus: 'approved', approvedBy: { id: 'pat' } });
      await waitFor(async () => (await gadgetDoc(made.gadgetId))?.status === 'active', {
        what: 'self-approved gadget applied',
      });
      // the flag frees the maker only: eligibility still needs an active approver role
      const byClerk = await pendingCreation(clerk, 'clerk self');
      expect((await review(byClerk.approvalId, 'approve', clerk)).body.code).toBe(8001);
    } finally {
      await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'Gadget', { classId: 'Gadget', rules: file.rules });
    }
    // back to the default: refused again
    const again = await pendingCreation(pat, 'default again');
    expect((await review(again.approvalId, 'approve', pat)).body.code).toBe(8007);
  });
});

describe('before/after view', () => {
  test('getApproval, reviewApproval, the creating call and listing rows show changes [{op, path, before, after}] next to the patch', async () => {
    const id = await activeGadget({ name: 'viewed', price: 10 });
    const r = await update(id, { price: 5000, name: 'viewed 2' });
    const approval = r.body.approval;
    const expected = expect.arrayContaining([
      { op: 'replace', path: '/price', before: 10, after: 5000 },
      { op: 'replace', path: '/name', before: 'viewed', after: 'viewed 2' },
    ]);
    expect(approval.changes).toEqual(expected);
    expect(approval.jsonPatch).toEqual(expect.arrayContaining([{ op: 'replace', path: '/price', value: 5000 }]));
    expect(approval.oldValues).toBeUndefined();
    await streamed(approval.id);

    const got = await getApproval(approval.id, sam);
    expect(got.status).toBe(200);
    expect(got.body.changes).toEqual(expected);
    expect(got.body.changes).toHaveLength(got.body.jsonPatch.length);
    const row = (await list({ actionable: true, entityId: id }, sam)).body.approvals;
    expect(row).toHaveLength(1);
    expect(row[0].changes).toEqual(expected);
    expect(row[0].oldValues).toBeUndefined();
    const reviewed = await review(approval.id, 'approve', sam);
    expect(reviewed.body.changes).toEqual(expected);

    // a creation: nothing was there before
    const created = await pendingCreation(clerk, 'new one');
    const view = (await getApproval(created.approvalId, ann)).body.changes as {
      path: string;
      before?: unknown;
      after?: unknown;
    }[];
    expect(view).toEqual(expect.arrayContaining([{ op: 'add', path: '/name', after: 'new one' }]));
    expect(view.some((c) => 'before' in c)).toBe(false);
  });

  test('old values that do not fit inline beside the patch go to a blob: getApproval shows the view, listing rows leave it out', async () => {
    const oldPayload = 'o'.repeat(6000);
    const id = await activeGadget({ payload: oldPayload });
    const newPayload = 'n'.repeat(6000);
    const r = await update(id, { price: 5000, payload: newPayload });
    const approval = r.body.approval;
    expect(approval.isLargeApproval).toBe(false); // the patch alone fits
    const stored = JSON.parse((await t.rt.store.read('ApprovalManager', approval.id))!.stateJson).public.approval;
    expect(stored.oldValues).toBeUndefined();
    expect(stored.oldValuesFile).toBe(largeOldValuesFileName(id, approval.id));
    expect(JSON.stringify(stored).length).toBeLessThan(MAX_INLINE_PATCH_BYTES + 2000);
    expect(await t.rt.ports.blobs.stat(stored.oldValuesFile)).toBeTruthy();
    await streamed(approval.id);

    const got = (await getApproval(approval.id, sam)).body;
    expect(got.changes).toEqual(
      expect.arrayContaining([{ op: 'replace', path: '/payload', before: oldPayload, after: newPayload }]),
    );
    expect(got.oldValuesFile).toBeUndefined();
    const row = (await list({ actionable: true, entityId: id }, sam)).body.approvals[0];
    expect(row.id).toBe(approval.id);
    expect(row.changes).toBeUndefined();
    expect(row.jsonPatch).toEqual(got.jsonPatch);
  });

  test('a large approval (patch in a blob) has its view through getApproval', async () => {
    const id = await activeGadget();
    const payload = 'y'.repeat(12_000);
    const r = await update(id, { price: 2000, payload });
    expect(r.body.approval.isLargeApproval).toBe(true);
    await streamed(r.body.approval.id);
    const got = (await getApproval(r.body.approval.id, sam)).body;
    expect(got.changes).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/payload', after: payload },
        { op: 'replace', path: '/price', before: 10, after: 2000 },
      ]),
    );
    const row = (await list({ actionable: true, entityId: id }, sam)).body.approvals[0];
    expect(row).toMatchObject({ isLargeApproval: true, jsonPatch: [] });
    expect(row.changes).toBeUndefined();
  });
});

// last: it deactivates the approver role
describe('an approver whose role was deactivated', () => {
  test('is refused (403 8001) once the deactivation is deployed, although its token still names the role', async () => {
    const before = await pendingCreation(clerk, 'approved while active');
    expect((await review(before.approvalId, 'approve', ann)).status).toBe(200);

    const waiting = await pendingCreation(clerk, 'waits');
    expect(await actionableIds(ann)).toContain(waiting.approvalId);
    const r = await t.rt.call('RoleManager', 'updateStatus', 'default', { id: roleIds.approver, status: 'inactive' });
    expect((r.body as { role: { status: string } }).role.status).toBe('inactive');
    await snapshotWhere((roles) => !roles.some((x) => x.id === roleIds.approver), 'deactivation deployed');

    const refused = await review(waiting.approvalId, 'approve', ann); // ann's token still says ['approver']
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 8001, classId: 'ApprovalManager' });
    expect((await review(waiting.approvalId, 'reject', ann)).status).toBe(403);
    expect(await actionableIds(ann)).toEqual([]);
    expect((await getApproval(waiting.approvalId, ann)).status).toBe(403);
    expect((await getApproval(waiting.approvalId, ann)).body.code).toBe(8008);
    expect((await getApproval(waiting.approvalId, bearer(t, 'dave', [], { developer: true }))).status).toBe(200); // developer bypass
    const still = await t.rt.call('ApprovalManager', 'getApproval', waiting.approvalId, {});
    expect((still.body as { approvalStatus: string }).approvalStatus).toBe('pending');
  });
});
