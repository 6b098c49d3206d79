/**
 * ctx.ports.traces: forgets a person's values in the runtime's own records of
 * past calls, for an erasure ("right to erasure"). The classes erase their
 * own state, documents and files; what the runtime kept of the calls that
 * made them is erased here:
 *
 *  - `jobs`: finished BullMQ jobs (completed and failed) of every bucket's
 *    QUEUED_WRITE queue and of the mail and SMS queue (their data, answer,
 *    failure); a QUEUED_WRITE job's stored outcome stays as a key without its
 *    body, as it keeps a task's or a committed enqueue's job from being
 *    queued again. `jobEvents`: those queues' event streams, whose entries
 *    repeat a finished job's answer or failure.
 *  - `answers`: kept answers of idempotency keys (and replay windows). The
 *    answer's body and headers go, the key stays for the rest of its 24 h with
 *    the request's digest and status: a client repeating the request still
 *    does not run it again (which could bring the erased person back); it
 *    gets the first status with no body.
 *  - `journals`: journal entries (XDEL), and their id in their subject's
 *    index (LREM), in one MULTI on the journal's hash tag.
 *  - `deadLetters`: dead-lettered effects (each bucket's `effects:dead`) and
 *    messages (`msg:dead` and the copy each letter keeps for its retry).
 *  - `mailFiles`, `mailIndex`: the embedded mail adapter's .eml files (read as
 *    a mail reader would: headers' encoded words and quoted-printable or
 *    base64 parts decoded) and its listing's lines, when that adapter is in
 *    use; `smsOutbox`: the SMS outbox's lines. Both line files are rewritten
 *    without the matching lines into a file beside them, then renamed over them.
 *
 * Never touched: work not done yet (waiting, delayed, active, prioritised
 * jobs; task and effect outboxes), and anything outside the project
 * (`rt:<project>:…`, `rt:{<project>:…}`, the project's queues).
 *
 * A record matches when its text holds a value as given or in the forms it
 * takes inside JSON (quotes, backslashes and control characters escaped;
 * also `/` as `\/` and non-ASCII as `\uXXXX`, as some encoders write them;
 * once more escaped, for JSON kept inside a JSON string). Exact and
 * case-sensitive: a caller passes each spelling it stored. Values shorter than
 * MIN_VALUE_CHARS are ignored: they would match nearly everything.
 *
 * Cost: each erasure walks each Redis master's whole keyspace twice (SCAN
 * with COUNT, for the project's idempotency keys and retry copies of message
 * dead letters, and for its journals), reads every finished job, event,
 * journal entry and dead letter of the project, and every .eml file, in
 * batches (never all at once), and rewrites the line files it found a value
 * in. Rare by nature; erasures of one process run one after the other.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Job, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { MethodJournal, RedisJournals } from './actor/journal';
import { luaSource } from './actor/lua-source';
import type { Keys } from './actor/state-store';
import type { MessageDelivery } from './mail/delivery';
import { MESSAGE_ID } from './mail/message';
import { scanTargets, type RedisConnection } from './redis/connection';
import type { TraceEraser, TraceErasure, TraceStore } from './types/ports';

/** values shorter than this (trimmed) are ignored */
export const MIN_VALUE_CHARS = 3;
/** keys SCAN looks at per step */
const SCAN_COUNT = 1000;
/** finished jobs read per page */
const JOB_PAGE = 100;
/** stream entries read per page */
const STREAM_PAGE = 500;
/** message dead letters read per page */
const LIST_PAGE = 200;
/** string keys read at once */
const GET_BATCH = 100;
/** how much of a line file is read at a time */
const FILE_CHUNK = 64 * 1024;

const STORES: readonly TraceStore[] = [
  'jobs',
  'jobEvents',
  'answers',
  'journals',
  'deadLetters',
  'mailFiles',
  'mailIndex',
  'smsOutbox',
];

/** The parts of the runtime built after its ports (the queues need the dispatcher, which needs the ports). */
export interface TraceParts {
  /** every bucket's QUEUED_WRITE queue */
  callQueues: readonly Queue[];
  messages: MessageDelivery;
  /** the call journals (their key layout) */
  journals: RedisJournals;
  /** the embedded mail adapter's directory, when it is the one in use */
  mailDir?: string;
  /** the SMS outbox file, when it is the SMS adapter in use */
  smsOutbox?: string;
}

