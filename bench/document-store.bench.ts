/**
 * Embedded DocumentStore benchmark: `npx tsx bench/document-store.bench.ts [--docs=N] [--runs=R] [--only=REGEX]`.
 *
 * Loads N (default 100 000) member-like documents into an EmbeddedDocumentStore with the
 * indexes the runtime derives for the members collection (MEMBER_INDEXES, LIST_MEMBERS'
 * filter sets, the tenant field), then times the queries the classes send it: listMembers
 * (`find(filter, { sort: { createdAt: -1, _id: 1 }, skip, limit: 20 })`, its filter built by
 * listMembersFilter and, for a company user, wrapped as the tenancy layer does), the HR
 * quarantine's listing and the HR hold's count.
 *
 * Each query is also answered, over the same documents in the same order, by two baselines:
 *  - `array`: plain Array.filter with a hand-written predicate, then Array.sort, slice
 *    (the least code could do, for no query language at all);
 *  - `mingo`: the mingo library alone (a Query tested on every document, a mingo cursor
 *    sorting, skipping and limiting), i.e. the store with its indexes, search columns,
 *    compiled matcher and sorted views cut.
 * Every answer (ids in order, total) is checked to be the same on the three.
 *
 * Human-readable figures go to stdout; the LAST stdout line is one JSON object:
 *   { docs, runs, load_ms, store_heap_mb, docs_heap_mb, rss_mb, target_p95_ms,
 *     queries: { <name>: { total, same, store: {p50,p95,p99}, array: {...}, mingo: {...} } },
 *     worst_p95_ms: { store, array, mingo }, target_met: { store, array, mingo } }
 * Times are milliseconds per query after warm-up.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Query, find as mingoFind } from 'mingo';
import type { Filter, FindOptions, StoredDocument } from '../runtime/stream/document-store';
import { EmbeddedDocumentStore } from '../runtime/stream/embedded-document-store';
import { collectionIndexes } from '../runtime/stream/listing';
import { scopedFilter } from '../runtime/auth/tenancy';
import {
  LIST_MEMBERS,
  MEMBER_INDEXES,
  listMembersFilter,
  type ListMembersQuery,
} from '../classes/Member/listing-rules';

const arg = (name: string, dflt: number): number =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt);
const N = arg('docs', 100_000);
const RUNS = arg('runs', 40);
const ONLY = new RegExp(process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? '');
const TARGET_P95_MS = 50;
const COLLECTION = 'members';

/** the indexes the runtime gives the members collection (see Member.class.ts's stream declaration) */
const INDEXES = collectionIndexes(COLLECTION, {
  indexes: MEMBER_INDEXES,
  listings: [LIST_MEMBERS],
  tenantField: 'companyId',
});

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
    const held = random() < 0.002;
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
      // the HR quarantine holds about one member in 500
      hrDeactivationHeld: held,
      hrHeldAt: held ? createdAt : null,
      createdAt,
      updatedAt: createdAt,
    });
  }
  return docs;
}

type Doc = StoredDocument;

interface QueryCase {
  name: string;
  filter: Filter;
  options: FindOptions;
  /** the same filter written by hand, for the Array.filter baseline */
  test: (d: Doc) => boolean;
  /** count() instead of find() */
  count?: boolean;
}

const SORT = LIST_MEMBERS.sort;
const page = (n: number): FindOptions => ({ sort: SORT, skip: (n - 1) * 20, limit: 20 });

/** what listMembers sends for a query string; `company` set: a company user's, scoped as runtime/auth/tenancy.ts does */
const listing = (q: ListMembersQuery, company?: string): Filter => {
  const filter = listMembersFilter(q);
  return company ? scopedFilter(filter, 'companyId', company) : filter;
};

const contains = (text: string) => {
  const lower = text.toLowerCase();
  return (v: unknown) => typeof v === 'string' && v.toLowerCase().includes(lower);
};
const searchTest = (text: string) => {
  const has = contains(text);
  return (d: Doc) => has(d.fullName) || has(d.email) || has(d.staffId);
};

