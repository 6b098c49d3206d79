/**
 * Prometheus metrics (prom-client), served at /metrics.
 *
 * One registry per runtime (tests run several in one process). Calls are
 * counted and timed at one place, the HTTP layer's callFrom; their labels are
 * the registry's own class and method names and kinds, never what a caller
 * sent (an unknown class or method is `unknown`), so the series stay bounded.
 * Queue depth, the oldest waiting job, due delayed tasks and pending committed
 * effects are gauges read from Redis when /metrics is scraped: nothing is paid
 * per call. Caches count their hits and misses in plain number fields, added to
 * the counters at scrape. Waits for a busy instance and QUEUED_WRITE retries and
 * failures are told to this object (a method call, only when they happen), into
 * label children made once per class or method.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RedisConnection } from './redis/connection';
import type { Queue } from 'bullmq';
import type { RegisteredMethod } from './actor/registry';
import type { DocumentGauge } from './types/documents';
import type { DocumentStore } from './stream/document-store';

export interface MetricsSources {
  /** the QUEUED_WRITE queues, one per bucket (JobQueue.queues) */
  queues?: Pick<Queue, 'getJobCounts' | 'getWaiting'>[];
  /** where the committed-effects stream is kept */
  redis?: RedisConnection;
  /** the committed-effects streams' keys, one per bucket */
  effectsKeys?: string[];
  /** the dead-letter streams of committed effects, one per bucket */
  effectsDeadKeys?: string[];
  /** mail and SMS messages given up on (MessageDelivery.deadLetterCount) */
  messageDeadLetters?: () => Promise<number>;
  /** the stream projector (its lag is undefined when this process does not project) */
  projector?: { lag(opts: { byCollection: true }): Promise<ProjectorLagReading | undefined> };
  /** delayed tasks past their due time and not run yet (JobQueue.dueTasks) */
  tasks?: { dueTasks(): Promise<{ due: number; lateSeconds: number }> };
  /** in-process caches by name: their hit and miss counts, read at scrape */
  caches?: Record<string, CacheCounts>;
  /** WRITEs run on a cached snapshot without the lease, by how they ended (Dispatcher.optimisticWrites), read at scrape */
  optimisticWrites?: Readonly<Record<'answered' | 'retried', number>>;
  /** the classes' document gauges (CollectionOptions.gauges), counted at scrape */
  documentGauges?: { collection: string; gauge: DocumentGauge }[];
  documents?: Pick<DocumentStore, 'count'>;
}

/** A projector's lag as /metrics reads it (Projector.lag with byCollection): in total and by collection. */
export interface ProjectorLagReading {
  entries: number;
  seconds: number;
  collections?: Record<string, { entries: number; seconds: number }>;
}

/** What a cache counts of itself: plain fields incremented on each look-up, read when metrics are scraped. */
export interface CacheCounts {
  readonly hits: number;
  readonly misses: number;
}

const UNKNOWN = 'unknown';

interface MethodSeries {
  labels: { class: string; method: string; kind: string };
  duration: HistogramSeries;
  /** calls by HTTP status, counted here and added to runtime_calls_total at scrape */
  calls: Map<number, { counted: number; added: number; status: string }>;
}

/** One label set of a CallHistogram: observations per bucket (not cumulative), their sum and count. */
interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly counts: number[];
  sum: number;
  count: number;
  /** observed since the last reset: only these are exported, as prom-client's histogram does */
  live: boolean;
}

/**
 * A histogram for the per-call duration, exported exactly as prom-client's
 * Histogram exports one (same values, labels, order and names; the registry
 * reads any metric through get()), but observed without hashing its labels
 * on every call: a prom-client observe hashed and validated them each time,
 * about 2 % of a READ's CPU. Each label set is made once and kept by its caller.
 */
class CallHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all: HistogramSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly upperBounds: readonly number[],
    registers: Registry[],
  ) {
    for (const r of registers) r.registerMetric(this as unknown as Histogram);
  }

  series(labels: Readonly<Record<string, string>>): HistogramSeries {
    const s: HistogramSeries = { labels, counts: this.upperBounds.map(() => 0), sum: 0, count: 0, live: false };
    this.all.push(s);
    return s;
  }

  observe(s: HistogramSeries, value: number): void {
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        s.counts[i] += 1;
        break;
      }
    }
    s.sum += value;
    s.count += 1;
    s.live = true;
  }

  /** as prom-client's Histogram.get: each value's labels with the series' labels merged in */
  async get(): Promise<{ name: string; help: string; type: string; values: unknown[]; aggregator: string }> {
    const data = await this.getForPromString();
    data.values = data.values.map((v) => {
      const { sharedLabels, labels, ...rest } = v as {
        sharedLabels: Record<string, string>;
        labels: Record<string, unknown>;
      };
      return { ...rest, labels: { ...labels, ...sharedLabels } };
    });
    return data;
  }

  /** as prom-client's Histogram.getForPromString (what the registry's text format reads) */
  getForPromString(): Promise<{
    name: string;
    help: string;
    type: string;
    values: unknown[];
    aggregator: string;
  }> {
    const bucket = `${this.name}_bucket`;
    const values: unknown[] = [];
    for (const s of this.all) {
      if (!s.live) continue;
      let acc = 0;
      this.upperBounds.forEach((le, i) => {
        acc += s.counts[i];
        values.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: bucket, exemplar: null });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket, exemplar: null },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count`, exemplar: undefined },
      );
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  reset(): void {
    for (const s of this.all) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
      s.live = false;
    }
  }
}

export class RuntimeMetrics {
  readonly register = new Registry();
  private readonly calls: Counter<'class' | 'method' | 'kind' | 'status'>;
  private readonly duration: CallHistogram;
  private readonly busy: Counter<'class' | 'method'>;
  private readonly instanceWait: Histogram<'class'>;
  private readonly queuedRetries: Counter<'class' | 'method'>;
  private readonly queuedFailures: Counter<'class' | 'method'>;
  private readonly messagesSent: Counter<'port'>;
  private readonly messagesFailed: Counter<'port'>;
  private readonly messagesRetried: Counter<'port'>;
  private readonly messageDelivery: Histogram<'port'>;
  private readonly journaled: Counter<'journal' | 'class' | 'method' | 'status' | 'code'>;
  private readonly journalAppend: Histogram<'journal'>;
  private readonly journalFailed: Counter<'journal'>;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.register];
    collectDefaultMetrics({ register: this.register });
    const series = this.series;
    this.calls = new Counter({
      name: 'runtime_calls_total',
      help: 'Calls answered over HTTP, by class, method, kind and HTTP status',
      labelNames: ['class', 'method', 'kind', 'status'],
      registers,
      // counted per call in plain numbers (observe), added here: a labelled inc hashed its labels on every call
      collect() {
        for (const s of series.values()) {
          for (const c of s.calls.values()) {
            if (c.counted === c.added) continue;
            this.inc({ ...s.labels, status: c.status }, c.counted - c.added);
            c.added = c.counted;
          }
        }
      },
    });
    this.duration = new CallHistogram(
      'runtime_call_duration_seconds',
      'Time to answer a call over HTTP, by class, method and kind',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    );
    this.busy = new Counter({
      name: 'runtime_instance_busy_total',
      help: 'Calls answered 503 INSTANCE_BUSY (another process held the instance past the budget)',
      labelNames: ['class', 'method'],
      registers,
    });
    this.instanceWait = new Histogram({
      name: 'runtime_instance_wait_seconds',
      help: 'Time a write waited for a busy instance (a writer ahead in this process, or another process holding its lease), observed only for writes that waited, by class',
      labelNames: ['class'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.queuedRetries = new Counter({
      name: 'runtime_queued_write_retries_total',
      help: 'QUEUED_WRITE attempts beyond the first (a job run again after an attempt failed), by class and method',
      labelNames: ['class', 'method'],
      registers,
    });
    this.queuedFailures = new Counter({
      name: 'runtime_queued_write_failures_total',
      help: 'QUEUED_WRITE jobs that failed for good (refused, or failed on their last attempt), by class and method',
      labelNames: ['class', 'method'],
      registers,
    });
    this.journalAppend = new Histogram({
      name: 'runtime_journal_append_seconds',
      help: "Time from a journaled call's answer to its entry stored in the journal (the ledger's lag), by journal",
      labelNames: ['journal'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    });
    this.journalFailed = new Counter({
      name: 'runtime_journal_append_failures_total',
      help: 'Journal entries that could not be stored (the call was answered; its entry is missing), by journal',
      labelNames: ['journal'],
      registers,
    });
    const gauges = sources.documentGauges ?? [];
    const documents = sources.documents;
    if (gauges.length && documents) {
      new Gauge({
        name: 'runtime_document_count',
        help: "Documents of a collection matching a class's gauge (CollectionOptions.gauges), counted at scrape",
        labelNames: ['collection', 'gauge'],
        registers,
        async collect() {
          const counts = await Promise.all(
            gauges.map((g) => documents.count(g.collection, g.gauge.filter).catch(() => undefined)),
          );
          this.reset();
          gauges.forEach((g, i) => {
            const n = counts[i];
            if (n !== undefined) this.set({ collection: g.collection, gauge: g.gauge.name }, n);
          });
        },
      });
    }
    this.journaled = new Counter({
      name: 'runtime_journal_entries_total',
      help: "Calls of journaled methods (MethodOptions.journal) answered over HTTP, by journal, class, method, HTTP status and the error code answered ('' for none)",
      labelNames: ['journal', 'class', 'method', 'status', 'code'],
      registers,
    });
    // mail and SMS delivery, counted by the worker process that sends (MessageDelivery tells)
    this.messagesSent = new Counter({
      name: 'runtime_messages_sent_total',
      help: 'Mail and SMS messages the transport accepted, by port (mail, sms), counted by the worker that sent them',
      labelNames: ['port'],
      registers,
    });
    this.messagesFailed = new Counter({
      name: 'runtime_messages_failed_total',
      help: 'Mail and SMS messages given up on (refused for good, or out of attempts) and dead-lettered, by port',
      labelNames: ['port'],
      registers,
    });
    this.messagesRetried = new Counter({
      name: 'runtime_messages_retried_total',
      help: 'Mail and SMS delivery attempts beyond the first (a backoff retry, or an operator retrying a dead letter), by port',
      labelNames: ['port'],
      registers,
    });
    this.messageDelivery = new Histogram({
      name: 'runtime_message_delivery_seconds',
      help: "Time from a message's hand-over to the delivery queue (after its commit) to its acceptance by the transport, retries included, by port",
      labelNames: ['port'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
      registers,
    });
    // series at 0 from the start, so a rate or an alert has a baseline before the first message
    for (const port of ['mail', 'sms'] as const) {
      for (const c of [this.messagesSent, this.messagesFailed, this.messagesRetried]) c.inc({ port }, 0);
      this.messageDelivery.zero({ port });
    }
    const caches = Object.entries(sources.caches ?? {});
    // the counts already added to the counters, per cache
    const seenHits = new Map<string, number>();
    const seenMisses = new Map<string, number>();
    new Counter({
      name: 'runtime_cache_hits_total',
      help: 'Look-ups answered from an in-process cache, by cache, read at scrape',
      labelNames: ['cache'],
      registers,
      collect() {
        for (const [cache, counts] of caches) {
          this.inc({ cache }, counts.hits - (seenHits.get(cache) ?? 0));
          seenHits.set(cache, counts.hits);
        }
      },
    });
    new Counter({
      name: 'runtime_cache_misses_total',
      help: 'Look-ups an in-process cache could not answer (the source was asked), by cache, read at scrape',
      labelNames: ['cache'],
      registers,
      collect() {
        for (const [cache, counts] of caches) {
          this.inc({ cache }, counts.misses - (seenMisses.get(cache) ?? 0));
          seenMisses.set(cache, counts.misses);
        }
      },
    });
    const optimistic = sources.optimisticWrites;
    const seenOptimistic = new Map<string, number>();
    new Counter({
      name: 'runtime_optimistic_writes_total',
      help: 'WRITEs run on the state this process had cached, without taking the lease: answered so (committed in one round trip, or refused on the current state), or run again under the lease (the instance had moved, or the handler needed the lease), read at scrape',
      labelNames: ['outcome'],
      registers,
      collect() {
        if (!optimistic) return;
        for (const outcome of ['answered', 'retried'] as const) {
          this.inc({ outcome }, optimistic[outcome] - (seenOptimistic.get(outcome) ?? 0));
          seenOptimistic.set(outcome, optimistic[outcome]);
        }
      },
    });
    const tasks = sources.tasks;
    // read once per scrape for both gauges (the due gauge is collected first)
    let dueTasks: Promise<{ due: number; lateSeconds: number }> | undefined;
    new Gauge({
      name: 'runtime_tasks_due',
      help: 'Delayed tasks whose due time has passed and that have not run yet, read at scrape',
      registers,
      async collect() {
        if (!tasks) return;
        dueTasks = tasks.dueTasks();
        this.set((await dueTasks).due);
      },
    });
    new Gauge({
      name: 'runtime_tasks_late_seconds',
      help: 'How long past its due time the most overdue task not run yet is (0 when none), read at scrape',
      registers,
      async collect() {
        if (!tasks) return;
        const due = await (dueTasks ?? tasks.dueTasks());
        dueTasks = undefined;
        this.set(due.lateSeconds);
      },
    });
    const queues = sources.queues ?? [];
    new Gauge({
      name: 'runtime_queue_jobs',
      help: 'QUEUED_WRITE jobs and delayed tasks by state (waiting, active, delayed, failed, ...), read at scrape',
      labelNames: ['state'],
      registers,
      async collect() {
        if (!queues.length) return;
        // summed over the buckets' queues
        const total: Record<string, number> = {};
        for (const q of queues) {
          const counts = await q.getJobCounts(
            'waiting',
            'active',
            'delayed',
            'prioritized',
            'waiting-children',
            'failed',
          );
          for (const [state, n] of Object.entries(counts)) total[state] = (total[state] ?? 0) + n;
        }
        for (const [state, n] of Object.entries(total)) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'runtime_queue_oldest_waiting_seconds',
      help: 'Age of the oldest QUEUED_WRITE job waiting for a worker (0 when none waits), read at scrape',
      registers,
      async collect() {
        if (!queues.length) return;
        // BullMQ's wait list takes new jobs at its head: the oldest is the last
        let oldestAt: number | undefined;
        for (const q of queues) {
          const [oldest] = await q.getWaiting(-1, -1);
          if (oldest && (oldestAt === undefined || oldest.timestamp < oldestAt)) oldestAt = oldest.timestamp;
        }
        this.set(oldestAt !== undefined ? Math.max(0, (Date.now() - oldestAt) / 1000) : 0);
      },
    });
    const projector = sources.projector;
    // read once per scrape for the four gauges (the entries gauge is collected first)
    let projectorLag: Promise<ProjectorLagReading | undefined> | undefined;
    const readLag = (): Promise<ProjectorLagReading | undefined> =>
      (projectorLag ??= projector?.lag({ byCollection: true }) ?? Promise.resolve(undefined));
    const doneReading = (): void => {
      projectorLag = undefined;
    };
    new Gauge({
      name: 'runtime_projector_lag_entries',
      help: 'Outbox entries this process has not projected yet whose class projects into the collection (counted over the first 1,000 entries behind; no series when this process does not project), read at scrape',
      labelNames: ['collection'],
      registers,
      async collect() {
        const lag = await readLag();
        // a collection no longer projected (or a projector stopped) leaves no stale series
        this.reset();
        for (const [collection, share] of Object.entries(lag?.collections ?? {}))
          this.set({ collection }, share.entries);
      },
    });
    new Gauge({
      name: 'runtime_projector_lag_seconds',
      help: 'Age of the oldest outbox entry not projected yet whose class projects into the collection (0 when none; no series when this process does not project), read at scrape',
      labelNames: ['collection'],
      registers,
      async collect() {
        const lag = await readLag();
        this.reset();
        for (const [collection, share] of Object.entries(lag?.collections ?? {}))
          this.set({ collection }, share.seconds);
      },
    });
    new Gauge({
      name: 'runtime_projector_backlog_entries',
      help: 'Outbox entries this process has not projected yet, all collections together, each entry once (0 when it does not project), read at scrape',
      registers,
      async collect() {
        this.set((await readLag())?.entries ?? 0);
      },
    });
    new Gauge({
      name: 'runtime_projector_backlog_seconds',
      help: 'Age of the oldest outbox entry not projected yet, all collections together (0 when none, or when this process does not project), read at scrape',
      registers,
      async collect() {
        const lag = await readLag();
        doneReading();
        this.set(lag?.seconds ?? 0);
      },
    });
    const { redis, effectsKeys } = sources;
    new Gauge({
      name: 'runtime_effects_pending',
      help: 'Committed effects entries not yet applied (length of the effects stream), read at scrape',
      registers,
      async collect() {
        if (!redis || !effectsKeys?.length) return;
        let n = 0;
        for (const key of effectsKeys) n += await redis.xlen(key);
        this.set(n);
      },
    });
    const { effectsDeadKeys, messageDeadLetters } = sources;
    new Gauge({
      name: 'runtime_dead_letters',
      help: 'What was given up on and waits for an operator, read at scrape: committed effects that could not be applied (kind effect) and mail or SMS messages that could not be delivered (kind message, the newest kept)',
      labelNames: ['kind'],
      registers,
      async collect() {
        if (redis && effectsDeadKeys?.length) {
          let n = 0;
          for (const key of effectsDeadKeys) n += await redis.xlen(key);
          this.set({ kind: 'effect' }, n);
        }
        if (messageDeadLetters) this.set({ kind: 'message' }, await messageDeadLetters());
      },
    });
  }

  /**
   * One answered call: `method` is the registry's (undefined when the class
   * or method is unknown), so no label comes from the request.
   */
  observe(
    classId: string | undefined,
    method: RegisteredMethod | undefined,
    status: number,
    startedMs: number,
    busy: boolean,
  ): void {
    const series = this.seriesOf(method !== undefined && classId !== undefined ? method : undefined, classId);
    let calls = series.calls.get(status);
    if (!calls) {
      series.calls.set(status, (calls = { counted: 0, added: 0, status: String(status) }));
      // the series is there from its first call, as a labelled inc made it
      this.calls.inc({ ...series.labels, status: calls.status }, 0);
    }
    calls.counted++;
    this.duration.observe(series.duration, (performance.now() - startedMs) / 1000);
    if (busy) this.busy.inc({ class: series.labels.class, method: series.labels.method });
  }

  /**
   * One call of a journaled method (the HTTP layer tells as it journals it). The code is the one the
   * method answered, from its class's table or the runtime's, never the request's.
   */
  /** a journal entry stored `seconds` after its call was answered, or not stored */
  journalAppended(journal: string, seconds: number | undefined): void {
    if (seconds === undefined) this.journalFailed.inc({ journal });
    else this.journalAppend.observe({ journal }, seconds);
  }

  journalEntry(
    journal: string,
    classId: string,
    method: string,
    status: number,
    code: string | number | undefined,
  ): void {
    this.journaled.inc({
      journal,
      class: classId,
      method,
      status: String(status),
      code: code === undefined ? '' : String(code),
    });
  }

  /** a method's series, made once: labels are not hashed again on every call */
  private readonly series = new Map<RegisteredMethod | undefined, MethodSeries>();
  private seriesOf(method: RegisteredMethod | undefined, classId: string | undefined): MethodSeries {
    let series = this.series.get(method);
    if (!series) {
      const labels = method
        ? { class: classId!, method: method.name, kind: method.kind }
        : { class: UNKNOWN, method: UNKNOWN, kind: UNKNOWN };
      series = { labels, duration: this.duration.series(labels), calls: new Map() };
      this.series.set(method, series);
    }
    return series;
  }

  /** A write waited `seconds` for a busy instance of `classId` (the registry's id): TurnManager tells, only when it waited. */
  instanceWaited(classId: string, seconds: number): void {
    let child = this.waitByClass.get(classId);
    if (!child) this.waitByClass.set(classId, (child = this.instanceWait.labels({ class: classId })));
    child.observe(seconds);
  }

  /** A QUEUED_WRITE job runs again after a failed attempt (JobQueue tells). */
  queuedWriteRetried(classId: string, method: string): void {
    this.queuedChild(this.retriesByMethod, this.queuedRetries, classId, method).inc();
  }

  /** A QUEUED_WRITE job failed for good (JobQueue tells). */
  queuedWriteFailed(classId: string, method: string): void {
    this.queuedChild(this.failuresByMethod, this.queuedFailures, classId, method).inc();
  }

  /** A message was accepted by its transport `seconds` after it was queued (MessageDelivery tells). */
  messageSent(port: 'mail' | 'sms', seconds: number): void {
    this.messagesSent.inc({ port });
    this.messageDelivery.observe({ port }, seconds);
  }

  /** A message's delivery attempt beyond the first starts. */
  messageRetried(port: 'mail' | 'sms'): void {
    this.messagesRetried.inc({ port });
  }

  /** A message was given up on (dead-lettered). */
  messageFailed(port: 'mail' | 'sms'): void {
    this.messagesFailed.inc({ port });
  }

  private readonly waitByClass = new Map<string, Histogram.Internal<'class'>>();
  private readonly retriesByMethod = new Map<string, Map<string, Counter.Internal>>();
  private readonly failuresByMethod = new Map<string, Map<string, Counter.Internal>>();
  /** a class and method's counter child, made once (by class, then method: no key string made per job) */
  private queuedChild(
    children: Map<string, Map<string, Counter.Internal>>,
    counter: Counter<'class' | 'method'>,
    classId: string,
    method: string,
  ): Counter.Internal {
    let byMethod = children.get(classId);
    if (!byMethod) children.set(classId, (byMethod = new Map<string, Counter.Internal>()));
    let child = byMethod.get(method);
    if (!child) byMethod.set(method, (child = counter.labels({ class: classId, method })));
    return child;
  }

  /** the text exposition format, with its content type */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.register.contentType, body: await this.register.metrics() };
  }
}

/**
 * A process without the api role (a worker or projector) serves its metrics,
 * /health and /ready on a port of its own (METRICS_PORT): a bare node:http
 * server, nothing else is routed. `ready` throws when the process is not ready.
 */
export async function serveMetrics(
  metrics: RuntimeMetrics,
  ready: () => Promise<Record<string, string>>,
  port: number,
  host?: string,
): Promise<Server> {
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { status: 'method_not_allowed' });
    if (path === '/health') return json(res, 200, { status: 'ok', pid: process.pid });
    if (path === '/ready') {
      ready().then(
        (info) => json(res, 200, { status: 'ready', ...info }),
        (err: Error) => json(res, 503, { status: 'not_ready', message: err.message }),
      );
      return;
    }
    if (path === '/metrics') {
      metrics.scrape().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType });
          res.end(body);
        },
        (err: Error) => {
          res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(`metrics unavailable: ${err.message}\n`);
        },
      );
      return;
    }
    json(res, 404, { status: 'not_found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
