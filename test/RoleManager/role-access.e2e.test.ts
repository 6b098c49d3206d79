/**
 * End to end: role data reaches the runtime's role check only through a
 * deployment (spec 5). A level-10 role gains access to one method and loses
 * it again; a lost snapshot is answered by getRolesForAuthentication and
 * regenerated. Cool-down 10 s here, so deployments inside it are scheduled
 * and run at its end: each step that must happen inside a cool-down (an update,
 * its deployment job, the check that the role check has not changed yet) has
 * those 10 s, under load too.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import { pmUser, review, rm, snapshotWhere, startRoleRuntime, until, type Headers } from './support';

const COOLDOWN_S = 10;
let t: TestRuntime;
let superUser: Headers;
let clerk: Headers;
let clerkId: string;

const target = () => `/${t.projectId}/CALL/ApprovalManager/listApprovals`;
const hasTarget = (s: any) =>
  s.roles.some((r: any) => r.id === clerkId && (r.permissions.ApprovalManager ?? []).includes('listApprovals'));
const jobResult = (jobId: string) =>
  until(
    async () => {
      const s = (await t.rt.jobs.status(jobId)).status;
      return s.status === 'completed' ? s.result : undefined;
    },
    { what: `deployment job ${jobId}` },
  );

beforeAll(async () => {
  t = await startRoleRuntime({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: String(COOLDOWN_S) });
  await t.rt.call('RoleManager', 'init', 'default', {});
  await snapshotWhere(t, (s) => s.roles.some((r: any) => r.id === 'super'));
  superUser = pmUser(t, 'root', ['super']);
  clerk = pmUser(t, 'carla', ['clerk']); // tokens carry role names (or ids)
  const created = await t.post(
    rm(t, 'createRole'),
    { name: 'clerk', permissions: { RoleManager: ['getRole'] } },
    superUser,
  );
  expect(created.status).toBe(201);
  clerkId = created.body.role.id;
  await review(t, created.body.approval.id, 'approve');
  // published by the deployment scheduled at the end of init's cool-down
  await until(
    async () => {
      const s = await t.rt.ports.roles.current();
      return s?.roles.some((r: any) => r.id === clerkId) ? s : undefined;
    },
    { timeoutMs: 30_000, what: 'clerk published' },
  );
});
afterAll(() => t.stop());

test('a level-10 role gains access to one method after the next deployment, and loses it again', async () => {
  expect((await t.get(`${rm(t, 'getRole')}?id=${clerkId}`, clerk)).status).toBe(200);
  expect((await t.get(target(), clerk)).status).toBe(403);
  const before = (await t.rt.ports.roles.current())!;

  // gain: the change applies to the role at once (made as the system identity, which role_update
  // approves at once; a user's update waits for an approver), the role check follows the deployment
  const granted = (await t.rt.call('RoleManager', 'updateRole', 'default', {
    id: clerkId,
    permissions: { RoleManager: ['getRole'], ApprovalManager: ['listApprovals'] },
  })) as { status: number; body: any };
  expect(granted.status).toBe(200);
  expect(granted.body.role.permissions.ApprovalManager).toEqual(['listApprovals']);
  const deferred = await jobResult(granted.body.deploymentJobId);
  expect(deferred.body).toMatchObject({
    isUpdated: false,
    deploymentScheduled: true,
    nextDeploymentAvailable: new Date(Date.parse(before.publishedAt) + COOLDOWN_S * 1000).toISOString(),
  });
  expect((await t.rt.ports.roles.current())!.version).toBe(before.version);
  expect((await t.get(target(), clerk)).status).toBe(403); // not deployed yet
  await waitFor(async () => (await t.get(target(), clerk)).status === 200, {
    timeoutMs: 30_000,
    what: 'access granted after the deployment',
  });
  const gained = (await t.rt.ports.roles.current())!;
  expect(hasTarget(gained)).toBe(true);
  expect(gained.version).toBe(before.version + 1);
  expect(Date.parse(gained.publishedAt) - Date.parse(before.publishedAt)).toBeGreaterThanOrEqual(COOLDOWN_S * 1000);

  // lose: still allowed until the next deployment, refused after it
  const revoked = (await t.rt.call('RoleManager', 'updateRole', 'default', {
    id: clerkId,
    permissions: { RoleManager: ['getRole'] },
  })) as { status: number; body: any };
  expect(revoked.status).toBe(200);
  expect((await jobResult(revoked.body.deploymentJobId)).body).toMatchObject({ deploymentScheduled: true });
  expect((await t.get(target(), clerk)).status).toBe(200);
  await waitFor(async () => (await t.get(target(), clerk)).status === 403, {
    timeoutMs: 30_000,
    what: 'access revoked after the deployment',
  });
  const lost = (await t.rt.ports.roles.current())!;
  expect(hasTarget(lost)).toBe(false);
  expect(lost.version).toBe(gained.version + 1);
  expect((await t.get(`${rm(t, 'getRole')}?id=${clerkId}`, clerk)).status).toBe(200);
});

test('snapshot lost: the role check asks getRolesForAuthentication and the snapshot is regenerated at once', async () => {
  const before = (await t.rt.ports.roles.current())!;
  // the previous test's last deployment has just run: its cool-down holds for about COOLDOWN_S more
  const cooldownEnds = Date.parse(before.publishedAt) + COOLDOWN_S * 1000;
  await t.rt.redis.del(t.rt.store.keys.roles);
  t.rt.roleSource.invalidate();
  expect(await t.rt.ports.roles.current()).toBeNull();

  // answered while the snapshot is missing: granted and refused as the roles say
  expect((await t.get(`${rm(t, 'getRole')}?id=${clerkId}`, clerk)).status).toBe(200);
  expect((await t.get(target(), clerk)).status).toBe(403);
  expect((await t.get(`${rm(t, 'listRoles')}`, superUser)).status).toBe(200);

  const restored = await snapshotWhere(t, (s) => s.version === before.version + 1, 'regenerated snapshot');
  expect(restored.hash).toBe(before.hash);
  expect(restored.roles).toEqual(before.roles);
  // a restoration does not wait for the cool-down: it is published while the cool-down
  // still holds (a deployment that waits is scheduled for its end and published then or later)
  expect(Date.parse(restored.publishedAt)).toBeLessThan(cooldownEnds);
  t.rt.roleSource.invalidate();
  expect((await t.get(`${rm(t, 'getRole')}?id=${clerkId}`, clerk)).status).toBe(200);
});

test('a fresh project: before RoleManager has an instance, the built-in super role holds and other roles do not', async () => {
  const fresh = await startRoleRuntime();
  try {
    const target = `/${fresh.projectId}/CALL/ApprovalManager/listApprovals`;
    expect(await fresh.rt.store.exists('RoleManager', 'default')).toBe(false);
    // the first call of a super user is answered, not refused while the regeneration it triggers runs
    expect((await fresh.get(target, pmUser(fresh, 'root', ['super']))).status).toBe(200);
    expect((await fresh.get(target, pmUser(fresh, 'carla', ['clerk']))).status).toBe(403);
    // the regeneration creates RoleManager's instance and publishes the super role
    await snapshotWhere(fresh, (s) => s.roles.some((r: any) => r.id === 'super'), 'snapshot published by regeneration');
  } finally {
    await fresh.stop();
  }
});
