/**
 * Audit log entries for tests: the `logs` listing (LogManager's projection)
 * names the entries; each is read in full from its LogManager instance.
 */
import type { TestRuntime } from './harness';

export interface FoundLogs {
  items: Record<string, any>[];
  total: number;
}

export async function findLogs(
  t: TestRuntime,
  filter: Record<string, unknown>,
  sort: Record<string, 1 | -1> = { timeStamp: 1 },
): Promise<FoundLogs> {
  const { items, total } = await t.rt.documents.find('logs', filter, { sort });
  const full = await Promise.all(
    items.map(async (d) => (await t.rt.call('LogManager', 'readEntry', String(d._id), {})).body as Record<string, any>),
  );
  return { items: full, total };
}