export interface TraceEraserOptions {
  /** the runtime's state connection (a server or a cluster) */
  redis: RedisConnection;
  keys: Keys;
  logger: Logger;
  /** a journal by name (its subject field names its subject index) */
  journalOf(name: string): MethodJournal | undefined;
  /** read at each erasure */
  parts(): TraceParts;
  /** how many finished jobs, stream entries and message dead letters are read a page (tests make pages small) */
  pages?: Partial<Record<'jobs' | 'entries' | 'letters', number>>;
}

/**
 * The strings an erasure looks for: each value of at least MIN_VALUE_CHARS
 * characters (leading and trailing spaces aside), as given and in the forms
 * JSON writes it in.
 */
export function traceNeedles(values: readonly unknown[]): string[] {
  const needles = new Set<string>();
  for (const v of values) {
    if (typeof v !== 'string' || [...v.trim()].length < MIN_VALUE_CHARS) continue;
    needles.add(v);
    const escaped = JSON.stringify(v).slice(1, -1);
    needles.add(escaped);
    // Lua's cjson writes '/' as '\/'
    if (escaped.includes('/')) needles.add(escaped.replace(/\//g, '\\/'));
    // ASCII-only encoders write every other character as \uXXXX (either case; past U+FFFF as a surrogate pair)
    if (/[\u0080-\uffff]/.test(escaped)) {
      const ascii = escaped.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      needles.add(ascii);
      needles.add(ascii.replace(/\\u([0-9a-f]{4})/g, (_, h: string) => `\\u${h.toUpperCase()}`));
    }
    // JSON kept inside a JSON string (an error's details in a failure's text)
    needles.add(JSON.stringify(escaped).slice(1, -1));
  }
  return [...needles];
}

function holdsAny(text: string, needles: readonly string[]): boolean {
  for (const n of needles) if (text.includes(n)) return true;
  return false;
}

// --- the embedded mail adapter's files, read as a mail reader would -----------------------------------------

function decodeBytes(bytes: Buffer, charset: string): string {
  const c = charset.trim().toLowerCase();
  if (c === 'utf-8' || c === 'utf8' || c === 'us-ascii' || c === '') return bytes.toString('utf8');
  return bytes.toString('latin1');
}

function quotedPrintable(text: string, underscoreIsSpace: boolean): Buffer {
  const src = (underscoreIsSpace ? text.replace(/_/g, ' ') : text).replace(/=\r?\n/g, '');
  const out: number[] = [];
  for (let i = 0; i < src.length; i++) {
    const hex = src[i] === '=' ? src.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else {
      for (const b of Buffer.from(src[i], 'utf8')) out.push(b);
    }
  }
  return Buffer.from(out);
}

/** RFC 2047 encoded words decoded; adjacent ones joined (a value may be split across them, mid-character too) */
function decodeWords(value: string): string {
  const word = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;
  let out = '';
  let last = 0;
  let run: { charset: string; bytes: Buffer[] } | undefined;
  const flush = () => {
    if (run) out += decodeBytes(Buffer.concat(run.bytes), run.charset);
    run = undefined;
  };
  for (let m = word.exec(value); m; m = word.exec(value)) {
    const between = value.slice(last, m.index);
    if (!run || !/^\s*$/.test(between)) {
      flush();
      out += between;
    }
    const charset = m[1].split('*')[0];
    const bytes = m[2].toUpperCase() === 'B' ? Buffer.from(m[3], 'base64') : quotedPrintable(m[3], true);
    if (run && run.charset.toLowerCase() === charset.toLowerCase()) run.bytes.push(bytes);
    else {
      flush();
      run = { charset, bytes: [bytes] };
    }
    last = m.index + m[0].length;
  }
  flush();
  return out + value.slice(last);
}

function htmlEntities(html: string): string {
  return html
    .replace(/&#(\d{1,7});/g, (_, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
    .replace(/&#[xX]([0-9a-fA-F]{1,6});/g, (_, h: string) => String.fromCodePoint(Math.min(parseInt(h, 16), 0x10ffff)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&amp;/g, '&');
}

function headerParam(header: string, name: string): string | undefined {
  const m = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(header);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** One MIME entity's readable text: its decoded headers, and its decoded body or parts. */
function readableEntity(entity: string, depth: number): string[] {
  const split = /\r?\n\r?\n/.exec(entity);
  const head = split ? entity.slice(0, split.index) : entity;
  const body = split ? entity.slice(split.index + split[0].length) : '';
  const headers = new Map<string, string>();
  const out: string[] = [];
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const value = line.slice(colon + 1).trim();
    headers.set(line.slice(0, colon).trim().toLowerCase(), value);
    out.push(decodeWords(value));
  }
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = headerParam(type, 'boundary');
  if (/^multipart\//i.test(type) && boundary && depth < 8) {
    const parts = body.split(`--${boundary}`);
    // before the first boundary: the preamble; from the closing one on (`--`): the epilogue
    for (const part of parts.slice(1)) {
      if (part.startsWith('--')) break;
      out.push(...readableEntity(part.replace(/^\r?\n/, ''), depth + 1));
    }
    return out;
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '').toLowerCase();
  const charset = headerParam(type, 'charset') ?? 'utf-8';
  const text =
    encoding === 'quoted-printable'
      ? decodeBytes(quotedPrintable(body, false), charset)
      : encoding === 'base64'
        ? decodeBytes(Buffer.from(body.replace(/\s+/g, ''), 'base64'), charset)
        : body;
  out.push(text);
  if (/^text\/html/i.test(type)) out.push(htmlEntities(text));
  return out;
}

/**
 * The text an erasure compares a stored mail with: the file as written, and
 * what a reader sees of it (headers' encoded words decoded, quoted-printable
 * and base64 parts decoded, HTML's numeric and basic named entities decoded).
 */
export function readableMail(raw: Buffer): string {
  const text = raw.toString('utf8');
  return [text, ...readableEntity(text, 0)].join('\n');
}

/** What orGone answers for a file or folder that is not there (any more). */
const GONE = Symbol('gone');

/**
 * The answer of a file operation, or GONE where its file or folder does not
 * exist: the mail adapter and other processes remove files while the eraser
 * walks them, and a file already gone holds no value to erase.
 */
async function orGone<T>(io: Promise<T>): Promise<T | typeof GONE> {
  try {
    return await io;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return GONE;
    throw err;
  }
}

/**
 * Rewrites a file of lines without those `drop` picks: into a new file beside
 * it, renamed over it once written (a reader sees the old file or the new
 * one, never half). Lines appended while it was read are read too, up to
 * the rename. Answers how many lines it dropped; a file without any is left
 * as it is.
 */
async function rewriteLines(file: string, drop: (line: string) => boolean): Promise<number> {
  const src = await orGone(fs.open(file, 'r'));
  if (src === GONE) return 0;
  // the name comes from the file's own and random bytes, never from a value
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let out: fs.FileHandle | undefined;
  let renamed = false;
  let dropped = 0;
  try {
    const { mode } = await src.stat();
    out = await fs.open(tmp, 'wx', mode & 0o777);
    const buf = Buffer.alloc(FILE_CHUNK);
    let position = 0;
    let partial = Buffer.alloc(0);
    const readToEnd = async () => {
      for (;;) {
        const { bytesRead } = await src.read(buf, 0, buf.length, position);
        if (bytesRead === 0) return;
        position += bytesRead;
        let rest = Buffer.concat([partial, buf.subarray(0, bytesRead)]);
        const kept: Buffer[] = [];
        for (let nl = rest.indexOf(10); nl >= 0; nl = rest.indexOf(10)) {
          const line = rest.subarray(0, nl + 1);
          rest = rest.subarray(nl + 1);
          if (drop(line.toString('utf8'))) dropped++;
          else kept.push(line);
        }
        partial = Buffer.from(rest);
        if (kept.length) await out!.write(Buffer.concat(kept));
      }
    };
    await readToEnd();
    // the last line may lack its newline (or still be being appended): it is compared too
    const lastDropped = () => partial.length > 0 && drop(partial.toString('utf8'));
    if (dropped === 0 && !lastDropped()) return 0;
    // what was appended while the rest was written, up to the rename
    await readToEnd();
    if (lastDropped()) dropped++;
    else if (partial.length) await out.write(partial);
    await out.sync();
    await out.close();
    out = undefined;
    await fs.rename(tmp, file);
    renamed = true;
    return dropped;
  } finally {
    await out?.close().catch(() => undefined);
    await src.close().catch(() => undefined);
    if (!renamed) await fs.unlink(tmp).catch(() => undefined);
  }
}

function fieldText(fields: readonly string[]): string {
  return fields.join('\n');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The runtime's TraceEraser (ctx.ports.traces). */
export class RuntimeTraces implements TraceEraser {
  /** erasures of this process, one after the other: each walks everything already */
  private queue: Promise<unknown> = Promise.resolve();

  private readonly jobPage: number;
  private readonly entryPage: number;
  private readonly letterPage: number;

  constructor(private readonly opts: TraceEraserOptions) {
    this.jobPage = opts.pages?.jobs ?? JOB_PAGE;
    this.entryPage = opts.pages?.entries ?? STREAM_PAGE;
    this.letterPage = opts.pages?.letters ?? LIST_PAGE;
  }

  forget(values: readonly string[]): Promise<TraceErasure> {
    const run = this.queue.then(() => this.erase(values));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async erase(values: readonly string[]): Promise<TraceErasure> {
    const started = Date.now();
    const counts = Object.fromEntries(STORES.map((s) => [s, 0])) as Record<TraceStore, number>;
    const needles = traceNeedles(Array.isArray(values) ? values : []);
    if (needles.length) {
      const parts = this.opts.parts();
      await this.finishedJobs(parts, needles, counts);
      await this.journals(parts.journals, needles, counts);
      await this.effectDeadLetters(needles, counts);
      // the letters first: the retry copies of those removed go with them, the scan then finds the others
      const letters = await this.messageDeadLetters(parts.messages, needles, counts);
      await this.answersAndLetterCopies(parts.messages, needles, counts, letters);
      if (parts.mailDir) await this.mailFiles(parts.mailDir, needles, counts);
      if (parts.smsOutbox) counts.smsOutbox += await rewriteLines(parts.smsOutbox, (l) => holdsAny(l, needles));
    }
    const removed = STORES.reduce((n, s) => n + counts[s], 0);
    // counts only: the values are what is being forgotten
    this.opts.logger.info(
      { removed, byStore: counts, values: Array.isArray(values) ? values.length : 0, ms: Date.now() - started },
      'traces forgotten',
    );
    return { removed, byStore: counts };
  }

  private replaceIfUnchanged(key: string, read: string, replacement?: string): Promise<boolean> {
    const args = replacement === undefined ? [read] : [read, replacement];
    return this.opts.redis.eval(luaSource('replaceIfUnchanged'), 1, key, ...args).then((n) => Number(n) === 1);
  }

  /** Completed and failed jobs of every queue of the project, newest first, a page at a time; and their events. */
  private async finishedJobs(parts: TraceParts, needles: string[], counts: Record<TraceStore, number>) {
    const queues = [...parts.callQueues.map((q) => ({ q, calls: true })), { q: parts.messages.queue, calls: false }];
    for (const { q, calls } of queues) {
      for (const state of ['completed', 'failed'] as const) {
        let start = 0;
        for (;;) {
          const read = await q.getJobs(state, start, start + this.jobPage - 1, false);
          if (!read.length) break;
          // a job removed between the listing and its read is listed without a job
          const page = read.filter(Boolean) as Job[];
          let removedHere = 0;
          const outcomes = calls ? await Promise.all(page.map((job) => this.storedOutcome(job))) : [];
          for (let i = 0; i < page.length; i++) {
            const job = page[i];
            const outcome = outcomes[i];
            const text = [
              job.name,
              JSON.stringify(job.data),
              JSON.stringify(job.returnvalue ?? null),
              job.failedReason ?? '',
              JSON.stringify(job.stacktrace ?? []),
              outcome?.raw ?? '',
            ].join('\n');
            if (!holdsAny(text, needles)) continue;
            // a finished job holds no lock: BullMQ removes it (its logs with it)
            if ((await q.remove(job.id!)) !== 1) continue;
            removedHere++;
            counts.jobs++;
            if (outcome) await this.redactOutcome(outcome.key, outcome.raw);
          }
          // the pages after this one moved up by what it removed; a job finished meanwhile is read twice, harmlessly
          start += read.length - removedHere;
          if (read.length < this.jobPage) break;
        }
      }
      counts.jobEvents += await this.streamEntries(q.keys.events, needles);
    }
  }

  /** A QUEUED_WRITE call job's stored outcome (its key and text), if it has one. */
  private async storedOutcome(job: Job): Promise<{ key: string; raw: string } | undefined> {
    const d = job.data as { kind?: string; classId?: string; instanceId?: string } | undefined;
    if (d?.kind !== 'call' || typeof d.classId !== 'string' || typeof d.instanceId !== 'string') return undefined;
    const key = this.opts.keys.jobResult(d.classId, d.instanceId, job.id!);
    const raw = await this.opts.redis.get(key);
    return raw === null ? undefined : { key, raw };
  }

  /**
   * A removed job's stored outcome keeps its status and whether it failed,
   * without its body: the key still tells a redelivered task or enqueue that
   * the job ran, so it is not queued again.
   */
  private async redactOutcome(key: string, raw: string): Promise<void> {
    const outcome = parseJson(raw) as { status?: number; failed?: boolean } | undefined;
    const redacted = {
      status: typeof outcome?.status === 'number' ? outcome.status : 200,
      body: null,
      headers: {},
      ...(outcome?.failed ? { failed: true } : {}),
      erased: true,
    };
    await this.replaceIfUnchanged(key, raw, JSON.stringify(redacted));
  }

  /** Removes the entries of stream `key` that hold a value; answers how many. */
  private async streamEntries(
    key: string,
    needles: string[],
    remove: (id: string, fields: string[]) => Promise<boolean> = async (id) =>
      (await this.opts.redis.xdel(key, id)) === 1,
  ): Promise<number> {
    let removed = 0;
    let start = '-';
    for (;;) {
      const rows = (await this.opts.redis.xrange(key, start, '+', 'COUNT', this.entryPage)) as [string, string[]][];
      for (const [id, fields] of rows) {
        if (holdsAny(fieldText(fields), needles) && (await remove(id, fields))) removed++;
      }
      if (rows.length < this.entryPage) return removed;
      start = `(${rows[rows.length - 1][0]}`;
    }
  }

  /** SCAN of every master for `pattern` (of `type`, if given), a batch of keys at a time. */
  private async scan(pattern: string, each: (keys: string[]) => Promise<void>, type?: string): Promise<void> {
    for (const node of scanTargets(this.opts.redis)) {
      let cursor = '0';
      do {
        const [next, batch] = type
          ? await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT, 'TYPE', type)
          : await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
        cursor = next;
        if (batch.length) await each(batch);
      } while (cursor !== '0');
    }
  }

  /** Journal entries, in every journal stream of the project, with their ids in their subject indexes. */
  private async journals(
    journals: RedisJournals,
    needles: string[],
    counts: Record<TraceStore, number>,
  ): Promise<void> {
    // `rt:{<project>:journal:` (a stream's key is this, its name, and the hash tag's closing brace)
    const prefix = journals.streamKey('').slice(0, -1);
    const redis = this.opts.redis;
    await this.scan(
      `${prefix}*`,
      async (keys) => {
        for (const stream of keys) {
          // the stream itself ends with its hash tag's brace; its subject indexes (lists) follow it
          if (!stream.endsWith('}')) continue;
          const name = stream.slice(prefix.length, -1);
          const subjectField = this.opts.journalOf(name)?.subjectField;
          const unindexed: string[] = [];
          counts.journals += await this.streamEntries(stream, needles, async (id, fields) => {
            const entry = parseJson(fields[fields.indexOf('e') + 1] ?? '') as
              { data?: Record<string, unknown> } | undefined;
            const subject = subjectField ? entry?.data?.[subjectField] : undefined;
            // the stream and its indexes share the journal's hash tag: one MULTI, one slot
            const multi = redis.multi().xdel(stream, id);
            if (typeof subject === 'string' && subject !== '') multi.lrem(journals.subjectKey(name, subject), 0, id);
            else if (!subjectField) unindexed.push(id);
            const out = await multi.exec();
            const [err, n] = out?.[0] ?? [new Error(`the erasure of journal entry ${id} was aborted`), 0];
            if (err) throw err;
            return n === 1;
          });
          // a journal no method declares any more: its subject field is unknown, every index of it is looked at
          if (unindexed.length) {
            await this.scan(`${stream}:s:*`, async (indexes) => {
              for (const index of indexes) for (const id of unindexed) await redis.lrem(index, 0, id);
            });
          }
        }
      },
      'stream',
    );
  }

  /** Dead-lettered effects, in every bucket's `effects:dead` stream. */
  private async effectDeadLetters(needles: string[], counts: Record<TraceStore, number>): Promise<void> {
    for (const b of this.opts.keys.all) counts.deadLetters += await this.streamEntries(b.effectsDead, needles);
  }

  /** Dead-lettered mails and SMS, and the retry copy of each removed; answers the ids of the letters removed. */
  private async messageDeadLetters(
    messages: MessageDelivery,
    needles: string[],
    counts: Record<TraceStore, number>,
  ): Promise<Set<string>> {
    const redis = this.opts.redis;
    const removedIds = new Set<string>();
    let start = 0;
    for (;;) {
      const page = await redis.lrange(messages.deadKey, start, start + this.letterPage - 1);
      if (!page.length) break;
      let removedHere = 0;
      for (const json of page) {
        if (!holdsAny(json, needles)) continue;
        const n = await redis.lrem(messages.deadKey, 0, json);
        if (n === 0) continue;
        removedHere += n;
        counts.deadLetters++;
        const id = (parseJson(json) as { id?: unknown } | undefined)?.id;
        // only a message id names a retry copy: nothing a value wrote reaches a key name
        if (typeof id === 'string' && MESSAGE_ID.test(id)) {
          removedIds.add(id);
          // its retry copy would send it again
          await redis.del(messages.deadMarkKey(id));
        }
      }
      start += page.length - removedHere;
      if (page.length < this.letterPage) break;
    }
    return removedIds;
  }

  /** Kept answers of idempotency keys, and retry copies of message dead letters whose letter left the list. */
  private async answersAndLetterCopies(
    messages: MessageDelivery,
    needles: string[],
    counts: Record<TraceStore, number>,
    lettersRemoved: Set<string>,
  ): Promise<void> {
    const base = this.opts.keys.base;
    const answers = `${base}:idem:`;
    const copies = `${messages.deadKey}:`;
    await this.scan(`${base}:*`, async (keys) => {
      const mine = keys.filter((k) => k.startsWith(answers) || k.startsWith(copies));
      for (let i = 0; i < mine.length; i += GET_BATCH) {
        const batch = mine.slice(i, i + GET_BATCH);
        const values = await Promise.all(batch.map((k) => this.opts.redis.get(k)));
        for (let j = 0; j < batch.length; j++) {
          const key = batch[j];
          const raw = values[j];
          if (raw === null || !holdsAny(raw, needles)) continue;
          if (key.startsWith(answers)) {
            if (await this.forgetAnswer(key, raw)) counts.answers++;
          } else if (await this.replaceIfUnchanged(key, raw)) {
            if (!lettersRemoved.has(key.slice(copies.length))) counts.deadLetters++;
          }
        }
      }
    });
  }

  /** A kept answer without its body and headers: its request's digest and status stay until it runs out. */
  private forgetAnswer(key: string, raw: string): Promise<boolean> {
    const held = parseJson(raw) as { state?: string; hash?: string; status?: number } | undefined;
    // a claim of a call still running holds no answer yet
    if (held?.state !== 'done' || typeof held.hash !== 'string') return Promise.resolve(false);
    const forgotten = { state: 'done', hash: held.hash, status: held.status, headers: {}, kind: 'empty' };
    return this.replaceIfUnchanged(key, raw, JSON.stringify(forgotten));
  }

  /** The embedded mail adapter's .eml files and listing lines. */
  private async mailFiles(dir: string, needles: string[], counts: Record<TraceStore, number>): Promise<void> {
    const removedIds = new Set<string>();
    const entries = await orGone(fs.opendir(dir));
    if (entries === GONE) return;
    for await (const entry of entries) {
      const id = entry.isFile() && entry.name.endsWith('.eml') ? entry.name.slice(0, -4) : '';
      // the adapter names each file after the message id only
      if (!MESSAGE_ID.test(id)) continue;
      const file = path.join(dir, entry.name);
      const raw = await orGone(fs.readFile(file));
      if (raw === GONE || !holdsAny(readableMail(raw), needles)) continue;
      if ((await orGone(fs.unlink(file))) === GONE) continue;
      removedIds.add(id);
      counts.mailFiles++;
    }
    counts.mailIndex += await rewriteLines(path.join(dir, 'index.jsonl'), (line) => {
      if (holdsAny(line, needles)) return true;
      const id = (parseJson(line) as { id?: unknown } | undefined)?.id;
      return typeof id === 'string' && removedIds.has(id);
    });
  }
}
