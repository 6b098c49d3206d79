/**
 * EmbeddedDocumentStore beyond the contract suite: its answers must be exactly
 * what mingo gives over the same documents in the same order (same documents,
 * same order, same total), whatever path a query takes (index candidates,
 * compiled matcher, mingo fallback, top-k, sorted views), also after updates,
 * deletes and drops. Plus focused tests that the planner uses its indexes.
 */
import { find as mingoFind } from 'mingo';
import type { Filter, FindOptions, Sort, StoredDocument } from '../../runtime/stream/document-store';
import { EmbeddedDocumentStore, type QueryStats } from '../../runtime/stream/embedded-document-store';

/** Deterministic PRNG (mulberry32). */
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

type Random = () => number;
const pick = <T>(r: Random, values: readonly T[]): T => values[Math.floor(r() * values.length)];
const chance = (r: Random, p: number): boolean => r() < p;

/** Leaves the field out of the document. */
const MISSING = Symbol('missing');

const STRINGS = ['a', 'b', 'c', 'A', 'B', 'ab', 'ba', 'abc', '', 'Zed', 'zed'];
const NUMBERS = [0, 1, 2, 3, -1, 2.5, 10, 100, -0];
const DATES = ['2021-01-01T00:00:00Z', '2022-06-15T12:00:00Z', '2023-03-03T03:03:03Z'].map((iso) => new Date(iso));

function scalar(r: Random): unknown {
  const x = r();
  if (x < 0.55) return pick(r, STRINGS);
  if (x < 0.85) return pick(r, NUMBERS);
  if (x < 0.93) return null;
  if (x < 0.99) return pick(r, [true, false]);
  return Number.NaN;
}

/** Any kind of value: scalars, null, missing, arrays (of scalars, of objects, nested), objects, dates. */
function anyValue(r: Random, depth = 0): unknown {
  const x = r();
  if (x < 0.1) return MISSING;
  if (x < 0.55) return scalar(r);
  if (x < 0.72) return Array.from({ length: Math.floor(r() * 4) }, () => scalar(r));
  if (x < 0.8) return pick(r, DATES);
  if (x < 0.9 && depth < 2) {
    const inner: Record<string, unknown> = {};
    set(inner, 'z', anyValue(r, depth + 1));
    const outer: Record<string, unknown> = { y: inner };
    set(outer, 'x', anyValue(r, depth + 1));
    return outer;
  }
  if (depth < 2)
    return [{ x: scalar(r) }, { x: scalar(r), y: { z: scalar(r) } }, [pick(r, STRINGS)]].slice(
      0,
      1 + Math.floor(r() * 3),
    );
  return scalar(r);
}

function set(doc: Record<string, unknown>, field: string, value: unknown): void {
  if (value !== MISSING) doc[field] = value;
}

const INSTANCES = ['i1', 'i2', 'i3', 'i4', 'i5'];

function randomDoc(r: Random, id: unknown, version: number): StoredDocument {
  const doc: Record<string, unknown> = { _id: id, _v: version, _instance: pick(r, INSTANCES), _class: 'Thing' };
  // mostly strings, with the odd other value
  // one value most documents share (as most members are active)
  set(doc, 'status', chance(r, 0.8) ? pick(r, ['a', 'a', 'a', 'b', 'c', 'A', null]) : anyValue(r));
  set(doc, 'n', chance(r, 0.75) ? pick(r, NUMBERS) : anyValue(r));
  // mostly arrays of strings (multikey)
  set(
    doc,
    'tags',
    chance(r, 0.7) ? Array.from({ length: Math.floor(r() * 4) }, () => pick(r, ['a', 'b', 'c', 'd'])) : anyValue(r),
  );
  const nested: Record<string, unknown> = { y: { z: scalar(r) } };
  set(nested, 'x', chance(r, 0.8) ? pick(r, ['a', 'b', 1, 2, null]) : anyValue(r, 1));
  set(doc, 'nested', chance(r, 0.6) ? nested : anyValue(r));
  set(doc, 'mixed', anyValue(r));
  // names with letters whose case folding is not ASCII's (ſ folds to S, K to the Kelvin sign's K, ß and İ to themselves)
  set(
    doc,
    'name',
    chance(r, 0.85)
      ? `${pick(r, ['Ann', 'bob', 'Cy', 'dee', 'Åsa', 'ſam'])} ${pick(r, ['Smith', 'jones', 'Ab12', 'e123x', 'Straße', 'İzmir', 'Kelvin'])}`
      : anyValue(r),
  );
  // Sortable values only (so these two fields get sorted views): ISO strings with many ties,
  // sometimes missing or of another type; small numbers with ties, sometimes null or missing.
  set(
    doc,
    'createdAt',
    chance(r, 0.9)
      ? `2024-01-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`
      : pick(r, [MISSING, null, 7, true, '']),
  );
  set(doc, 'rank', chance(r, 0.9) ? Math.floor(r() * 5) : pick(r, [MISSING, null, -0, 2.5]));
  return doc as StoredDocument;
}

