/** The runtime's per-bucket streams, read across every bucket (one on a single server, REDIS_BUCKETS on a cluster). */
import type { BucketStreams } from '../../runtime/actor/state-store';
import type { Runtime } from '../../runtime/runtime';

type StreamName = 'outbox' | 'tasks' | 'events' | 'effects' | 'effectsDead';

/** entries of `stream` in every bucket */
export async function streamLength(rt: Runtime, stream: StreamName): Promise<number> {
  let n = 0;
  for (const b of rt.store.keys.all) n += await rt.redis.xlen(b[stream]);
  return n;
}

/** every entry of `stream`, bucket by bucket */
export async function streamEntries(rt: Runtime, stream: StreamName): Promise<[string, string[]][]> {
  const out: [string, string[]][] = [];
  for (const b of rt.store.keys.all) out.push(...(await rt.redis.xrange(b[stream], '-', '+')));
  return out;
}

/** the streams of instance `classId`/`id`'s bucket */
export function bucketOf(rt: Runtime, classId: string, id: string): BucketStreams {
  return rt.store.keys.of(classId, id);
}
