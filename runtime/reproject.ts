/**
 * `cli reproject [classes...]`: rebuild document-store collections from actor
 * state. A shared store (MongoDB) is rebuilt by the CLI itself. The embedded
 * store lives in the memory of each running projector process, so the CLI
 * asks them to rebuild theirs (projector-control.ts) and follows their
 * progress; when none takes the request it says so and fails.
 */
import { progress, type CliProgress } from './cli-progress';
import type { Runtime } from './runtime';
import { askProjectors, type ControlReport } from './stream/projector-control';

export class ReprojectError extends Error {}

export interface ReprojectResult {
  /** instances projected (each process of an embedded store projects them all) */
  reprojected: number;
  store: string;
  /** embedded store: each projector process that rebuilt its store */
  processes?: { process: string; reprojected: number }[];
}

/** `classIds` that project no documents, as one line naming the classes that do; undefined when all do */
export function unknownClasses(rt: Runtime, classIds: string[]): string | undefined {
  const streamed = rt.projector.streamedClassIds();
  const wrong = classIds.filter((id) => !streamed.includes(id));
  if (!wrong.length) return undefined;
  const what = wrong.map((id) => (rt.registry.get(id) ? `${id} (it projects no documents)` : id)).join(', ');
  return `reproject: unknown class ${what}; classes with projections: ${streamed.join(', ') || 'none'}`;
}

export async function reproject(rt: Runtime, classIds: string[], opts: { idleMs: number }): Promise<ReprojectResult> {
  const refused = unknownClasses(rt, classIds);
  if (refused) throw new ReprojectError(refused);
  const only = classIds.length ? classIds : undefined;
  const store = rt.documents.kind;
  if (rt.documents.shared) {
    const bar = progress('reproject', { unit: 'instances' });
    try {
      const count = await rt.projector.rebuild(only, {
        drop: true,
        onProgress: (done, total) => bar.tick(done, total),
      });
      return { reprojected: count, store };
    } finally {
      bar.stop();
    }
  }
  // each process rebuilds the same instances: the bar follows the slowest
  // (made at the first report: nothing is shown when no process takes the request)
  let bar: CliProgress | undefined;
  const show = (all: ReadonlyMap<string, ControlReport>) => {
    const reports = [...all.values()];
    bar ??= progress('reproject', { unit: 'instances' });
    bar.tick(Math.min(...reports.map((r) => r.done)), Math.max(...reports.map((r) => r.total)));
  };
  let answer;
  try {
    answer = await askProjectors(
      rt.redis,
      rt.store.keys.base,
      { command: 'reproject', classIds: only },
      { idleMs: opts.idleMs, onReport: (_r, all) => show(all) },
    );
  } finally {
    bar?.stop();
  }
  if (answer.receivers === 0) {
    throw new ReprojectError(
      `reproject: no running service took the request: the embedded document store (no MONGODB_URL) lives in the memory of the service's ` +
        `projector processes and none is running for project ${rt.config.projectId} on this Redis (one rebuilds its store when it starts)`,
    );
  }
  const reports = [...answer.reports.values()];
  const failed = reports.filter((r) => r.state === 'failed');
  if (failed.length)
    throw new ReprojectError(`reproject: ${failed.map((r) => `${r.process} failed: ${r.error}`).join('; ')}`);
  if (answer.unfinished) {
    throw new ReprojectError(
      `reproject: ${answer.unfinished} of ${answer.receivers} service processes took the request but reported nothing for ${opts.idleMs / 1000} s; ` +
        'their logs tell why (a longer --timeout waits more)',
    );
  }
  const processes = reports.map((r) => ({ process: r.process, reprojected: r.done }));
  return { reprojected: Math.max(...processes.map((p) => p.reprojected)), store, processes };
}