const FIELDS = [
  'status',
  'n',
  'tags',
  'nested',
  'nested.x',
  'nested.y.z',
  'mixed',
  'name',
  'createdAt',
  'rank',
  '_id',
  'absent',
  'tags.0',
  'nested.0.x',
];

function operand(r: Random): unknown {
  const x = r();
  if (x < 0.7) return scalar(r);
  if (x < 0.8) return pick(r, DATES);
  if (x < 0.9) return Array.from({ length: Math.floor(r() * 3) }, () => pick(r, ['a', 'b', 'c', 'd']));
  return { x: scalar(r) };
}

function regex(r: Random): { $regex: string | RegExp; $options?: string } | RegExp {
  // anchors and alternatives, and literals as escapeRegex writes search terms (with digits, spaces, dots, dashes)
  const pattern = pick(r, [
    '^a',
    'b$',
    'A',
    'a|c',
    '^$',
    '\\d',
    'e12',
    'sm',
    '1',
    'Ab12',
    'n a',
    'E123x',
    '3x',
    'y-1',
    'b\\.',
    'ith',
    'SAM',
    'åSA',
    'STRASSE',
    'ße',
    'izmir',
    'İZ',
    'kel',
    '\u212aEL',
  ]);
  const x = r();
  if (x < 0.4) return { $regex: pattern, $options: 'i' };
  if (x < 0.7) return { $regex: pattern };
  if (x < 0.85) return new RegExp(pattern, 'i');
  return new RegExp(pattern);
}

/** One operator condition for a field, from the compiled subset and beyond it. */
function operatorCondition(r: Random): Record<string, unknown> {
  const op = pick(r, [
    '$eq',
    '$ne',
    '$in',
    '$nin',
    '$gt',
    '$gte',
    '$lt',
    '$lte',
    '$regex',
    '$exists',
    '$not',
    '$size',
    '$all',
    '$elemMatch',
    '$type',
    'range',
  ]);
  switch (op) {
    case '$in':
    case '$nin':
      return {
        [op]: Array.from({ length: Math.floor(r() * 4) }, () =>
          chance(r, 0.15) ? new RegExp(pick(r, ['^a', 'B'])) : scalar(r),
        ),
      };
    case '$regex':
      return regex(r) instanceof RegExp ? { $regex: regex(r) } : (regex(r) as Record<string, unknown>);
    case '$exists':
      return { $exists: chance(r, 0.5) };
    case '$not':
      return { $not: chance(r, 0.5) ? regex(r) : operatorCondition(r) };
    case '$size':
      return { $size: Math.floor(r() * 3) };
    case '$all':
      return { $all: [pick(r, ['a', 'b', 'c'])] };
    case '$elemMatch':
      return { $elemMatch: { x: scalar(r) } };
    case '$type':
      return { $type: pick(r, ['string', 'number', 'array', 'null']) };
    case 'range':
      return { $gte: pick(r, ['a', 1]), $lt: pick(r, ['c', 3]) };
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return { [op]: chance(r, 0.85) ? scalar(r) : pick(r, DATES) };
    default:
      return { [op]: operand(r) };
  }
}

