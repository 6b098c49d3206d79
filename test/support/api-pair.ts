/**
 * Two api-only runtime processes on one project and one Redis, with no
 * projector anywhere and no MongoDB: every listing either process answers is
 * empty, so a rule that still holds across them reads no listing. A third,
 * in-process runtime with the worker role seeds the program (as the system
 * actor), signs tokens and runs queued jobs; given the projector role too
 * (`helperRoles`), it fills its own in-process store, which neither api
 * process reads, so a test can find ids there.
 */
import { startTestRuntime, type TestRuntime } from './harness';
import { spawnRuntime, type RuntimeProcess } from './process';
import { uniqueProjectId } from './redis';

export interface Answer {
  status: number;
  body: any;
}

export interface ApiPair {
  projectId: string;
  /** the in-process worker: seeding (`helper.rt.call`), tokens (`helper.token`), its own listings (`helper.rt.documents`) */
  helper: TestRuntime;
  /** the two api processes */
  processes: [RuntimeProcess, RuntimeProcess];
  /** POST to process 0 or 1 */
  post(on: 0 | 1, path: string, body: unknown, headers: Record<string, string>): Promise<Answer>;
  /** GET from process 0 or 1 */
  get(on: 0 | 1, path: string, headers: Record<string, string>): Promise<Answer>;
  stop(): Promise<void>;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: kept as text for the failure message
  }
  return { status: res.status, body };
}

export async function startApiPair(
  prefix: string,
  env: Record<string, string>,
  helperRoles = 'worker',
): Promise<ApiPair> {
  const projectId = uniqueProjectId(prefix);
  const helper = await startTestRuntime({ projectId, env: { ...env, ROLES: helperRoles } });
  let processes: RuntimeProcess[];
  try {
    processes = await Promise.all([
      spawnRuntime(projectId, { ...env, ROLES: 'api' }),
      spawnRuntime(projectId, { ...env, ROLES: 'api' }),
    ]);
  } catch (err) {
    await helper.stop();
    throw err;
  }
  const [a, b] = processes as [RuntimeProcess, RuntimeProcess];
  const base = (on: 0 | 1) => (on === 0 ? a : b).base;
  return {
    projectId,
    helper,
    processes: [a, b],
    post: async (on, path, body, headers) =>
      answer(
        await fetch(base(on) + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        }),
      ),
    get: async (on, path, headers) => answer(await fetch(base(on) + path, { headers })),
    stop: async () => {
      await Promise.all([a.stop(), b.stop()]);
      await helper.stop();
    },
  };
}

/** The answers' [status, code] pairs, sorted, for comparing who won and how the others were refused. */
export function outcomes(answers: Answer[]): [number, unknown][] {
  return answers
    .map((r): [number, unknown] => [r.status, r.status < 300 ? null : r.body?.code])
    .sort((x, y) => x[0] - y[0]);
}
