/**
 * Embedded DocumentStore benchmark: `npx tsx bench/document-store.bench.ts [--docs=N]`.
 *
 * Loads N (default 100 000) member-like documents into an EmbeddedDocumentStore
 * with the member listing's indexes, then times the listing's query kinds
 * (`find(filter, { sort: { createdAt: -1, _id: 1 }, skip, limit: 20 })`) on the
 * store and, as the in-run baseline, on plain mingo over the same documents
 * (the store's former code path: a mingo Query tested on every document, then
 * a mingo cursor sorting, skipping and limiting every match). Each query's
 * answer (ids in order, total) is checked to be identical on both sides.
 *
 * Human-readable figures go to stdout; the LAST stdout line is one JSON object:
 *   { docs, load_ms, rss_mb, heap_mb, store_heap_mb,
 *     queries: { <name>: { store_ms, mingo_ms, speedup, total, same, target_ms, met } }, targets_met }
 * speedup is mingo_ms / store_ms; same tells whether both answered the same ids in the same order and total.
 * Times are medians over repeated runs (after warm-up), in milliseconds.
 */
import { performance } from 'node:perf_hooks';
import { Query, find as mingoFind } from 'mingo';
import type { Filter, FindOptions, IndexSpec, StoredDocument } from '../runtime/stream/document-store';
import { EmbeddedDocumentStore } from '../runtime/stream/embedded-document-store';
import { MEMBER_INDEXES, listMembersFilter } from '../classes/Member/listing';

const N = Number(process.argv.find((arg) => arg.startsWith('--docs='))?.slice('--docs='.length) ?? 100_000);
const COLLECTION = 'members';

/** the member listing's own indexes */
const INDEXES: IndexSpec[] = MEMBER_INDEXES;

/** Deterministic PRNG (mulberry32), so every run loads the same documents. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST_NAMES = [
  'Alice',
  'Bob',
  'Carol',
  'Dave',
  'Eve',
  'Frank',
  'Grace',
  'Heidi',
  'Ivan',
  'Judy',
  'Mallory',
  'Niaj',
];
const STATUSES = ['active', 'inactive', 'pending', 'suspended'];
const MEMBERSHIP_STATUSES = ['active', 'expired', 'pending', 'cancelled'];

function memberDocs(n: number): StoredDocument[] {
  const random = prng(42);
  const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];
  const start = Date.parse('2020-01-01T00:00:00Z');
  const docs: StoredDocument[] = [];
  for (let i = 0; i < n; i++) {
    const id = `m${String(i).padStart(7, '0')}`;
    const name = pick(FIRST_NAMES);
    const surname = `Surname${Math.floor(random() * 5000)}`;
    const email = `${name.toLowerCase()}.${surname.toLowerCase()}${i}@Example.com`;
    const dependant = i > 10 && random() < 0.3;
    const createdAt = new Date(start + i * 60_000).toISOString();
    const memberships = Math.floor(random() * 3);
    docs.push({
      _id: id,
      _v: 1,
      _instance: id,
      _class: 'Member',
      id,
      status: pick(STATUSES),
      statusReason: null,
      name,
      middleName: null,
      surname,
      fullName: `${name} ${surname}`,
      staffId: dependant ? null : `S${100000 + i}`,
      email,
      emailLower: email.toLowerCase(),
      phone: `+4790${String(i).padStart(6, '0')}`,
      companyId: `c${Math.floor(random() * 50)}`,
      grade: `G${Math.floor(random() * 10)}`,
      memberType: pick(['employee', 'contractor', 'retiree']),
      memberSubType: null,
      loginMethod: 'email',
      primaryMemberId: dependant ? `m${String(Math.floor(random() * i)).padStart(7, '0')}` : null,
      relation: dependant ? pick(['spouse', 'child']) : null,
      isDependant: dependant,
      hasIdPhoto: random() < 0.5,
      membershipStatuses: [...new Set(Array.from({ length: memberships }, () => pick(MEMBERSHIP_STATUSES)))],
      tierIds: [],
      familyMemberCount: 0,
      hasWaitingApproval: false,
      createdAt,
      updatedAt: createdAt,
    });
  }
  return docs;
}

/** listMembers' own search filter (fullName, email and staffId, case-insensitive) */
function search(text: string): Filter {
  return listMembersFilter({ search: text });
}

const SORT = { createdAt: -1 as const, _id: 1 as const };

interface QueryCase {
  name: string;
  filter: Filter;
  options: FindOptions;
  target_ms: number;
}

