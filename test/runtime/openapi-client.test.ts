/**
 * The typed client (clients/client.ts: openapi-fetch over the generated
 * clients/api.d.ts) against a real runtime serving the service's classes:
 * its calls reach the routes the document names, carry the credentials, and
 * their answers are what the types say. The `@ts-expect-error` lines are the
 * typing's own test: the typecheck fails if one of them compiles.
 */
import * as path from 'node:path';
import { membershipClient, waitForJob, type ProjectId } from '../../clients/client';
import { projectRoot } from '../../runtime/config';
import { TEST_API_KEY, startTestRuntime, type TestRuntime } from '../support/harness';
import { EXAMPLE_SEED, exampleEmployee, seedExample } from '../support/seed-example';

const MEMBER_ID = EXAMPLE_SEED.members![0]!.id as string;

describe('the typed client', () => {
  let t: TestRuntime;
  /** the generated types name the document's project (`membership`); the test runtime has its own */
  let projectId: ProjectId;

  beforeAll(async () => {
    t = await startTestRuntime({ env: { CLASS_DIRS: path.join(projectRoot(), 'classes'), SCHEMA_DIRS: 'schemas' } });
    projectId = t.projectId as ProjectId;
    await seedExample(t);
  }, 60_000);
  afterAll(() => t?.stop());

  it("reads a member's profile with the member's token, typed as its answer schema", async () => {
    const api = membershipClient({ baseUrl: t.base, token: () => t.token('enduser', MEMBER_ID) });
    const { data, error, response } = await api.POST('/{projectId}/CALL/Member/getMemberProfile/{instanceId}', {
      params: { path: { projectId, instanceId: MEMBER_ID } },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    // typed fields, no casts
    const name: string = data!.name;
    expect(name).toBe('Amal');
    expect(data!.id).toBe(MEMBER_ID);
    expect(data!.company.id).toBe(EXAMPLE_SEED.companies![0]!.id);
    // @ts-expect-error a field the answer does not have
    expect(data!.member).toBeUndefined();
  });

  it('sends the integration API key and reads the HR contract envelope by status', async () => {
    const api = membershipClient({ baseUrl: t.base, apiKey: TEST_API_KEY });
    const ok = await api.POST('/members/hr/employee', { body: exampleEmployee() as never });
    expect(ok.response.status).toBe(200);
    expect(ok.data!.body.memberId).toBe(MEMBER_ID);
    const refused = await membershipClient({ baseUrl: t.base, apiKey: 'wrong' }).POST('/members/hr/employee', {
      body: exampleEmployee() as never,
    });
    expect(refused.response.status).toBe(401);
    expect(refused.error).toEqual({ success: false, error: { code: 10072, message: 'Invalid or missing API key' } });
    // @ts-expect-error a body without the fields spec 4.2 requires
    await api.POST('/members/hr/employee', { body: { employeeId: 'E1001' } }).catch(() => undefined);
  });

  it("queues a method and follows its job on the document's status route", async () => {
    const api = membershipClient({
      baseUrl: t.base,
      token: t.token('program_management_user', 'pm-client', ['super']),
    });
    const queued = await api.POST('/{projectId}/CALL/RoleManager/saveRolesToLayerAndTriggerDeployment/{instanceId}', {
      params: { path: { projectId, instanceId: 'default' } },
      body: { trigger: 'client test' },
    });
    expect(queued.response.status).toBe(202);
    const job = await waitForJob(api, projectId, queued.data!.jobId, { timeoutMs: 20_000 });
    expect(job).toMatchObject({
      jobId: queued.data!.jobId,
      classId: 'RoleManager',
      method: 'saveRolesToLayerAndTriggerDeployment',
      status: 'completed',
    });
    expect(job.result!.status).toBe(200);
    // another caller does not see it
    const other = membershipClient({
      baseUrl: t.base,
      token: t.token('program_management_user', 'pm-other', ['super']),
    });
    const hidden = await other.GET('/{projectId}/JOBS/{jobId}', {
      params: { path: { projectId, jobId: queued.data!.jobId } },
    });
    expect(hidden.response.status).toBe(404);
    expect(hidden.error).toMatchObject({ code: 1019 });
  });

  it('exchanges a refresh token on the documented route, and is refused an unknown one', async () => {
    const api = membershipClient({ baseUrl: t.base });
    const issued = await t.rt.sessions.issue({ sub: MEMBER_ID, type: 'enduser', refresh: true });
    const { data, response } = await api.POST('/{projectId}/auth/refresh', {
      params: { path: { projectId } },
      body: { refreshToken: issued.refreshToken! },
    });
    expect(response.status).toBe(200);
    expect(Object.keys(data!).sort()).toEqual(['expiresAt', 'refreshToken', 'token']);
    const again = await api.POST('/{projectId}/auth/refresh', {
      params: { path: { projectId } },
      body: { refreshToken: issued.refreshToken! },
    });
    expect(again.response.status).toBe(401);
    expect(again.error).toMatchObject({ code: 1007 });
  });
});