const CASES: QueryCase[] = [
  { name: 'admin:all', filter: listing({}), options: page(1), test: () => true },
  { name: 'admin:all:page250', filter: listing({}), options: page(250), test: () => true },
  { name: 'admin:status', filter: listing({ status: 'active' }), options: page(1), test: (d) => d.status === 'active' },
  { name: 'admin:company', filter: listing({ companyId: 'c7' }), options: page(1), test: (d) => d.companyId === 'c7' },
  {
    name: 'admin:company+status',
    filter: listing({ companyId: 'c7', status: 'active' }),
    options: page(1),
    test: (d) => d.companyId === 'c7' && d.status === 'active',
  },
  { name: 'company:all', filter: listing({}, 'c7'), options: page(1), test: (d) => d.companyId === 'c7' },
  {
    name: 'company:status',
    filter: listing({ status: 'pending' }, 'c7'),
    options: page(3),
    test: (d) => d.companyId === 'c7' && d.status === 'pending',
  },
  {
    name: 'company:status+search',
    filter: listing({ status: 'active', search: 'alice' }, 'c7'),
    options: page(1),
    test: (d) => d.companyId === 'c7' && d.status === 'active' && searchTest('alice')(d),
  },
  { name: 'admin:search', filter: listing({ search: 'Surname12' }), options: page(1), test: searchTest('Surname12') },
  {
    name: 'admin:search:email',
    filter: listing({ search: 'e123@example' }),
    options: page(1),
    test: searchTest('e123@example'),
  },
  {
    name: 'admin:status+search',
    filter: listing({ status: 'active', search: 'e123' }),
    options: page(1),
    test: (d) => d.status === 'active' && searchTest('e123')(d),
  },
  {
    name: 'admin:membershipStatus',
    filter: listing({ membershipStatus: ['active', 'pending'] }),
    options: page(1),
    test: (d) => (d.membershipStatuses as string[]).some((s) => s === 'active' || s === 'pending'),
  },
  {
    name: 'admin:companies+primary+status',
    filter: listing({ companyId: ['c3', 'c4', 'c5'], primaryOnly: true, status: ['active', 'pending'] }),
    options: page(2),
    test: (d) =>
      ['c3', 'c4', 'c5'].includes(d.companyId as string) &&
      d.primaryMemberId === null &&
      (d.status === 'active' || d.status === 'pending'),
  },
  {
    // the shape of getLogEntries' date range (classes/LogManager/listing-rules.ts): a range is not planned, so
    // every document is tested (a scan), as a date-bounded audit log listing is
    name: 'scan:createdAt-range+grade',
    filter: { createdAt: { $gte: '2020-03-01T00:00:00.000Z', $lte: '2020-05-01T00:00:00.000Z' }, grade: 'G3' },
    options: page(1),
    test: (d) =>
      (d.createdAt as string) >= '2020-03-01T00:00:00.000Z' &&
      (d.createdAt as string) <= '2020-05-01T00:00:00.000Z' &&
      d.grade === 'G3',
  },
  {
    // listHeldHrPushes (classes/Member/use-cases/hr-quarantine.ts)
    name: 'hr-quarantine',
    filter: { hrDeactivationHeld: true },
    options: { sort: { hrHeldAt: 1, _id: 1 }, skip: 0, limit: 20 },
    test: (d) => d.hrDeactivationHeld === true,
  },
  {
    // the HR hold's active head count (classes/Member/use-cases/hr-hold.ts)
    name: 'count:company+active',
    filter: { companyId: 'c7', status: 'active' },
    options: {},
    test: (d) => d.companyId === 'c7' && d.status === 'active',
    count: true,
  },
];

interface Answer {
  ids: string[];
  total: number;
}

/** Array.sort comparator for a sort of string/null fields, as MongoDB orders them (null first ascending) */
function comparator(sort: Record<string, 1 | -1>): (a: Doc, b: Doc) => number {
  const keys = Object.entries(sort);
  return (a, b) => {
    for (const [field, dir] of keys) {
      const x = a[field] as string | null | undefined;
      const y = b[field] as string | null | undefined;
      if (x === y) continue;
      if (x == null) return -dir;
      if (y == null) return dir;
      return x < y ? -dir : dir;
    }
    return 0;
  };
}

function arrayAnswer(docs: Doc[], c: QueryCase): Answer {
  const matches = docs.filter(c.test);
  if (c.count) return { ids: [], total: matches.length };
  if (c.options.sort) matches.sort(comparator(c.options.sort));
  const skip = c.options.skip ?? 0;
  const items = matches.slice(skip, skip + (c.options.limit ?? matches.length)).map((d) => structuredClone(d));
  return { ids: items.map((d) => d._id), total: matches.length };
}

function mingoAnswer(docs: Doc[], c: QueryCase): Answer {
  const query = new Query(c.filter);
  const matches = docs.filter((doc) => query.test(doc));
  if (c.count) return { ids: [], total: matches.length };
  const cursor = mingoFind(matches, {});
  if (c.options.sort) cursor.sort(c.options.sort);
  if (c.options.skip) cursor.skip(c.options.skip);
  if (c.options.limit) cursor.limit(c.options.limit);
  const items = (cursor.all() as Doc[]).map((d) => structuredClone(d));
  return { ids: items.map((d) => d._id), total: matches.length };
}

