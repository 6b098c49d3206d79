/**
 * The Role status machine of spec 3.3, table-driven through HTTP:
 * createRole sets `inactive`; the role_create workflow (approval) moves it to
 * `active`; updateStatus changes the status through role_status_update and
 * its approval. Each row starts from a role in a given state, makes one
 * request, optionally reviews its approval, and checks the stored, streamed
 * and published outcome.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import { pmUser, review, rm, roleWhere, snapshotWhere, startRoleRuntime, storedRole, type Headers } from './support';

let t: TestRuntime;
let superUser: Headers;
let counter = 0;

beforeAll(async () => {
  t = await startRoleRuntime({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '0' });
  await t.rt.call('RoleManager', 'init', 'default', {});
  await snapshotWhere(t, (s) => s.roles.some((r: any) => r.id === 'super'));
  superUser = pmUser(t, 'root', ['super']);
});
afterAll(() => t.stop());

type From = 'none' | 'waiting' | 'active' | 'inactive' | 'super';
type Request = 'create' | 'active' | 'inactive';
type Review = 'approve' | 'reject' | null;
type Outcome = { status: 'active' | 'inactive'; waiting: boolean } | { http: number; code: number };

const TABLE: [From, Request, Review, Outcome][] = [
  // creation (spec 3.3: createRole sets inactive; workflow moves inactive to active)
  ['none', 'create', null, { status: 'inactive', waiting: true }],
  ['none', 'create', 'approve', { status: 'active', waiting: false }],
  ['none', 'create', 'reject', { status: 'inactive', waiting: false }],
  // updateStatus through the workflow
  ['active', 'inactive', null, { status: 'active', waiting: true }],
  ['active', 'inactive', 'approve', { status: 'inactive', waiting: false }],
  ['active', 'inactive', 'reject', { status: 'active', waiting: false }],
  ['inactive', 'active', 'approve', { status: 'active', waiting: false }],
  ['inactive', 'active', 'reject', { status: 'inactive', waiting: false }],
  // refused
  ['active', 'active', null, { http: 409, code: 9008 }],
  ['inactive', 'inactive', null, { http: 409, code: 9008 }],
  ['waiting', 'active', null, { http: 409, code: 9003 }],
  ['waiting', 'inactive', null, { http: 409, code: 9003 }],
  ['super', 'inactive', null, { http: 409, code: 9004 }],
  ['super', 'active', null, { http: 409, code: 9004 }],
];

async function create(): Promise<{ id: string; approvalId: string }> {
  const r = await t.post(rm(t, 'createRole'), { name: `role ${++counter}` }, superUser);
  expect(r.status).toBe(201);
  return { id: r.body.role.id, approvalId: r.body.approval.id };
}

/** a role in state `from`; undefined for `none` */
async function arrange(from: From): Promise<string | undefined> {
  if (from === 'none') return undefined;
  if (from === 'super') return 'super';
  const { id, approvalId } = await create();
  if (from === 'waiting') return id;
  await review(t, approvalId, from === 'active' ? 'approve' : 'reject');
  await roleWhere(t, id, (r) => r.pendingApprovalId === null && r.status === from);
  if (from === 'active') await snapshotWhere(t, (s) => s.roles.some((r: any) => r.id === id));
  return id;
}

test.each(TABLE)('%s --%s--> review %s', async (from, request, reviewAction, outcome) => {
  let id = await arrange(from);
  let approvalId: string | undefined;
  if (request === 'create') {
    ({ id, approvalId } = await create());
  } else {
    const r = await t.post(rm(t, 'updateStatus'), { id, status: request }, superUser);
    if ('http' in outcome) {
      expect([r.status, r.body.code]).toEqual([outcome.http, outcome.code]);
      const after = await storedRole(t, id!);
      expect(after.status).toBe(from === 'waiting' ? 'inactive' : from === 'super' ? 'active' : from);
      return;
    }
    expect(r.status).toBe(200);
    expect(r.body.approval).toMatchObject({
      event: 'role_status_update',
      approvalStatus: 'pending',
      entityNewStatus: request,
    });
    expect(r.body.role.status).toBe(from); // unchanged until approved
    approvalId = r.body.approval.id;
  }
  if ('http' in outcome) throw new Error('a refused row must not create');
  if (reviewAction) await review(t, approvalId!, reviewAction);
  const role = await roleWhere(
    t,
    id!,
    (r) => r.status === outcome.status && (r.pendingApprovalId !== null) === outcome.waiting,
    `role ${outcome.status}`,
  );
  expect(role.pendingApprovalId).toBe(outcome.waiting ? approvalId : null);
  await waitFor(
    async () => {
      const d = await t.rt.documents.get('roles', id!);
      return d?.status === outcome.status && d.pendingApprovalId === role.pendingApprovalId;
    },
    { what: 'streamed status' },
  );
  if (outcome.status === 'active')
    await snapshotWhere(t, (s) => s.roles.some((r: any) => r.id === id), 'active role published');
  else await snapshotWhere(t, (s) => !s.roles.some((r: any) => r.id === id), 'inactive role not published');
});
