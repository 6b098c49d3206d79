/**
 * Call journals (MethodOptions.journal): every call of a journaled method
 * that reaches the service over HTTP, whatever it answered (a refused body, a
 * domain error, a success), leaves one entry: when, which caller, what it was
 * about, the status and error code it got, how long it took, a digest of its
 * body, and the fields the method's `describe` picks (ids, field names,
 * warnings: never a secret or a personal value). An integration team asks
 * "what happened to the record we sent at 09:14?" and gets an answer that a
 * change log cannot give: a refused call changes nothing, so it leaves no
 * other trace.
 *
 * Entries live in one Redis stream per journal, `rt:{<project>:journal:<name>}`,
 * for JOURNAL_RETENTION_DAYS (trimmed on append by the entry ids' time); an
 * entry with a subject (MethodJournal.subjectField) is also indexed under it,
 * `rt:{<project>:journal:<name>}:s:<sha256(subject)>`, newest first, so the
 * entries of one employee are read without a scan. Both keys share a hash tag:
 * one script, one slot on a Redis Cluster.
 *
 * Readers (ctx.journals.list, READ and STATIC handlers) page newest first
 * with a cursor; a tenant-bound caller sees only the entries whose tenant
 * field is its tenant.
 */
import { createHash } from 'node:crypto';
import { defineVariadicScript, type RedisConnection } from '../redis/connection';
import { luaSource } from './lua-source';
import { canonicalJson } from '../canonical-json';
import { runtimeError } from '../errors';

/** what a journal needs of a caller's identity (an Identity, which types.ts declares: named here so that neither imports the other) */
export interface JournalIdentity {
  type: string;
  userId?: string;
  tenant?: string;
}

/** a value an entry's own fields may hold */
export type JournalValue = string | number | boolean | null | readonly string[];

/** What a journal's `describe` sees of a call once it is answered. */
export interface JournalCall {
  /** the request's body as parsed (undefined when it could not be parsed) */
  body: unknown;
  status: number;
  /** the answer's body (the error envelope for an error) */
  answer: unknown;
  identity?: JournalIdentity;
  instanceId?: string;
}

export interface MethodJournal {
  /** the journal's name: 1-64 letters, digits, '_', '.' or '-' (methods may share one) */
  name: string;
  /** the entry's own fields: ids, codes, field names. Never a secret or a personal value: entries are read by operators. */
  describe?(call: JournalCall): Record<string, JournalValue | undefined>;
  /** the field of `describe` naming what the call was about (an employee id): entries are listed by it without a scan */
  subjectField?: string;
  /** the field of `describe` holding the tenant the entry belongs to: a tenant-bound reader sees only its tenant's */
  tenantField?: string;
}

export interface JournalEntry {
  /** the entry's id: its time on Redis's clock and a sequence (a cursor) */
  id: string;
  at: string;
  classId: string;
  method: string;
  instanceId?: string;
  /** the caller's identity type and id (an API key's id, never the key) */
  caller: { type: string; id?: string };
  status: number;
  /** the error code answered, if any */
  code?: string | number;
  durationMs: number;
  requestId?: string;
  /** sha256 of the body, keys sorted: the same record sent twice has the same digest */
  bodySha256?: string;
  data: Record<string, JournalValue>;
}

export interface JournalQuery {
  /** oldest entry time (ms since the epoch or an ISO time), inclusive */
  from?: number | string;
  /** newest entry time, inclusive */
  to?: number | string;
  subject?: string;
  status?: number;
  code?: string | number;
  /** 1-100, default 20 */
  limit?: number;
  /** the `nextCursor` of the page before */
  cursor?: string;
}

export interface JournalPage {
  entries: JournalEntry[];
  /** where the next page starts; absent: no older entries */
  nextCursor?: string;
  /** how many entries were read to fill this page */
  scanned: number;
}

export interface JournalReader {
  list(name: string, query?: JournalQuery): Promise<JournalPage>;
}

