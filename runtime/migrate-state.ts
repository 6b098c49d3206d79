/**
 * `cli migrate-state [classes...]`: brings every instance of the versioned
 * classes (ClassOptions.state) to the version their code reads, instead of
 * waiting for each one's next write. Each instance behind is written through
 * the dispatcher like any write (lease, commit, projection, effects): its
 * state is migrated when loaded and committed at the current version, so the
 * command runs beside a live service and may be stopped at any time. Run
 * again, it skips the instances already current: that is how it resumes.
 */
import { MIGRATE_STATE_METHOD, versionOf } from './actor/state-versions';
import { ActorError } from './errors';
import type { Runtime } from './runtime';

export class MigrateStateError extends Error {}

export interface MigrateStateClassReport {
  classId: string;
  version: number;
  /** instances seen */
  instances: number;
  /** written at the current version by this run */
  migrated: number;
  /** already at the current version */
  current: number;
  /** newer than this code (written by a newer deploy): left alone */
  newer: number;
  failed: number;
  /** the first failures, with their instance ids */
  failures: { instanceId: string; error: string }[];
}

export interface MigrateStateOptions {
  /** instances written at once (default 8) */
  concurrency?: number;
  /** after each batch of instance ids: instances seen so far */
  onProgress?: (classId: string, seen: number) => void;
}

const MAX_FAILURES_LISTED = 20;

export async function migrateState(
  rt: Runtime,
  classIds: string[],
  opts: MigrateStateOptions = {},
): Promise<MigrateStateClassReport[]> {
  const versioned = rt.registry
    .list()
    .filter((c) => c.options.state)
    .map((c) => c.id);
  const wrong = classIds.filter((id) => !versioned.includes(id));
  if (wrong.length) {
    throw new MigrateStateError(
      `migrate-state: ${wrong.join(', ')} declares no state version; versioned classes: ${versioned.join(', ') || 'none'}`,
    );
  }
  const concurrency = opts.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    throw new MigrateStateError(`migrate-state: concurrency must be an integer from 1 to 256, got ${concurrency}`);
  const reports: MigrateStateClassReport[] = [];
  for (const classId of classIds.length ? classIds : versioned) {
    const version = rt.registry.get(classId)!.options.state!.version;
    const report: MigrateStateClassReport = {
      classId,
      version,
      instances: 0,
      migrated: 0,
      current: 0,
      newer: 0,
      failed: 0,
      failures: [],
    };
    const one = async (instanceId: string): Promise<void> => {
      try {
        const stored = await rt.store.read(classId, instanceId);
        if (!stored) return; // deleted since the scan saw it
        const at = versionOf(JSON.parse(stored.stateJson) as { v?: unknown });
        if (at === version) report.current++;
        else if (at > version) report.newer++;
        else {
          await rt.call(classId, MIGRATE_STATE_METHOD, instanceId, {});
          report.migrated++;
        }
      } catch (err) {
        report.failed++;
        if (report.failures.length < MAX_FAILURES_LISTED) {
          const error = err instanceof ActorError ? `${err.code} ${err.message}` : (err as Error).message;
          report.failures.push({ instanceId, error });
        }
      }
    };
    for await (const ids of rt.store.instanceIds(classId)) {
      report.instances += ids.length;
      for (let i = 0; i < ids.length; i += concurrency) await Promise.all(ids.slice(i, i + concurrency).map(one));
      opts.onProgress?.(classId, report.instances);
    }
    reports.push(report);
  }
  return reports;
}
