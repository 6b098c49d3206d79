/**
 * Shared by the import tests: a runtime of the service's classes seeded with
 * the example program (examples/seed.json), optionally calling the local HR
 * server of the Member tests, and the audit entries written about an entity.
 */
import { startTestRuntime, type TestRuntime } from '../support/harness';
import { seedExample } from '../support/seed-example';
import type { FakeHr } from '../Member/fake-hr';

type Entry = Record<string, any>;

/** the settings that point the service at `hr`, with a short timeout and one quick retry */
export function hrEnv(hr: FakeHr): Record<string, string> {
  return { HR_BASE_URL: hr.url, HR_TIMEOUT_MS: '2000', HR_RETRIES: '1', HR_RETRY_BASE_MS: '10' };
}

/** a runtime of the service's classes (with `hr` as its HR system when given), the example program seeded */
export async function startSeededRuntime(hr?: FakeHr): Promise<TestRuntime> {
  const t = await startTestRuntime({
    env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas', ...(hr ? hrEnv(hr) : {}) },
  });
  try {
    await seedExample(t);
  } catch (err) {
    await t.stop();
    throw err;
  }
  return t;
}

/** the audit entries (LogManager) about an entity */
export async function auditOf(t: TestRuntime, entityId: string): Promise<Entry[]> {
  const out: Entry[] = [];
  for await (const ids of t.rt.store.instanceIds('LogManager')) {
    for (const id of ids) {
      const s = await t.rt.store.read('LogManager', id);
      const log = s && JSON.parse(s.stateJson).private?.log;
      if (log?.entityId === entityId) out.push(log);
    }
  }
  return out;
}