function randomFilter(r: Random, depth = 0): Filter {
  const filter: Filter = {};
  const parts = 1 + Math.floor(r() * (depth === 0 ? 3 : 2));
  for (let i = 0; i < parts; i++) {
    const x = r();
    if (x < 0.12 && depth < 2) {
      const op = pick(r, ['$and', '$or', '$nor', '$and']);
      filter[op] = Array.from({ length: Math.floor(r() * 3) + (op === '$nor' ? 1 : 0) }, () =>
        randomFilter(r, depth + 1),
      );
    } else if (x < 0.14) {
      filter.$expr = { $gt: ['$rank', 2] };
    } else {
      const field = pick(r, FIELDS);
      const y = r();
      if (y < 0.35) filter[field] = chance(r, 0.85) ? scalar(r) : operand(r);
      else if (y < 0.45) filter[field] = regex(r);
      else filter[field] = operatorCondition(r);
    }
  }
  return filter;
}

const SORT_FIELDS = ['createdAt', 'status', 'n', '_id', 'name', 'createdAt', 'rank', 'nested.x'];
/** fields holding arrays and objects: mingo sorts them (slowly), so they come up less often */
const MESSY_SORT_FIELDS = ['mixed', 'tags', 'nested'];

function randomOptions(r: Random): FindOptions {
  const options: FindOptions = {};
  if (chance(r, 0.8)) {
    const sort: Sort = {};
    const width = 1 + Math.floor(r() * 3);
    // often a sort the sorted views can serve, like the listings' { createdAt: -1, _id: 1 }
    const fields = chance(r, 0.5) ? [pick(r, ['createdAt', 'rank']), pick(r, ['_id', 'rank', 'createdAt']), '_id'] : [];
    for (let i = 0; i < width; i++)
      sort[fields[i] ?? pick(r, chance(r, 0.1) ? MESSY_SORT_FIELDS : SORT_FIELDS)] = chance(r, 0.5) ? 1 : -1;
    options.sort = sort;
  }
  if (chance(r, 0.7)) options.skip = pick(r, [0, 1, 5, 20, 50, 2000]);
  if (chance(r, 0.8)) options.limit = pick(r, [0, 1, 3, 10, 20, 100]);
  const projections: Array<Record<string, 0 | 1>> = [{ name: 1 }, { status: 1, 'nested.x': 1 }, { name: 1, _id: 0 }];
  if (chance(r, 0.15)) options.projection = pick(r, projections);
  return options;
}

/**
 * What mingo gives over the documents in collection order (the store's former
 * code path): `mingo.find(all, filter)`, then sort, skip, limit (a limit of 0
 * meaning none) and projection.
 */
function expected(all: StoredDocument[], filter: Filter, options: FindOptions): { items: unknown[]; total: number } {
  const matched = mingoFind(all, filter).all();
  const cursor = mingoFind(matched, {}, options.projection ?? {});
  if (options.sort && Object.keys(options.sort).length > 0) cursor.sort(options.sort);
  if (options.skip) cursor.skip(options.skip);
  if (options.limit) cursor.limit(options.limit);
  return { items: cursor.all(), total: matched.length };
}

/**
 * A string equal for equal documents (key order included, -0 apart from 0,
 * dates by time): a much cheaper comparison of thousands of documents than
 * toEqual, and blind to the realm an object comes from (under jest, objects
 * made by structuredClone belong to the outer realm).
 */
