/**
 * Requests from the operator CLI to the running projectors, through Redis.
 *
 * An embedded document store lives in each projector process's memory, so a
 * CLI process cannot rebuild it or read how far it is behind: it asks them.
 * A request is published on the project's control channel; PUBLISH answers
 * how many projector processes received it. Each one answers on the
 * request's own reply stream: `started`, then `progress` reports while it
 * works, then `done` (with its result) or `failed`. The CLI reads the stream
 * until every process that took the request has finished, or until none has
 * reported for its deadline. Reply streams expire on their own.
 *
 * On a Redis Cluster a published message reaches the subscribers of every
 * node, but PUBLISH counts those of the node it was sent to only: the
 * receivers are then counted on every node (PUBSUB NUMSUB) before it is
 * published. A reply stream is one key, read and written in its own slot.
 */
import { randomUUID } from 'node:crypto';
import type { RedisHealth } from '../redis/client';
import { commandTimeoutOf, duplicate, isCluster, type RedisConnection } from '../redis/connection';

export type ControlRequest = { command: 'reproject'; classIds?: string[] } | { command: 'lag' };

export type ReportState = 'started' | 'progress' | 'done' | 'failed';

export interface ControlReport {
  /** the answering process (its projector consumer name) */
  process: string;
  state: ReportState;
  done: number;
  total: number;
  /** the result of a `done` (JSON) */
  result?: unknown;
  /** why it `failed` */
  error?: string;
}

/** what a projector process does with a request: `report` tells the CLI its progress */
export type ControlHandler = (
  request: ControlRequest,
  report: (done: number, total: number) => void,
) => Promise<unknown>;

/** a reply stream is kept this long after its last report */
const REPLY_TTL_SECONDS = 3600;
/** the longest blocking read of a reply stream */
const READ_BLOCK_MS = 1000;
/** progress reports at most this often per process */
const REPORT_EVERY_MS = 250;

export function controlChannel(base: string): string {
  return `${base}:projector:control`;
}

function replyKey(base: string, id: string): string {
  return `${base}:projector:reply:${id}`;
}

/** The projector's side: takes the requests published on the channel, one at a time. */
export class ControlListener {
  private sub?: RedisConnection;
  /** rebuild requests run one after another */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisConnection,
    private readonly base: string,
    private readonly process: string,
    private readonly handle: ControlHandler,
    private readonly onError: (err: unknown) => void,
    private readonly redisHealth?: RedisHealth,
  ) {}

  async start(): Promise<void> {
    // a subscribed connection takes no other command, and has no command time-out to hit while it waits
    const sub = duplicate(this.redis, { commandTimeout: undefined });
    this.redisHealth?.watch(sub, 'projector-control');
    this.sub = sub;
    sub.on('message', (_channel: string, message: string) => {
      let parsed: { id: string; request: ControlRequest };
      try {
        parsed = JSON.parse(message) as { id: string; request: ControlRequest };
      } catch (err) {
        this.onError(err);
        return;
      }
      // a lag request is answered at once, even while a rebuild runs; rebuilds one after another
      if (parsed.request.command === 'lag') void this.run(parsed.id, parsed.request);
      else this.chain = this.chain.then(() => this.run(parsed.id, parsed.request));
    });
    await sub.subscribe(controlChannel(this.base));
  }

  private async reply(
    id: string,
    state: ReportState,
    done: number,
    total: number,
    extra: string[] = [],
  ): Promise<void> {
    const key = replyKey(this.base, id);
    await this.redis
      .multi()
      .xadd(key, '*', 'p', this.process, 's', state, 'd', String(done), 't', String(total), ...extra)
      .expire(key, REPLY_TTL_SECONDS)
      .exec();
  }

  private async run(id: string, request: ControlRequest): Promise<void> {
    try {
      await this.reply(id, 'started', 0, 0);
      let lastReport = 0;
      let reporting: Promise<void> = Promise.resolve();
      const result = await this.handle(request, (done, total) => {
        if (Date.now() - lastReport < REPORT_EVERY_MS) return;
        lastReport = Date.now();
        reporting = reporting.then(() => this.reply(id, 'progress', done, total)).catch(this.onError);
      });
      await reporting;
      const n = typeof result === 'object' && result && 'count' in result ? Number(result.count) : 0;
      await this.reply(id, 'done', n, n, ['r', JSON.stringify(result ?? null)]);
    } catch (err) {
      this.onError(err);
      await this.reply(id, 'failed', 0, 0, ['e', err instanceof Error ? err.message : String(err)]).catch(this.onError);
    }
  }

  async stop(): Promise<void> {
    this.sub?.disconnect();
    this.sub = undefined;
    await this.chain.catch(() => undefined);
  }
}