const CASES: QueryCase[] = [
  { name: 'all', filter: {}, options: { sort: SORT, skip: 0, limit: 20 }, target_ms: 15 },
  { name: 'status', filter: { status: 'active' }, options: { sort: SORT, skip: 0, limit: 20 }, target_ms: 15 },
  { name: 'company', filter: { companyId: 'c7' }, options: { sort: SORT, skip: 0, limit: 20 }, target_ms: 15 },
  { name: 'search', filter: search('Surname12'), options: { sort: SORT, skip: 0, limit: 20 }, target_ms: 30 },
  {
    name: 'status+search',
    filter: { $and: [{ status: 'active' }, search('e123')] },
    options: { sort: SORT, skip: 0, limit: 20 },
    target_ms: 30,
  },
  {
    name: 'membershipStatuses',
    filter: { membershipStatuses: 'active' },
    options: { sort: SORT, skip: 0, limit: 20 },
    target_ms: 15,
  },
  { name: 'deep-page', filter: {}, options: { sort: SORT, skip: 5000, limit: 20 }, target_ms: 15 },
  {
    name: 'companies+primary',
    filter: {
      $and: [
        { companyId: { $in: ['c3', 'c4', 'c5'] } },
        { primaryMemberId: null },
        { status: { $in: ['active', 'pending'] } },
      ],
    },
    options: { sort: SORT, skip: 20, limit: 20 },
    target_ms: 15,
  },
];

/** The store's former code path, over the same documents in the same order. */
function mingoBaseline(
  docs: StoredDocument[],
  filter: Filter,
  options: FindOptions,
): { items: StoredDocument[]; total: number } {
  const query = new Query(filter);
  const matches = docs.filter((doc) => query.test(doc));
  const cursor = mingoFind(matches, {});
  if (options.sort) cursor.sort(options.sort);
  if (options.skip) cursor.skip(options.skip);
  if (options.limit) cursor.limit(options.limit);
  return { items: (cursor.all() as StoredDocument[]).map((doc) => structuredClone(doc)), total: matches.length };
}

async function median(run: () => unknown | Promise<unknown>, minRuns: number, budgetMs: number): Promise<number> {
  for (let i = 0; i < 2; i++) await run(); // warm-up
  const times: number[] = [];
  const until = performance.now() + budgetMs;
  while (times.length < minRuns || (performance.now() < until && times.length < 200)) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const docs = memberDocs(N);
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const store = new EmbeddedDocumentStore();

  const t0 = performance.now();
  await store.ensureIndexes(COLLECTION, INDEXES);
  for (const doc of docs) await store.upsertIfNewer(COLLECTION, doc);
  const loadMs = performance.now() - t0;
  gc?.();
  const memory = process.memoryUsage();
  const rssMb = Math.round(memory.rss / 1048576);
  const heapMb = Math.round(memory.heapUsed / 1048576);
  const storeMb = Math.round((memory.heapUsed - heapBefore) / 1048576);
  console.log(`loaded ${N} documents with ${INDEXES.length} indexes in ${Math.round(loadMs)} ms`);
  console.log(
    `after loading: RSS ${rssMb} MB, heap used ${heapMb} MB, of which the store about ${storeMb} MB` +
      ` (the rest is mostly the bench's own copy of the documents for the baseline${gc ? '' : '; run with node --expose-gc --import tsx for exact heap figures'})`,
  );
  console.log('');

  const results: Record<
    string,
    {
      store_ms: number;
      mingo_ms: number;
      speedup: number;
      total: number;
      same: boolean;
      target_ms: number;
      met: boolean;
    }
  > = {};
  const header = ['query', 'store ms', 'mingo ms', 'speedup', 'total', 'plan', 'same', 'target'];
  const rows: string[][] = [];
  for (const c of CASES) {
    const ours = await store.find(COLLECTION, c.filter, c.options);
    const stats = store.lastQuery;
    const theirs = mingoBaseline(docs, c.filter, c.options);
    const same =
      ours.total === theirs.total &&
      JSON.stringify(ours.items.map((item) => item._id)) === JSON.stringify(theirs.items.map((item) => item._id));

    const storeMs = await median(() => store.find(COLLECTION, c.filter, c.options), 20, 1000);
    const mingoMs = await median(() => mingoBaseline(docs, c.filter, c.options), 3, 1500);
    const met = same && storeMs <= c.target_ms;
    results[c.name] = {
      store_ms: round(storeMs),
      mingo_ms: round(mingoMs),
      speedup: round(mingoMs / storeMs),
      total: ours.total,
      same,
      target_ms: c.target_ms,
      met,
    };
    const plan = stats
      ? `${stats.plan}${stats.index ? `:${stats.index}` : ''}/${stats.order ?? ''} tested ${stats.tested}`
      : '';
    rows.push([
      c.name,
      storeMs.toFixed(2),
      mingoMs.toFixed(1),
      `${(mingoMs / storeMs).toFixed(1)}x`,
      String(ours.total),
      plan,
      same ? 'yes' : 'NO',
      `≤${c.target_ms}${met ? '' : ' MISSED'}`,
    ]);
  }

  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log('');

  const targetsMet = Object.values(results).every((r) => r.met);
  console.log(
    JSON.stringify({
      docs: N,
      load_ms: Math.round(loadMs),
      rss_mb: rssMb,
      heap_mb: heapMb,
      store_heap_mb: storeMb,
      queries: results,
      targets_met: targetsMet,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
