/**
 * Starts a runtime in this test process on the shared test Redis, with the
 * example classes, a unique project id and real HTTP.
 */
import type { Logger } from 'pino';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig, projectRoot } from '../../runtime/config';
import { Runtime } from '../../runtime/runtime';
import { createLogger } from '../../runtime/logger';
import type { IdentityType } from '../../runtime/types/identity';
import { redisEnv, uniqueProjectId } from './redis';

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';
export const TEST_API_KEY = 'test-integration-key-0123456789';
export const EXAMPLE_CLASS_DIR = path.join(projectRoot(), 'examples/classes');
export const EXAMPLE_SCHEMA_DIR = path.join(projectRoot(), 'examples/schemas');

export interface TestRuntime {
  rt: Runtime;
  base: string;
  projectId: string;
  token(identity: IdentityType, userId: string, roles?: string[]): string;
  post(
    pathname: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  get(pathname: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

export function testEnv(projectId: string, extra: Record<string, string> = {}): Record<string, string> {
  // a test that names a cluster (or a server) itself gets that one only
  const redis = extra.REDIS_CLUSTER_NODES
    ? { REDIS_URL: '' }
    : extra.REDIS_URL
      ? { REDIS_CLUSTER_NODES: '' }
      : redisEnv();
  return {
    PROJECT_ID: projectId,
    ...redis,
    JWT_SECRET: TEST_JWT_SECRET,
    INTEGRATION_API_KEYS: TEST_API_KEY,
    CLASS_DIRS: EXAMPLE_CLASS_DIR,
    SCHEMA_DIRS: EXAMPLE_SCHEMA_DIR,
    DATA_DIR: path.join(os.tmpdir(), `rt-test-${projectId}`),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL || 'silent',
    JOB_LOCK_MS: '3000',
    // roles seeded through RoleManager are deployed at once (the 3-minute cool-down is tested on its own)
    ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '0',
    // a push of the same HR record twice is a new push (the replay window has its own tests, which set it)
    HR_REPLAY_WINDOW_SECONDS: '0',
    // suites terminate members of a few seeded companies at will (the quarantine has its own tests, which set it)
    HR_QUARANTINE_COUNT: '0',
    HR_QUARANTINE_PERCENT: '0',
    ...extra,
  };
}

async function parse(res: Response) {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: body as any, headers: res.headers };
}

export async function startTestRuntime(
  /** `logger`: where the runtime logs (default: the level of LOG_LEVEL to stdout) */
  opts: { projectId?: string; env?: Record<string, string>; logger?: Logger } = {},
): Promise<TestRuntime> {
  const projectId = opts.projectId ?? uniqueProjectId();
  const env = testEnv(projectId, opts.env);
  const config = loadConfig(env);
  const rt = await Runtime.create(config, env.REDIS_URL, { logger: opts.logger ?? createLogger(env.LOG_LEVEL) });
  const port = await rt.start(0);
  const base = `http://127.0.0.1:${port}`;
  return {
    rt,
    base,
    projectId,
    token: (identity, userId, roles = []) => rt.tokens.sign({ sub: userId, identity, roles }),
    post: async (pathname, body, headers = {}) =>
      parse(
        await fetch(base + pathname, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    get: async (pathname, headers = {}) => parse(await fetch(base + pathname, { headers })),
    stop: () => rt.stop(),
  };
}

/** Poll `check` until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${opts.what ?? 'condition'}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
}

/** A role as tests seed it (RoleManager.setState's input; `super`, the built-in level-1 role, is always there). */
export interface RoleSeed {
  id: string;
  name: string;
  /** 1 or 10 (RoleManager refuses others) */
  level: number;
  /** class id → method names */
  permissions: object;
  status?: 'active' | 'inactive';
}

/**
 * Seeds roles through the real RoleManager, as an operator would: setState as
 * the system identity (validated against the permission catalogue, audit-logged),
 * then waits until the deployment it queues has published them and drops this
 * process's role cache, so the next call is checked against them. RoleManager
 * (and a worker, for the deployment job) must run in `t`.
 */
export async function seedRoles(t: TestRuntime, roles: readonly RoleSeed[]): Promise<void> {
  const mine = roles.filter((r) => r.id !== 'super').map((r) => ({ status: 'active' as const, ...r }));
  await t.rt.call('RoleManager', 'setState', 'default', { roles: mine });
  const wanted = new Map(mine.map((r) => [r.id, r.status]));
  await waitFor(
    async () => {
      const published = await t.rt.ports.roles.current();
      const active = new Set((published?.roles ?? []).map((r) => r.id));
      return [...wanted].every(([id, status]) => (status === 'active') === active.has(id));
    },
    { what: `roles ${[...wanted.keys()].join(', ')} deployed` },
  );
  t.rt.roleSource.invalidate();
}