/** how long entries are kept unless JOURNAL_RETENTION_DAYS says otherwise */
export const DEFAULT_JOURNAL_RETENTION_DAYS = 90;
/** the most entry ids one subject's index keeps */
export const SUBJECT_INDEX_MAX = 1000;
/** the most entries one page reads when no subject narrows it: a page may come back short, with a cursor */
export const JOURNAL_SCAN_MAX = 10_000;
const SCAN_BATCH = 500;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const STREAM_ID = /^\d{1,15}-\d{1,10}$/;
const SCRIPT = 'appendJournal';

type JournalRedis = RedisConnection & { appendJournal(...args: (string | number)[]): Promise<string> };

export function checkJournalName(name: string): void {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new Error(`journal name '${name}' must be 1-64 letters, digits, '_', '.' or '-'`);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function badQuery(field: string, reason: string) {
  return runtimeError('VALIDATION', `Invalid journal query: ${field} ${reason}`, { errors: [{ field, reason }] });
}

function timeOf(field: string, value: number | string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0)
    throw badQuery(field, 'must be a time (ISO 8601 or milliseconds since the epoch)');
  return Math.floor(ms);
}

function idTime(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

/** a < b for stream ids */
function olderThan(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am < bm || (am === bm && as < bs);
}

/** What the runtime records of a call; `describe` adds the method's own fields. */
export interface JournalRecord {
  classId: string;
  method: string;
  instanceId?: string;
  identity?: JournalIdentity;
  status: number;
  code?: string | number;
  durationMs: number;
  requestId?: string;
  body: unknown;
  answer: unknown;
}

export class RedisJournals {
  private readonly redis: JournalRedis;
  readonly retentionMs: number;

  /** `projectId`: keys are `rt:{<projectId>:journal:<name>}…`; `retentionDays`: how long entries are kept */
  constructor(
    redis: RedisConnection,
    private readonly projectId: string,
    retentionDays: number = DEFAULT_JOURNAL_RETENTION_DAYS,
  ) {
    this.redis = redis as JournalRedis;
    this.retentionMs = Math.round(retentionDays * 24 * 3600 * 1000);
    if (typeof (redis as unknown as Record<string, unknown>)[SCRIPT] !== 'function') {
      defineVariadicScript(redis, SCRIPT, luaSource(SCRIPT));
    }
  }

  streamKey(name: string): string {
    return `rt:{${this.projectId}:journal:${name}}`;
  }

  subjectKey(name: string, subject: string): string {
    return `${this.streamKey(name)}:s:${sha256(subject)}`;
  }

  /** Appends the entry of one answered call; answers the entry's id. */
  async append(journal: MethodJournal, call: JournalRecord): Promise<string> {
    let data: Record<string, JournalValue> = {};
    if (journal.describe) {
      const described = journal.describe({
        body: call.body,
        status: call.status,
        answer: call.answer,
        identity: call.identity,
        instanceId: call.instanceId,
      });
      data = Object.fromEntries(Object.entries(described ?? {}).filter(([, v]) => v !== undefined)) as Record<
        string,
        JournalValue
      >;
    }
    const entry: Omit<JournalEntry, 'id' | 'at'> = {
      classId: call.classId,
      method: call.method,
      ...(call.instanceId !== undefined ? { instanceId: call.instanceId } : {}),
      caller: {
        type: call.identity?.type ?? 'anonymous',
        ...(call.identity?.userId !== undefined ? { id: call.identity.userId } : {}),
      },
      status: call.status,
      ...(call.code !== undefined ? { code: call.code } : {}),
      durationMs: Math.round(call.durationMs * 100) / 100,
      ...(call.requestId ? { requestId: call.requestId } : {}),
      ...(call.body !== undefined ? { bodySha256: sha256(canonicalJson(call.body)) } : {}),
      data,
    };
    const subject = journal.subjectField ? data[journal.subjectField] : undefined;
    const keys = [this.streamKey(journal.name)];
    if (typeof subject === 'string' && subject !== '') keys.push(this.subjectKey(journal.name, subject));
    return this.redis.appendJournal(keys.length, ...keys, JSON.stringify(entry), this.retentionMs, SUBJECT_INDEX_MAX);
  }

  /** A reader for one caller: `tenantFieldOf(name)` is the journal's tenant field (a tenant-bound caller needs one). */
  reader(identity: JournalIdentity | undefined, journalOf: (name: string) => MethodJournal | undefined): JournalReader {
    return { list: (name, query) => this.list(name, query ?? {}, identity?.tenant, journalOf) };
  }

  private async list(
    name: string,
    query: JournalQuery,
    tenant: string | undefined,
    journalOf: (name: string) => MethodJournal | undefined,
  ): Promise<JournalPage> {
    const journal = journalOf(name);
    // a class naming a journal no method keeps is the class's mistake
    if (!journal) throw new Error(`no method keeps a journal named '${name}'`);
    if (tenant !== undefined && !journal.tenantField)
      throw runtimeError('OUT_OF_SCOPE', `The '${name}' journal is not kept per tenant`);
    const limit = query.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw badQuery('limit', 'must be an integer from 1 to 100');
    const from = timeOf('from', query.from);
    const to = timeOf('to', query.to);
    if (query.cursor !== undefined && !STREAM_ID.test(query.cursor))
      throw badQuery('cursor', 'is not a cursor this journal gave');
    const keep = (e: JournalEntry): boolean =>
      (query.status === undefined || e.status === query.status) &&
      (query.code === undefined || String(e.code) === String(query.code)) &&
      (query.subject === undefined || !journal.subjectField || e.data[journal.subjectField] === query.subject) &&
      (tenant === undefined || e.data[journal.tenantField!] === tenant);
    const parse = (id: string, raw: string): JournalEntry => ({
      id,
      at: new Date(idTime(id)).toISOString(),
      ...(JSON.parse(raw) as Omit<JournalEntry, 'id' | 'at'>),
    });

    if (query.subject !== undefined && journal.subjectField) {
      const ids = (await this.redis.lrange(this.subjectKey(name, query.subject), 0, -1)).filter(
        (id) =>
          (query.cursor === undefined || olderThan(id, query.cursor)) &&
          (from === undefined || idTime(id) >= from) &&
          (to === undefined || idTime(id) <= to),
      );
      const pipe = this.redis.pipeline();
      for (const id of ids) pipe.xrange(this.streamKey(name), id, id);
      const replies = ids.length ? ((await pipe.exec()) ?? []) : [];
      const entries: JournalEntry[] = [];
      let scanned = 0;
      for (let i = 0; i < ids.length && entries.length < limit; i++) {
        scanned++;
        const [err, rows] = replies[i] as [Error | null, [string, string[]][]];
        if (err) throw err;
        // trimmed from the stream since it was indexed
        const row = rows[0];
        if (!row) continue;
        const e = parse(row[0], row[1][1]);
        if (keep(e)) entries.push(e);
      }
      const more = scanned < ids.length;
      return { entries, scanned, ...(more ? { nextCursor: ids[scanned - 1] } : {}) };
    }

    const entries: JournalEntry[] = [];
    let scanned = 0;
    let end = query.cursor !== undefined ? `(${query.cursor}` : to !== undefined ? `${to}-18446744073709551615` : '+';
    const start = from !== undefined ? `${from}-0` : '-';
    let last: string | undefined;
    for (;;) {
      const rows = (await this.redis.xrevrange(this.streamKey(name), end, start, 'COUNT', SCAN_BATCH)) as [
        string,
        string[],
      ][];
      let i = 0;
      let full = false;
      while (i < rows.length && !full) {
        const [id, fields] = rows[i++];
        scanned++;
        last = id;
        const e = parse(id, fields[1]);
        if (keep(e)) entries.push(e);
        full = entries.length === limit || scanned >= JOURNAL_SCAN_MAX;
      }
      // the range is read to its end: no next page
      if (rows.length < SCAN_BATCH && i === rows.length) return { entries, scanned };
      if (full) return { entries, scanned, nextCursor: last! };
      end = `(${last}`;
    }
  }
}
