/**
 * Call journals (MethodOptions.journal, runtime/actor/journal.ts) through a
 * real runtime over HTTP and real Redis: every answered call of a journaled
 * method leaves one entry (successes, domain errors, crashes, bodies refused
 * before any handler, idempotent replays), callers whose credentials fail do
 * not; entries keep only what `describe` picks plus a digest of the body;
 * readers page newest first with a cursor and filter by subject, status, code
 * and time; a tenant-bound reader sees its tenant's entries only; entries
 * past the retention go; the registry refuses journals it could not keep.
 */
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { ActorClass, Internal, Static } from '../../runtime';
import { classDefOf } from '../../runtime/actor/decorators';
import { RedisJournals, type JournalEntry, type JournalPage } from '../../runtime/actor/journal';
import { ClassRegistry } from '../../runtime/actor/registry';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { redisUrl, uniqueProjectId } from '../support/redis';

const KEY = { 'x-api-key': TEST_API_KEY };
let t: TestRuntime;
let redis: Redis;

beforeAll(async () => {
  t = await startTestRuntime({
    env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'journal-fixtures')}` },
  });
  redis = new Redis(redisUrl());
});
afterAll(async () => {
  const keys = await redis.keys(`rt:{${t.projectId}:journal:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await t.stop();
});

const push = (body: unknown, headers: Record<string, string> = KEY) =>
  t.post(`/${t.projectId}/CALL/Ledgered/push`, body, headers);
const ledger = async (
  query: Record<string, unknown> = {},
  headers: Record<string, string> = KEY,
): Promise<JournalPage> => {
  const r = await t.post(`/${t.projectId}/CALL/Ledgered/ledger`, query, headers);
  expect(r.status).toBe(200);
  return r.body as JournalPage;
};
/** entries are written after the answer: wait until the journal holds `n` entries for `record` */
const entriesOf = async (record: string, n: number): Promise<JournalEntry[]> => {
  let page: JournalPage = { entries: [], scanned: 0 };
  await waitFor(async () => (page = await ledger({ subject: record, limit: 100 })).entries.length >= n, {
    timeoutMs: 10_000,
  });
  return page.entries;
};

describe('a journaled method over HTTP', () => {
  test('every answered call leaves one entry, newest first, with status, code, caller and what describe picked', async () => {
    const record = `r-${uniqueProjectId('')}`;
    expect((await push({ record, company: 'acme', secret: 'hunter2' })).status).toBe(200);
    expect((await push({ record, company: 'acme', fail: 'domain' })).status).toBe(404);
    expect((await push({ record, company: 'acme', fail: 'crash' })).status).toBe(500);
    const entries = await entriesOf(record, 3);
    expect(entries.map((e) => [e.status, e.code ?? null])).toEqual([
      [500, 1000],
      [404, 4004],
      [200, null],
    ]);
    const ok = entries[2]!;
    expect(ok).toMatchObject({
      classId: 'Ledgered',
      method: 'push',
      caller: { type: 'integration_user' },
      data: { record, company: 'acme', fields: ['company', 'record'], echoed: true },
    });
    expect(typeof ok.caller.id).toBe('string');
    expect(ok.durationMs).toBeGreaterThanOrEqual(0);
    expect(ok.bodySha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(ok.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(entries[0]!.at >= entries[1]!.at && entries[1]!.at >= entries[2]!.at).toBe(true);
    // nothing describe left out reaches Redis
    const raw = JSON.stringify(await redis.xrange(`rt:{${t.projectId}:journal:pushes}`, '-', '+'));
    expect(raw).toContain(record);
    expect(raw).not.toContain('hunter2');
  });

  test('the same body in another key order has the same digest; an idempotent replay is an entry of its own', async () => {
    const record = `r-${uniqueProjectId('')}`;
    const headers = { ...KEY, 'idempotency-key': `k-${record}` };
    expect((await push({ record, company: 'acme' }, headers)).status).toBe(200);
    const replay = await push({ company: 'acme', record }, headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const entries = await entriesOf(record, 2);
    expect(entries).toHaveLength(2);
    expect(entries[0]!.bodySha256).toBe(entries[1]!.bodySha256);
    expect(entries.map((e) => e.status)).toEqual([200, 200]);
  });

  test('a body refused before any handler runs is journaled; a caller whose key fails is not', async () => {
    const before = (await ledger({ status: 400, limit: 100 })).entries.length;
    const malformed = await fetch(`${t.base}/${t.projectId}/CALL/Ledgered/push`, {
      method: 'POST',
      headers: { ...KEY, 'content-type': 'application/json' },
      body: '{"record": ',
    });
    expect(malformed.status).toBe(400);
    let refused: JournalEntry[] = [];
    await waitFor(async () => (refused = (await ledger({ status: 400, limit: 100 })).entries).length > before, {
      timeoutMs: 10_000,
    });
    expect(refused[0]).toMatchObject({ status: 400, code: 1001, caller: { type: 'integration_user' }, data: {} });
    expect(refused[0]!.bodySha256).toBeUndefined();

    const record = `r-${uniqueProjectId('')}`;
    expect((await push({ record }, { 'x-api-key': 'not-a-key' })).status).toBe(401);
    expect((await push({ record })).status).toBe(200);
    // the later call's entry is there: the refused one would have been written before it
    const entries = await entriesOf(record, 1);
    expect(entries.map((e) => e.status)).toEqual([200]);
  });
});

describe('reading a journal', () => {
  const record = `paged-${uniqueProjectId('')}`;
  beforeAll(async () => {
    for (let i = 0; i < 7; i++)
      expect(
        (await push({ record, company: i % 2 ? 'acme' : 'globex', ...(i === 3 ? { fail: 'domain' } : {}) })).status,
      ).toBe(i === 3 ? 404 : 200);
    await entriesOf(record, 7);
  });

  test('pages of `limit` entries with a cursor, by subject and without one, meet every entry once', async () => {
    const all = (await ledger({ subject: record, limit: 100 })).entries.map((e) => e.id);
    expect(all).toHaveLength(7);
    for (const bySubject of [true, false]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 50; pages++) {
        const page = await ledger({
          ...(bySubject ? { subject: record } : {}),
          limit: 3,
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...page.entries.filter((e) => e.data.record === record).map((e) => e.id));
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      expect(seen).toEqual(all);
    }
  });

  test('filters by status, code and time; a tenant-bound reader sees its tenant only', async () => {
    const failed = await ledger({ subject: record, code: 4004 });
    expect(failed.entries.map((e) => e.status)).toEqual([404]);
    expect((await ledger({ subject: record, status: 200, limit: 100 })).entries).toHaveLength(6);
    const newest = (await ledger({ subject: record, limit: 1 })).entries[0]!;
    expect((await ledger({ subject: record, from: newest.at, limit: 100 })).entries.map((e) => e.id)).toContain(
      newest.id,
    );
    expect((await ledger({ subject: record, to: Date.parse(newest.at) - 60_000 })).entries).toEqual([]);

    const acme = {
      authorization: `Bearer ${t.rt.tokens.sign({ sub: 'u-acme', identity: 'enduser', roles: [], tenant: 'acme' })}`,
    };
    const seen = await ledger({ subject: record, limit: 100 }, acme);
    expect(seen.entries).toHaveLength(3);
    expect(new Set(seen.entries.map((e) => e.data.company))).toEqual(new Set(['acme']));
    const unscoped = await ledger({ limit: 100 }, acme);
    expect(unscoped.entries.every((e) => e.data.company === 'acme')).toBe(true);
  });

  test('a query out of range is a 400 naming the field', async () => {
    for (const [query, field] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ from: 'yesterday-ish' }, 'from'],
      [{ cursor: 'abc' }, 'cursor'],
    ] as const) {
      const r = await t.post(`/${t.projectId}/CALL/Ledgered/ledger`, query, KEY);
      expect(r.status).toBe(400);
      expect(r.body.details.errors[0].field).toBe(field);
    }
  });
});

describe('RedisJournals', () => {
  test('entries past the retention are removed as new ones arrive, and a subject index outlives none of them', async () => {
    const journals = new RedisJournals(redis, uniqueProjectId('jr'), 400 / 86_400_000);
    const journal = {
      name: 'short',
      subjectField: 's' as const,
      describe: ({ body }: { body: unknown }) => ({ s: (body as { s: string }).s }),
    };
    const call = (s: string) => ({ classId: 'C', method: 'm', status: 200, durationMs: 1, body: { s }, answer: {} });
    const first = await journals.append(journal, call('a'));
    const stream = journals.streamKey('short');
    await waitFor(
      async () => {
        await journals.append(journal, call('b'));
        return (await redis.xrange(stream, first, first)).length === 0;
      },
      { timeoutMs: 10_000 },
    );
    expect(await redis.pttl(journals.subjectKey('short', 'b'))).toBeLessThanOrEqual(400);
    await redis.del(stream, journals.subjectKey('short', 'a'), journals.subjectKey('short', 'b'));
  });
});

describe('the registry refuses a journal it could not keep', () => {
  const register = (cls: unknown) => new ClassRegistry([], {}).add(classDefOf(cls)!);

  test('a bad name, an INTERNAL method, two methods disagreeing on one journal', () => {
    @ActorClass({ id: 'BadName' })
    class BadName {
      @Static({ access: ['integration_user'], schema: false, journal: { name: 'no spaces' } })
      m() {
        return null;
      }
    }
    expect(() => register(BadName)).toThrow("BadName.m: journal: journal name 'no spaces' must be");

    @ActorClass({ id: 'Inside' })
    class Inside {
      @Internal({ access: ['class:Inside'], schema: false, journal: { name: 'j' } })
      m() {
        return null;
      }
    }
    expect(() => register(Inside)).toThrow('Inside.m: journal: only calls that arrive over HTTP are journaled');

    @ActorClass({ id: 'Split' })
    class Split {
      @Static({ access: ['integration_user'], schema: false, journal: { name: 'j', subjectField: 'a' } })
      one() {
        return null;
      }
      @Static({ access: ['integration_user'], schema: false, journal: { name: 'j', subjectField: 'b' } })
      two() {
        return null;
      }
    }
    expect(() => register(Split)).toThrow("Split.two: journal 'j' is kept by another method");
  });
});