export interface AskOptions {
  /** give up when no process has reported for this long */
  idleMs: number;
  /** every report as it arrives */
  onReport?: (report: ControlReport, all: ReadonlyMap<string, ControlReport>) => void;
}

export interface AskAnswer {
  /** how many projector processes received the request (0: none is running) */
  receivers: number;
  /** the last report of each process that answered */
  reports: Map<string, ControlReport>;
  /** receivers that did not finish (done or failed) before the deadline */
  unfinished: number;
}

function parseReport(fields: string[]): ControlReport {
  const f: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
  return {
    process: f.p,
    state: f.s as ReportState,
    done: Number(f.d ?? 0),
    total: Number(f.t ?? 0),
    ...(f.r !== undefined ? { result: JSON.parse(f.r) as unknown } : {}),
    ...(f.e !== undefined ? { error: f.e } : {}),
  };
}

/**
 * Publishes `message` on `channel`: how many subscribers received it. On a
 * cluster, the subscribers of every node (masters and replicas: a subscriber
 * may be connected to either), counted just before it is published.
 */
async function publishCounted(redis: RedisConnection, channel: string, message: string): Promise<number> {
  if (!isCluster(redis)) return redis.publish(channel, message);
  // the nodes are known once the cluster's slots are
  if (redis.status !== 'ready') await redis.ping();
  const counts = await Promise.all(
    redis.nodes('all').map(async (node) => {
      const reply = (await node.pubsub('NUMSUB', channel)) as [string, number | string];
      return Number(reply[1] ?? 0);
    }),
  );
  const local = await redis.publish(channel, message);
  return Math.max(
    local,
    counts.reduce((a, b) => a + b, 0),
  );
}

/** The CLI's side: publish `request` and wait for every projector process that took it. */
export async function askProjectors(
  redis: RedisConnection,
  base: string,
  request: ControlRequest,
  opts: AskOptions,
): Promise<AskAnswer> {
  const id = randomUUID();
  const key = replyKey(base, id);
  const reports = new Map<string, ControlReport>();
  const receivers = await publishCounted(redis, controlChannel(base), JSON.stringify({ id, request }));
  if (receivers === 0) return { receivers, reports, unfinished: 0 };
  // its time-out covers the blocking read
  const timeout = commandTimeoutOf(redis);
  const reader = duplicate(redis, timeout ? { commandTimeout: timeout + READ_BLOCK_MS } : {});
  reader.on('error', () => undefined);
  const finished = () => [...reports.values()].filter((r) => r.state === 'done' || r.state === 'failed').length;
  try {
    let last = '0-0';
    let lastHeard = Date.now();
    while (finished() < receivers && Date.now() - lastHeard < opts.idleMs) {
      const block = Math.max(1, Math.min(READ_BLOCK_MS, opts.idleMs - (Date.now() - lastHeard)));
      const res = await reader.xread('BLOCK', block, 'STREAMS', key, last);
      for (const [entryId, fields] of res?.[0]?.[1] ?? []) {
        last = entryId;
        lastHeard = Date.now();
        const report = parseReport(fields);
        reports.set(report.process, report);
        opts.onReport?.(report, reports);
      }
    }
    return { receivers, reports, unfinished: receivers - finished() };
  } finally {
    reader.disconnect();
    await redis.del(key).catch(() => undefined);
  }
}