function canonical(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (Object.prototype.toString.call(value) === '[object Date]') return `Date(${(value as Date).getTime()})`;
  if (typeof value === 'object') {
    const fields = Object.entries(value as Record<string, unknown>).map(
      ([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`,
    );
    return `{${fields.join(',')}}`;
  }
  return String(value);
}

/**
 * The model's own copy of a document, made in this realm as the store makes
 * its copies (under jest, structuredClone's copies belong to the outer realm,
 * where mingo no longer recognises a Date as one): the random documents hold
 * plain objects, arrays, dates and scalars.
 */
function copyOf<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copyOf) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, copyOf(v)])) as T;
  }
  return value;
}

describe('EmbeddedDocumentStore gives exactly mingo answers on random documents, filters, sorts and pages', () => {
  const r = prng(20240611);
  const store = new EmbeddedDocumentStore();
  const coll = 'things';
  /** the model: a Map keeps a replaced key in place and appends a re-inserted one, as the store's order */
  const model = new Map<unknown, StoredDocument>();
  /** the last version written per id (deleted ones included) */
  const versions = new Map<unknown, number>();
  /** the version of each instance's last deleteStale: its writes below it are refused */
  const tombstones = new Map<string, number>();
  const seen: QueryStats[] = [];
  let nextId = 0;

  /** Writes a random document at a newer version, or at `version`; checks the store wrote exactly when it should. */
  async function write(id: unknown, version = (versions.get(id) ?? 0) + 1 + Math.floor(r() * 2)): Promise<void> {
    const doc = randomDoc(r, id, version);
    const current = model.get(id);
    const accepted = (!current || current._v < version) && version >= (tombstones.get(doc._instance) ?? 0);
    await expect(store.upsertIfNewer(coll, doc)).resolves.toBe(accepted);
    if (accepted) {
      model.set(id, copyOf(doc));
      versions.set(id, Math.max(version, versions.get(id) ?? 0));
    }
  }

  async function mutate(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const x = r();
      const ids = [...versions.keys()];
      if (x < 0.5)
        await write(pick(r, ids)); // update, or re-insert a deleted id
      else if (x < 0.6)
        await write(pick(r, ids), 1 + Math.floor(r() * 3)); // mostly stale: ignored
      else if (x < 0.9)
        await write(`d${nextId++}`); // insert
      else {
        const instance = pick(r, INSTANCES);
        const version = 1 + Math.floor(r() * 3);
        let deleted = 0;
        for (const [id, doc] of model) {
          if (doc._instance === instance && doc._v < version) {
            model.delete(id);
            deleted++;
          }
        }
        tombstones.set(instance, Math.max(version, tombstones.get(instance) ?? 0));
        await expect(store.deleteStale(coll, instance, version)).resolves.toBe(deleted);
      }
    }
  }

  /** Runs random queries on the store and on mingo over the model; every answer must be the same. */
  async function check(queries: number): Promise<void> {
    const all = [...model.values()];
    for (let q = 0; q < queries; q++) {
      // empty filters, single equalities on indexed fields (as listings filter), and anything
      const x = r();
      const filter =
        x < 0.15
          ? {}
          : x < 0.3
            ? { [pick(r, ['status', 'status', 'tags', 'n'])]: pick(r, ['a', 'a', 'b', 'A', 1, null]) }
            : randomFilter(r);
      const options = randomOptions(r);
      const context = JSON.stringify({ filter, options }, (_k, v: unknown) => (v instanceof RegExp ? v.toString() : v));
      let want: { items: unknown[]; total: number };
      try {
        want = expected(all, filter, options);
      } catch {
        // mingo rejects the query: so must the store
        await expect(store.find(coll, filter, options)).rejects.toThrow();
        continue;
      }
      const got = await store.find(coll, filter, options);
      if (store.lastQuery) seen.push(store.lastQuery);
      try {
        expect(got.total).toBe(want.total);
        expect(got.items.map((item) => item._id)).toEqual(want.items.map((item) => (item as { _id?: unknown })._id));
        expect(canonical(got.items)).toBe(canonical(want.items));
        await expect(store.count(coll, filter)).resolves.toBe(want.total);
      } catch (e) {
        throw new Error(`${context}\n${String(e)}`, { cause: e });
      }
    }
  }

  beforeAll(async () => {
    await store.ensureIndexes(coll, [{ keys: { status: 1 } }, { keys: { tags: 1 } }, { keys: { createdAt: -1 } }]);
    for (let i = 0; i < 2000; i++) await write(`d${nextId++}`);
    // a non-string _id turns the _id lookups off
    await write(12345);
    // indexes made over documents already there
    await store.ensureIndexes(coll, [
      { keys: { n: 1 } },
      { keys: { 'nested.x': 1 } },
      { keys: { name: 1 } },
      { keys: { rank: -1, createdAt: 1 } },
      { keys: { mixed: 1 } },
      { keys: { name: 'text' } },
    ]);
  });

  afterAll(() => store.close());

  it('after loading', () => check(300));

  it.each([1, 2, 3, 4])('after updates, stale writes and deletes (round %i)', async () => {
    await mutate(250);
    await check(150);
  });

  it('after a drop and a reload', async () => {
    await store.drop(coll);
    model.clear();
    versions.clear();
    tombstones.clear();
    await check(20);
    for (let i = 0; i < 800; i++) await write(`e${i}`);
    await check(150);
  });

  it('went through every path', () => {
    const count = (pred: (s: QueryStats) => boolean): number => seen.filter(pred).length;
    expect(seen.length).toBeGreaterThan(900);
    expect(count((s) => s.plan === 'all')).toBeGreaterThan(50);
    expect(count((s) => s.plan === 'index')).toBeGreaterThan(50);
    expect(count((s) => s.plan === 'index' && s.tested === 0)).toBeGreaterThan(10);
    expect(count((s) => s.plan === 'search')).toBeGreaterThan(20);
    expect(count((s) => s.plan === 'search' && (s.rebuilt ?? 0) > 0)).toBeGreaterThan(3);
    expect(count((s) => s.plan === 'scan' && !s.mingoFilter)).toBeGreaterThan(50);
    expect(count((s) => s.mingoFilter)).toBeGreaterThan(10);
    expect(count((s) => s.order === 'walk' && s.plan === 'all')).toBeGreaterThan(5);
    expect(count((s) => s.order === 'walk' && s.plan === 'index')).toBeGreaterThan(5);
    expect(count((s) => s.order === 'top-k' && s.ranked === true)).toBeGreaterThan(10);
    expect(count((s) => s.order === 'top-k' && !s.ranked)).toBeGreaterThan(10);
    expect(count((s) => s.order === 'sort')).toBeGreaterThan(10);
    expect(count((s) => s.order === 'mingo')).toBeGreaterThan(10);
    expect(count((s) => s.order === 'none')).toBeGreaterThan(10);
  });
});

describe('EmbeddedDocumentStore planner', () => {
  const statuses = ['active', 'inactive', 'pending', 'closed'];
  let store: EmbeddedDocumentStore;

  function member(i: number, fields: Record<string, unknown> = {}, version = 1): StoredDocument {
    return {
      _id: `m${String(i).padStart(4, '0')}`,
      _v: version,
      _instance: `inst-${i % 10}`,
      _class: 'Member',
      status: statuses[i % 4],
      companyId: `c${i % 20}`,
      roles: i % 3 === 0 ? ['admin', 'staff'] : ['staff'],
      createdAt: `2024-01-01T00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`,
      ...(i % 5 === 0 ? {} : { primaryId: i % 7 === 0 ? null : `m${i % 13}` }),
      ...fields,
    };
  }

  beforeEach(async () => {
    store = new EmbeddedDocumentStore();
    await store.ensureIndexes('members', [
      { keys: { status: 1 } },
      { keys: { companyId: 1, createdAt: -1 } },
      { keys: { roles: 1 } },
      { keys: { primaryId: 1 } },
      { keys: { createdAt: -1 } },
    ]);
    for (let i = 0; i < 1000; i++) await store.upsertIfNewer('members', member(i));
  });

  afterEach(() => store.close());

  it('answers an indexed equality from the index alone, without testing any document', async () => {
    await expect(store.count('members', { status: 'active' })).resolves.toBe(250);
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'status', tested: 0, matched: 250 });
  });

  it('tests only the candidates of the smallest index bucket', async () => {
    await expect(store.count('members', { status: 'active', companyId: 'c4' })).resolves.toBe(50);
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'companyId', tested: 50 });

    const filter = { $and: [{ companyId: { $in: ['c1', 'c2'] } }, { status: { $ne: 'closed' } }] };
    await expect(store.count('members', filter)).resolves.toBe(100);
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'companyId', tested: 100 });
  });

  it('scans when no indexed field has an equality', async () => {
    await expect(store.count('members', { status: { $ne: 'active' } })).resolves.toBe(750);
    expect(store.lastQuery).toMatchObject({ plan: 'scan', tested: 1000 });
    await expect(store.count('members', { $or: [{ status: 'active' }, { companyId: 'c1' }] })).resolves.toBe(300);
    expect(store.lastQuery).toMatchObject({ plan: 'scan' });
  });

  it('uses multikey entries: an element equality finds arrays holding it, a whole-array equality is tested', async () => {
    await expect(store.count('members', { roles: 'admin' })).resolves.toBe(334);
    expect(store.lastQuery).toMatchObject({ plan: 'index', tested: 0 });
    // not planned from the index (an array operand), but the same answer as mingo
    const all = (await store.find('members', {})).items;
    for (const filter of [{ roles: ['admin', 'staff'] }, { roles: ['staff', 'admin'] }, { roles: ['staff'] }]) {
      await expect(store.count('members', filter)).resolves.toBe(mingoFind(all, filter).all().length);
      expect(store.lastQuery).toMatchObject({ plan: 'scan' });
    }
  });

  it('finds null and missing values through the null key', async () => {
    const missing = 200;
    const nulls = [...Array(1000).keys()].filter((i) => i % 5 !== 0 && i % 7 === 0).length;
    await expect(store.count('members', { primaryId: null })).resolves.toBe(missing + nulls);
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'primaryId', tested: 0 });
    await expect(store.count('members', { primaryId: { $in: [null, 'm1'] } })).resolves.toBe(
      missing + nulls + [...Array(1000).keys()].filter((i) => i % 5 !== 0 && i % 7 !== 0 && i % 13 === 1).length,
    );
  });

  it('keeps indexes in step with updates, deletes and drop', async () => {
    await store.upsertIfNewer('members', member(0, { status: 'inactive', roles: ['guest'] }, 2));
    await expect(store.count('members', { status: 'active' })).resolves.toBe(249);
    await expect(store.count('members', { status: 'inactive' })).resolves.toBe(251);
    await expect(store.count('members', { roles: 'guest' })).resolves.toBe(1);
    await expect(store.count('members', { roles: 'admin' })).resolves.toBe(333);

    // instance inst-1 holds members 1, 11, 21, …: 100 documents, half of them inactive (i % 4 === 1)
    await expect(store.deleteStale('members', 'inst-1', 2)).resolves.toBe(100);
    await expect(store.count('members', { status: 'inactive' })).resolves.toBe(201);
    expect(store.lastQuery).toMatchObject({ plan: 'index', tested: 0 });

    await store.drop('members');
    await expect(store.count('members', { status: 'inactive' })).resolves.toBe(0);
    await store.upsertIfNewer('members', member(1));
    await store.upsertIfNewer('members', member(2));
    await expect(store.count('members', { status: 'inactive' })).resolves.toBe(1);
    expect(store.lastQuery).toMatchObject({ plan: 'index', tested: 0 });
  });

  it('indexes documents loaded before ensureIndexes', async () => {
    await store.upsertIfNewer('members', member(6, { profile: { tier: 'silver' } }, 2));
    await store.ensureIndexes('members', [{ keys: { 'profile.tier': 1 } }]);
    await expect(store.count('members', { 'profile.tier': 'silver' })).resolves.toBe(1);
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'profile.tier', tested: 0 });
    await expect(store.count('members', { 'profile.tier': null })).resolves.toBe(999);
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'profile.tier', tested: 0 });
    await store.upsertIfNewer('members', member(5, { profile: { tier: 'gold' } }, 2));
    await expect(store.count('members', { 'profile.tier': 'gold' })).resolves.toBe(1);
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'profile.tier', tested: 0 });
  });

  it('looks documents up by _id', async () => {
    const { items, total } = await store.find('members', {
      _id: { $in: ['m0003', 'm0001', 'nope'] },
      status: { $exists: true },
    });
    expect(items.map((item) => item._id)).toEqual(['m0001', 'm0003']);
    expect(total).toBe(2);
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: '_id', tested: 2 });
  });

  it('pages an unfiltered listing sorted by an indexed field from its sorted view', async () => {
    const sort = { createdAt: -1 as const, _id: 1 as const };
    const { items, total } = await store.find('members', {}, { sort, skip: 990, limit: 20 });
    expect(total).toBe(1000);
    expect(items.map((item) => item._id)).toEqual([
      'm0009',
      'm0008',
      'm0007',
      'm0006',
      'm0005',
      'm0004',
      'm0003',
      'm0002',
      'm0001',
      'm0000',
    ]);
    expect(store.lastQuery).toMatchObject({ plan: 'all', tested: 0, order: 'walk' });

    // a write after the view was built is merged in at the next sort
    await store.upsertIfNewer('members', member(2000, { createdAt: '2025-01-01T00:00:00Z' }));
    await store.upsertIfNewer('members', member(3, { createdAt: '1999-01-01T00:00:00Z' }, 2));
    const first = await store.find('members', {}, { sort, limit: 2 });
    expect(first.items.map((item) => item._id)).toEqual(['m2000', 'm0999']);
    const last = await store.find('members', {}, { sort, skip: 999, limit: 5 });
    expect(last.items.map((item) => item._id)).toEqual(['m0000', 'm0003']);
    expect(store.lastQuery).toMatchObject({ order: 'walk' });

    const active = await store.find('members', { status: 'active' }, { sort, limit: 3 });
    expect(active.items.map((item) => item._id)).toEqual(['m2000', 'm0996', 'm0992']);
    // a quarter of the documents are active: walking the view finds three sooner than selecting from 250
    expect(store.lastQuery).toMatchObject({ plan: 'index', tested: 0, order: 'walk', ranked: true });
    const all = (await store.find('members', {})).items;
    const deep = await store.find('members', { status: 'active' }, { sort, skip: 200, limit: 20 });
    expect(deep.items).toEqual(mingoFind(all, { status: 'active' }).sort(sort).skip(200).limit(20).all());
    expect(store.lastQuery).toMatchObject({ plan: 'index', tested: 0, order: 'top-k', ranked: true });
  });

  it('walks a broad equality with the documents its index could not key', async () => {
    // an array holding an object cannot be keyed, and its 'active' element still equals 'active'
    await store.upsertIfNewer(
      'members',
      member(2001, { status: ['active', { since: 2020 }], createdAt: '2030-01-01T00:00:00Z' }),
    );
    await store.upsertIfNewer(
      'members',
      member(2002, { status: [{ since: 2020 }], createdAt: '2030-01-02T00:00:00Z' }),
    );
    const sort = { createdAt: -1 as const, _id: 1 as const };
    const { items, total } = await store.find('members', { status: 'active' }, { sort, limit: 3 });
    expect(store.lastQuery).toMatchObject({ plan: 'index', index: 'status', tested: 2, order: 'walk' });
    expect(total).toBe(251);
    expect(items.map((item) => item._id)).toEqual(['m2001', 'm0996', 'm0992']);
  });

  it('sorts with mingo when a sort value is outside what the comparator reproduces', async () => {
    const { items } = await store.find('members', {}, { sort: { roles: 1, _id: 1 }, limit: 3 });
    expect(store.lastQuery).toMatchObject({ order: 'mingo' });
    const all = (await store.find('members', {})).items;
    expect(items).toEqual(mingoFind(all, {}).sort({ roles: 1, _id: 1 }).limit(3).all());
  });

  it('keeps a sorted view right through many changes between sorts', async () => {
    const sort = { createdAt: -1 as const, _id: 1 as const };
    await store.find('members', {}, { sort, limit: 1 }); // makes the view
    const r = prng(7);
    for (let i = 0; i < 2500; i++) {
      const at = `2024-0${1 + Math.floor(r() * 9)}-01T00:00:00Z`;
      await store.upsertIfNewer('members', member(Math.floor(r() * 1500), { createdAt: at }, 2 + i));
    }
    await store.deleteStale('members', 'inst-3', 1000);
    const all = (await store.find('members', {})).items;
    for (const [skip, limit] of [
      [0, 20],
      [500, 30],
      [1300, 100],
    ]) {
      const { items } = await store.find('members', {}, { sort, skip, limit });
      expect(store.lastQuery).toMatchObject({ order: 'walk' });
      expect(items).toEqual(mingoFind(all, {}).sort(sort).skip(skip).limit(limit).all());
      const active = await store.find('members', { status: 'active' }, { sort, skip, limit });
      expect(active.items).toEqual(mingoFind(all, { status: 'active' }).sort(sort).skip(skip).limit(limit).all());
    }
  });

  it('keeps a sorted view right when many changes make it merge on a write', async () => {
    // a view merges by itself once 1024 places in it are out of date (with 1000 documents);
    // the write that makes it merge must still be merged at the next sort
    for (const changes of [1023, 1024, 1025, 1026, 1027]) {
      const fresh = new EmbeddedDocumentStore();
      await fresh.ensureIndexes('members', [{ keys: { createdAt: -1 } }]);
      for (let i = 0; i < 1000; i++) await fresh.upsertIfNewer('members', member(i));
      const sort = { createdAt: -1 as const, _id: 1 as const };
      await fresh.find('members', {}, { sort, limit: 1 }); // makes the view
      for (let c = 0; c < changes; c++) {
        const at = `2030-01-01T${String(Math.floor(c / 60)).padStart(2, '0')}:${String(c % 60).padStart(2, '0')}:00Z`;
        await fresh.upsertIfNewer('members', member((c * 7) % 1000, { createdAt: at }, 2 + c));
      }
      const all = (await fresh.find('members', {})).items;
      const { items, total } = await fresh.find('members', {}, { sort, limit: 5 });
      expect(total).toBe(1000);
      expect(items).toEqual(mingoFind(all, {}).sort(sort).limit(5).all());
      await fresh.close();
    }
  });

  it('gives the same answers where code generation is disallowed', async () => {
    const all = (await store.find('members', {})).items;
    const original = globalThis.Function;
    globalThis.Function = function disallowed() {
      throw new EvalError('Code generation from strings disallowed for this context');
    } as unknown as FunctionConstructor;
    try {
      for (const filter of [
        { companyId: { $in: ['c1', 'c2'] }, roles: { $ne: 'admin' } },
        { $or: [{ createdAt: { $lt: '2024-01-01T00:01:00Z' } }, { primaryId: { $regex: '^m1', $options: 'i' } }] },
        { status: { $nin: ['active', 'closed'] }, primaryId: { $exists: false } },
      ]) {
        await expect(store.count('members', filter)).resolves.toBe(mingoFind(all, filter).all().length);
      }
    } finally {
      globalThis.Function = original;
    }
  });

  it('leaves filters outside the compiled subset to mingo', async () => {
    await expect(store.count('members', { $expr: { $eq: ['$status', 'active'] } })).resolves.toBe(250);
    expect(store.lastQuery).toMatchObject({ plan: 'scan', mingoFilter: true, tested: 1000 });
    // a /g regular expression keeps state between tests: evaluated by mingo, in order
    const all = (await store.find('members', {})).items;
    await expect(store.count('members', { status: /act/g })).resolves.toBe(
      mingoFind(all, { status: /act/g }).all().length,
    );
    expect(store.lastQuery).toMatchObject({ mingoFilter: true });
  });
});
