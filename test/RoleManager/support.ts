/** Shared helpers of the RoleManager tests. */
import { schemaRefusal } from '../support/schema-check';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';

/** The classes RoleManager works with (workflow, approvals, audit log) and nothing else. */
export const ROLE_CLASS_DIRS = 'classes/RoleManager,classes/Workflow,classes/ApprovalManager,classes/LogManager';

export async function startRoleRuntime(env: Record<string, string> = {}): Promise<TestRuntime> {
  return startTestRuntime({ env: { CLASS_DIRS: ROLE_CLASS_DIRS, SCHEMA_DIRS: 'schemas', ...env } });
}

export type Headers = Record<string, string>;

export function pmUser(t: TestRuntime, userId: string, roles: string[]): Headers {
  return { authorization: `Bearer ${t.token('program_management_user', userId, roles)}` };
}

/** A developer: a program management user whose token says `developer: true` (it still needs a role that passes the role check). */
export function developer(t: TestRuntime, userId: string, roles: string[]): Headers {
  return {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: userId, identity: 'program_management_user', roles, developer: true })}`,
  };
}

export function endUser(t: TestRuntime): Headers {
  return { authorization: `Bearer ${t.token('enduser', 'member-1')}` };
}

export const integration: Headers = { 'x-api-key': TEST_API_KEY };

export function rm(t: TestRuntime, method: string): string {
  return `/${t.projectId}/CALL/RoleManager/${method}/default`;
}

/** The published role snapshot, once `check` holds for it. */
export async function snapshotWhere(t: TestRuntime, check: (s: any) => boolean, what = 'role snapshot'): Promise<any> {
  return waitFor(
    async () => {
      const s = await t.rt.ports.roles.current();
      return s && check(s) ? s : undefined;
    },
    { what },
  );
}

/** Creates an active level-10 role as the system identity (auto-approved) and waits until it is published. */
export async function seedRole(t: TestRuntime, name: string, permissions: Record<string, string[]>): Promise<string> {
  const r = await t.rt.call('RoleManager', 'createRole', 'default', { name, permissions });
  const role = (r.body as { role: { id: string; status: string } }).role;
  if (role.status !== 'active') throw new Error(`seeded role ${name} is ${role.status}`);
  await snapshotWhere(t, (s) => s.roles.some((x: any) => x.id === role.id), `snapshot with ${name}`);
  return role.id;
}

/**
 * Approves or rejects an approval as `ann`, a developer (spec 3.2's developer
 * bypass). Approvers must hold an active role the record names, as deployed;
 * these tests own the project's roles and count them, so they add
 * no `approver` role and review as a developer instead.
 */
export async function review(t: TestRuntime, approvalId: string, action: 'approve' | 'reject') {
  const dev = {
    authorization: `Bearer ${t.rt.tokens.sign({ sub: 'ann', identity: 'program_management_user', roles: ['approver'], developer: true })}`,
  };
  const r = await t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, dev);
  if (r.status !== 200) throw new Error(`review ${action} of ${approvalId}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** The role as stored in the instance (read as the system identity). */
export async function storedRole(t: TestRuntime, id: string): Promise<any> {
  return ((await t.rt.call('RoleManager', 'getRole', 'default', { id })).body as { role: unknown }).role;
}

/** Waits until the stored role satisfies `check`. */
export async function roleWhere(
  t: TestRuntime,
  id: string,
  check: (r: any) => boolean,
  what = `role ${id}`,
): Promise<any> {
  return waitFor(
    async () => {
      const r = await storedRole(t, id);
      return check(r) ? r : undefined;
    },
    { what },
  );
}

/** waitFor, typed without the falsy values it never resolves with */
export async function until<T>(
  check: () => Promise<T> | T,
  opts: Parameters<typeof waitFor>[1] = {},
): Promise<NonNullable<T>> {
  return (await waitFor(check, opts)) as NonNullable<T>;
}

/** The outcome of a job fetched over HTTP as its caller. */
export async function jobOutcome(t: TestRuntime, jobId: string, headers: Headers): Promise<any> {
  return waitFor(
    async () => {
      const r = await t.get(`/${t.projectId}/JOBS/${jobId}`, headers);
      return r.status === 200 && (r.body.status === 'completed' || r.body.status === 'failed') ? r.body : undefined;
    },
    { what: `job ${jobId}` },
  );
}

export const schemaCheck = (method: string, raw: Record<string, unknown>) => schemaRefusal('RoleManager', method, raw);
