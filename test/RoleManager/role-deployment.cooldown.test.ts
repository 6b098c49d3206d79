/**
 * The deployment cool-down at its spec value (spec 8: 3 minutes), and init on
 * a fresh project. The role check starts from a hand-written snapshot (as a
 * deployment before RoleManager existed would leave it); init replaces it.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import { endUser, integration, jobOutcome, pmUser, rm, snapshotWhere, startRoleRuntime, type Headers } from './support';

const DEPLOY = 'saveRolesToLayerAndTriggerDeployment';
let t: TestRuntime;
let superUser: Headers;

beforeAll(async () => {
  // the spec's cool-down (test runtimes default to 0 so that seeded roles deploy at once)
  t = await startRoleRuntime({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '180' });
  await t.rt.redis.set(
    t.rt.store.keys.roles,
    JSON.stringify({
      version: 1,
      roles: [
        { id: 'super', name: 'super', level: 1, permissions: {} },
        { id: 'nothing', name: 'nothing', level: 10, permissions: {} },
      ],
    }),
  );
  t.rt.roleSource.invalidate();
  superUser = pmUser(t, 'root', ['super']);
});
afterAll(() => t.stop());

/** the delayed deployment tasks in the queue */
async function scheduledDeployments() {
  const delayed = await t.rt.jobs.queue.getDelayed();
  return delayed.filter((j) => j.data.kind === 'task' && j.data.task.method === DEPLOY);
}

test('init: refused to a member, an integration key and a level-10 user; the super user creates the singleton and its first snapshot', async () => {
  for (const who of [endUser(t), integration, pmUser(t, 'ned', ['nothing'])]) {
    const r = await t.post(rm(t, 'init'), {}, who);
    expect(r.status).toBe(403);
  }
  expect(await t.rt.store.exists('RoleManager', 'default')).toBe(false);
  const r = await t.post(rm(t, 'init'), {}, superUser);
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ roles: 1, deploymentJobId: expect.any(String) });
  const snap = await snapshotWhere(t, (s) => s.version === 2);
  expect(snap).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{64}$/), publishedAt: expect.any(String) });
  expect(snap.roles).toEqual([{ id: 'super', name: 'super', level: 1, permissions: {}, status: 'active' }]);
});

test('a second deployment inside the 3-minute cool-down is scheduled for its end, not published, and scheduled once', async () => {
  const published = (await t.rt.ports.roles.current())!;
  expect(published.version).toBe(2);
  // a change inside the cool-down (system actor: approved at once)
  const created = await t.rt.call('RoleManager', 'createRole', 'default', {
    name: 'late',
    permissions: { RoleManager: ['listRoles'] },
  });
  const late = (created.body as any).role;
  expect(late.status).toBe('active');
  await waitFor(async () => (await scheduledDeployments()).length === 1, { what: 'scheduled deployment' });

  const r = await t.post(rm(t, DEPLOY), {}, superUser);
  expect(r.status).toBe(202);
  const job = await jobOutcome(t, r.body.jobId, superUser);
  const next = new Date(Date.parse(published.publishedAt) + 180_000).toISOString();
  expect(job.result).toEqual({
    status: 200,
    body: {
      isUpdated: false,
      deploymentScheduled: true,
      nextDeploymentAvailable: next,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    },
  });
  expect(job.result.body.hash).not.toBe(published.hash);

  // not published: the role check still reads the old snapshot, the role data already has the role
  const still = (await t.rt.ports.roles.current())!;
  expect(still).toEqual(published);
  const late10 = pmUser(t, 'lou', ['late']);
  expect((await t.get(rm(t, 'listRoles'), late10)).status).toBe(403);
  const forAuth = await t.post(rm(t, 'getRolesForAuthentication'), { names: ['late'] }, superUser);
  expect(forAuth.body.roles.map((x: any) => x.id)).toEqual([late.id]);

  // one scheduled deployment for the end of the cool-down, whatever the number of attempts
  const tasks = await scheduledDeployments();
  expect(tasks).toHaveLength(1);
  expect(tasks[0].data.kind === 'task' && tasks[0].data.task.body).toEqual({ trigger: 'scheduled' });
  const runsAt = tasks[0].timestamp + (tasks[0].opts.delay ?? 0);
  expect(runsAt).toBeGreaterThanOrEqual(Date.parse(next));
  expect(runsAt).toBeLessThan(Date.parse(next) + 5_000);
});

test('wrong identities cannot trigger a deployment', async () => {
  for (const who of [endUser(t), integration, pmUser(t, 'ned', ['nothing'])]) {
    expect((await t.post(rm(t, DEPLOY), {}, who)).status).toBe(403);
  }
});