async function storeAnswer(store: EmbeddedDocumentStore, c: QueryCase): Promise<Answer> {
  if (c.count) return { ids: [], total: await store.count(COLLECTION, c.filter) };
  const { items, total } = await store.find(COLLECTION, c.filter, c.options);
  return { ids: items.map((d) => d._id), total };
}

interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

/** p50/p95/p99 of `runs` timed runs after two untimed ones */
async function percentiles(run: () => unknown, runs: number): Promise<Percentiles> {
  for (let i = 0; i < 2; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => round(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** gc() without --expose-gc on the command line (npx tsx passes no node flags) */
function gcFunction(): () => void {
  setFlagsFromString('--expose_gc');
  return runInNewContext('gc') as () => void;
}

const mb = (bytes: number): number => Math.round(bytes / 1048576);

async function main(): Promise<void> {
  const gc = gcFunction();
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const docs = memberDocs(N);
  gc();
  const heap1 = process.memoryUsage().heapUsed;
  const store = new EmbeddedDocumentStore();
  const t0 = performance.now();
  await store.ensureIndexes(COLLECTION, INDEXES);
  for (const doc of docs) await store.upsertIfNewer(COLLECTION, doc);
  const loadMs = performance.now() - t0;
  gc();
  const heap2 = process.memoryUsage().heapUsed;
  const rssMb = mb(process.memoryUsage().rss);
  console.log(`${N} documents, ${INDEXES.length} indexes: loaded in ${Math.round(loadMs)} ms`);
  console.log(
    `heap: the documents ${mb(heap1 - heap0)} MB (the baselines' array), the store ${mb(heap2 - heap1)} MB ` +
      `(its own copies, indexes, views); RSS ${rssMb} MB`,
  );
  console.log(`${RUNS} timed runs per query (mingo: ${Math.max(5, Math.round(RUNS / 4))}); p50/p95/p99 ms\n`);

  const queries: Record<
    string,
    { total: number; same: boolean; store: Percentiles; array: Percentiles; mingo: Percentiles }
  > = {};
  const rows: string[][] = [];
  for (const c of CASES.filter((q) => ONLY.test(q.name))) {
    const ours = await storeAnswer(store, c);
    const plain = arrayAnswer(docs, c);
    const theirs = mingoAnswer(docs, c);
    const key = (a: Answer) => JSON.stringify(a);
    const same = key(ours) === key(plain) && key(ours) === key(theirs);
    const s = await percentiles(() => storeAnswer(store, c), RUNS);
    const a = await percentiles(() => arrayAnswer(docs, c), Math.max(10, Math.round(RUNS / 2)));
    const m = await percentiles(() => mingoAnswer(docs, c), Math.max(5, Math.round(RUNS / 4)));
    queries[c.name] = { total: ours.total, same, store: s, array: a, mingo: m };
    const fmt = (p: Percentiles) => `${p.p50}/${p.p95}/${p.p99}`;
    rows.push([c.name, String(ours.total), same ? 'yes' : 'NO', fmt(s), fmt(a), fmt(m)]);
  }
  const header = ['query', 'total', 'same', 'store', 'array.filter+sort', 'mingo alone'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));

  const worst = (side: 'store' | 'array' | 'mingo') => Math.max(...Object.values(queries).map((q) => q[side].p95));
  const worstP95 = { store: worst('store'), array: worst('array'), mingo: worst('mingo') };
  const allSame = Object.values(queries).every((q) => q.same);
  console.log(
    `\nworst p95: store ${worstP95.store} ms, array ${worstP95.array} ms, mingo ${worstP95.mingo} ms ` +
      `(target ${TARGET_P95_MS} ms); answers ${allSame ? 'identical' : 'DIFFER'}`,
  );
  console.log(
    JSON.stringify({
      docs: N,
      runs: RUNS,
      load_ms: Math.round(loadMs),
      store_heap_mb: mb(heap2 - heap1),
      docs_heap_mb: mb(heap1 - heap0),
      rss_mb: rssMb,
      target_p95_ms: TARGET_P95_MS,
      same: allSame,
      queries,
      worst_p95_ms: worstP95,
      target_met: {
        store: worstP95.store <= TARGET_P95_MS,
        array: worstP95.array <= TARGET_P95_MS,
        mingo: worstP95.mingo <= TARGET_P95_MS,
      },
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
