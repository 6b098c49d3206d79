/**
 * Contract suite for the DocumentStore port. Every adapter must pass it, and
 * code that lists documents may rely on exactly what it covers.
 *
 * Each test works in a collection with a random name, so suites can share a
 * database server.
 */
import { randomUUID } from 'node:crypto';
import type { DocumentStore, Filter, IndexSpec, StoredDocument } from '../../runtime/stream/document-store';

function doc(
  _id: string,
  fields: Record<string, unknown> = {},
  _v = 1,
  _instance = 'inst-1',
  _class = 'Person',
): StoredDocument {
  return { _id, _v, _instance, _class, ...fields };
}

function ids(items: Array<{ _id: unknown }>): unknown[] {
  return items.map((item) => item._id);
}

/** A small, varied data set for the query tests. */
const PEOPLE: StoredDocument[] = [
  doc('p1', {
    name: 'Alice',
    age: 34,
    status: 'active',
    email: 'alice@example.com',
    tags: ['admin', 'staff'],
    address: { city: 'Oslo', zip: '0150' },
    items: [
      { sku: 'A', qty: 1 },
      { sku: 'B', qty: 5 },
    ],
    nickname: 'Al',
    joined: new Date('2021-03-01T00:00:00Z'),
  }),
  doc('p2', {
    name: 'bob',
    age: 27,
    status: 'inactive',
    email: 'bob@example.com',
    tags: ['staff'],
    address: { city: 'Bergen', zip: '5003' },
    items: [{ sku: 'A', qty: 3 }],
    nickname: null,
    joined: new Date('2022-06-15T00:00:00Z'),
  }),
  doc('p3', {
    name: 'Carol',
    age: 41,
    status: 'active',
    email: 'carol@example.org',
    tags: [],
    address: { city: 'Oslo', zip: '0151' },
    items: [],
    joined: new Date('2020-01-10T00:00:00Z'),
  }),
  doc('p4', {
    name: 'dave',
    age: 27,
    status: 'pending',
    tags: ['guest'],
    address: { city: 'Trondheim' },
    items: [{ sku: 'C', qty: 2 }],
    joined: new Date('2023-09-30T00:00:00Z'),
  }),
  // no age, email or address
  doc('p5', {
    name: 'Eve',
    status: 'active',
    tags: ['admin', 'guest', 'staff'],
    items: [{ sku: 'B', qty: 1 }],
    joined: new Date('2024-02-29T00:00:00Z'),
  }),
];

/** [description, filter, ids of the matching PEOPLE] */
const QUERY_CASES: Array<[string, Filter, string[]]> = [
  ['empty filter', {}, ['p1', 'p2', 'p3', 'p4', 'p5']],
  ['implicit equality', { status: 'active' }, ['p1', 'p3', 'p5']],
  ['$eq', { age: { $eq: 27 } }, ['p2', 'p4']],
  ['$ne (also matches a missing field)', { age: { $ne: 27 } }, ['p1', 'p3', 'p5']],
  ['$gt', { age: { $gt: 34 } }, ['p3']],
  ['$gte', { age: { $gte: 34 } }, ['p1', 'p3']],
  ['$lt', { age: { $lt: 34 } }, ['p2', 'p4']],
  ['$lte', { age: { $lte: 34 } }, ['p1', 'p2', 'p4']],
  ['range of $gt and $lt', { age: { $gt: 27, $lt: 41 } }, ['p1']],
  ['$gte on dates', { joined: { $gte: new Date('2022-01-01T00:00:00Z') } }, ['p2', 'p4', 'p5']],
  ['$in', { status: { $in: ['pending', 'inactive'] } }, ['p2', 'p4']],
  ['$nin (also matches a missing field)', { age: { $nin: [27, 34] } }, ['p3', 'p5']],
  ['equality on an array field matches an element', { tags: 'admin' }, ['p1', 'p5']],
  ['$in on an array field', { tags: { $in: ['guest', 'nobody'] } }, ['p4', 'p5']],
  ['$nin on an array field', { tags: { $nin: ['staff'] } }, ['p3', 'p4']],
  ['$all', { tags: { $all: ['staff', 'admin'] } }, ['p1', 'p5']],
  ['$size 0', { tags: { $size: 0 } }, ['p3']],
  ['$size 1', { tags: { $size: 1 } }, ['p2', 'p4']],
  ['$exists true', { age: { $exists: true } }, ['p1', 'p2', 'p3', 'p4']],
  ['$exists false', { age: { $exists: false } }, ['p5']],
  ['$exists true on a field holding null', { nickname: { $exists: true } }, ['p1', 'p2']],
  ['equality with null matches null and missing', { nickname: null }, ['p2', 'p3', 'p4', 'p5']],
  ['dotted path', { 'address.city': 'Oslo' }, ['p1', 'p3']],
  ['dotted path with $in', { 'address.city': { $in: ['Bergen', 'Trondheim'] } }, ['p2', 'p4']],
  ['dotted path with $exists false', { 'address.zip': { $exists: false } }, ['p4', 'p5']],
  ['dotted path into an array of documents', { 'items.sku': 'B' }, ['p1', 'p5']],
  // without $elemMatch the two conditions may be met by different elements
  [
    'dotted paths into an array, conditions on different elements',
    { 'items.sku': 'A', 'items.qty': { $gte: 5 } },
    ['p1'],
  ],
  [
    '$elemMatch needs one element to meet all conditions',
    { items: { $elemMatch: { sku: 'A', qty: { $gte: 3 } } } },
    ['p2'],
  ],
  ['$elemMatch with a single condition', { items: { $elemMatch: { qty: { $gt: 1, $lt: 3 } } } }, ['p4']],
  ['$regex is case-sensitive by default', { name: { $regex: '^[a-d]' } }, ['p2', 'p4']],
  ["$regex with $options 'i'", { name: { $regex: '^[a-d]', $options: 'i' } }, ['p1', 'p2', 'p3', 'p4']],
  ['$regex matching inside the string', { email: { $regex: '@example\\.com$' } }, ['p1', 'p2']],
  ['RegExp value', { name: /^al/i }, ['p1']],
  ['$not with an operator (also matches a missing field)', { age: { $not: { $gte: 30 } } }, ['p2', 'p4', 'p5']],
  ['$not with a RegExp', { name: { $not: /^[a-d]/i } }, ['p5']],
  ['$and', { $and: [{ status: 'active' }, { age: { $gte: 40 } }] }, ['p3']],
  ['$or', { $or: [{ status: 'pending' }, { 'address.city': 'Bergen' }] }, ['p2', 'p4']],
  ['$nor', { $nor: [{ status: 'active' }, { tags: 'guest' }] }, ['p2']],
  [
    'nested $and / $or',
    { $and: [{ $or: [{ age: { $lt: 30 } }, { age: { $exists: false } }] }, { tags: { $ne: 'guest' } }] },
    ['p2'],
  ],
  ['no match', { status: 'deleted' }, []],
  ['$ne null matches present, non-null values', { nickname: { $ne: null } }, ['p1']],
  ['$in with null also matches a missing field', { age: { $in: [null, 27] } }, ['p2', 'p4', 'p5']],
  ['$nin with null leaves out null and missing', { nickname: { $nin: [null] } }, ['p1']],
  ['$in with a regular expression', { name: { $in: [/^a/i, 'bob'] } }, ['p1', 'p2']],
  ['$in on _id', { _id: { $in: ['p4', 'p2', 'nope'] } }, ['p2', 'p4']],
  ['$regex on an array field matches an element', { tags: { $regex: '^ad' } }, ['p1', 'p5']],
  ['$ne on an array field: no element equals', { tags: { $ne: 'staff' } }, ['p3', 'p4']],
  ['$gt on an array field: an element is greater', { tags: { $gt: 'p' } }, ['p1', 'p2', 'p5']],
  ['equality with null on a dotted path matches a missing parent', { 'address.zip': null }, ['p4', 'p5']],
  ['equality and another condition on two fields', { age: 27, status: { $ne: 'pending' } }, ['p2']],
  [
    'equality and $in on the same field',
    { $and: [{ status: 'active' }, { status: { $in: ['active', 'pending'] } }] },
    ['p1', 'p3', 'p5'],
  ],
];

/** Indexes on the fields QUERY_CASES query, so adapters that plan with them are exercised too. */
const SECONDARY_INDEXES: IndexSpec[] = [
  { keys: { status: 1 } },
  { keys: { tags: 1 } },
  { keys: { age: -1, name: 1 } },
  { keys: { nickname: 1 } },
  { keys: { 'address.city': 1 } },
  { keys: { joined: -1 } },
  { keys: { name: 1 } },
];

export function documentStoreContract(
  name: string,
  factory: () => Promise<DocumentStore>,
  cleanup: (store: DocumentStore) => Promise<void> = (store) => store.close(),
): void {
  describe(`DocumentStore contract: ${name}`, () => {
    let store: DocumentStore;
    let coll: string;

    beforeAll(async () => {
      store = await factory();
    });

    afterAll(async () => {
      if (store) await cleanup(store);
    });

    beforeEach(() => {
      coll = `ds_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    });

    async function seed(docs: StoredDocument[] = PEOPLE): Promise<void> {
      for (const d of docs) await store.upsertIfNewer(coll, d);
    }

    it('describes itself', () => {
      expect(typeof store.shared).toBe('boolean');
      expect(store.kind).toEqual(expect.any(String));
      expect(store.kind.length).toBeGreaterThan(0);
    });

    describe('upsertIfNewer and get', () => {
      it('inserts a new document and returns it from get with every field', async () => {
        const original = doc('a', {
          name: 'Alice',
          score: 12.5,
          active: true,
          nothing: null,
          nested: { list: [1, 'two', { three: 3 }] },
          at: new Date('2024-05-01T12:00:00Z'),
        });
        await expect(store.upsertIfNewer(coll, original)).resolves.toBe(true);
        await expect(store.get(coll, 'a')).resolves.toEqual(original);
      });

      it('ignores a write with an equal version', async () => {
        await store.upsertIfNewer(coll, doc('a', { name: 'first' }, 2));
        await expect(store.upsertIfNewer(coll, doc('a', { name: 'second' }, 2))).resolves.toBe(false);
        expect((await store.get(coll, 'a'))?.name).toBe('first');
      });

      it('ignores a write with a lower version', async () => {
        await store.upsertIfNewer(coll, doc('a', { name: 'first' }, 2));
        await expect(store.upsertIfNewer(coll, doc('a', { name: 'older' }, 1))).resolves.toBe(false);
        await expect(store.get(coll, 'a')).resolves.toEqual(doc('a', { name: 'first' }, 2));
      });

      it('replaces the whole document on a higher version', async () => {
        await store.upsertIfNewer(coll, doc('a', { name: 'first', removed: 'yes' }, 1));
        await expect(store.upsertIfNewer(coll, doc('a', { name: 'newer' }, 3, 'inst-2', 'Other'))).resolves.toBe(true);
        await expect(store.get(coll, 'a')).resolves.toEqual(doc('a', { name: 'newer' }, 3, 'inst-2', 'Other'));
      });

      it('is idempotent when the same write is repeated', async () => {
        const d = doc('a', { name: 'same' }, 5);
        await expect(store.upsertIfNewer(coll, d)).resolves.toBe(true);
        await expect(store.upsertIfNewer(coll, d)).resolves.toBe(false);
        await expect(store.count(coll, {})).resolves.toBe(1);
      });

      it('keeps the highest version when writes race', async () => {
        const versions = [3, 1, 7, 2, 6, 4, 5];
        await Promise.all(versions.map((v) => store.upsertIfNewer(coll, doc('a', { v }, v))));
        await expect(store.get(coll, 'a')).resolves.toEqual(doc('a', { v: 7 }, 7));
      });

      it('keeps collections apart', async () => {
        const other = `${coll}_other`;
        await store.upsertIfNewer(coll, doc('a', { where: 'first' }, 5));
        await expect(store.upsertIfNewer(other, doc('a', { where: 'second' }, 1))).resolves.toBe(true);
        expect((await store.get(coll, 'a'))?.where).toBe('first');
        expect((await store.get(other, 'a'))?.where).toBe('second');
        await store.drop(other);
      });

      it('returns null for an unknown id or collection', async () => {
        await seed();
        await expect(store.get(coll, 'nope')).resolves.toBeNull();
        await expect(store.get(`${coll}_missing`, 'p1')).resolves.toBeNull();
      });
    });

    describe('deleteStale', () => {
      it('deletes the documents of the instance below the version and nothing else', async () => {
        await seed([
          doc('a', {}, 1, 'inst-1'),
          doc('b', {}, 2, 'inst-1'),
          doc('c', {}, 3, 'inst-1'),
          doc('d', {}, 4, 'inst-1'),
          doc('e', {}, 1, 'inst-2'),
        ]);
        await expect(store.deleteStale(coll, 'inst-1', 3)).resolves.toBe(2);
        const { items } = await store.find(coll, {}, { sort: { _id: 1 } });
        expect(ids(items)).toEqual(['c', 'd', 'e']);
        await expect(store.deleteStale(coll, 'inst-1', 3)).resolves.toBe(0);
      });

      it('returns 0 for an unknown collection', async () => {
        await expect(store.deleteStale(coll, 'inst-1', 10)).resolves.toBe(0);
      });

      it('lets a deleted id be written again from the version of the delete on', async () => {
        await seed([doc('a', { gen: 1 }, 5)]);
        await store.deleteStale(coll, 'inst-1', 6);
        await expect(store.upsertIfNewer(coll, doc('a', { gen: 2 }, 6))).resolves.toBe(true);
        expect((await store.get(coll, 'a'))?.gen).toBe(2);
      });

      it('does not bring a deleted document back on a late write of an older version', async () => {
        await seed([doc('a', { gen: 1 }, 4), doc('b', { gen: 1 }, 5)]);
        await expect(store.deleteStale(coll, 'inst-1', 6)).resolves.toBe(2);
        // a projector that read version 4 or 5 of the instance writes after the delete of version 6
        await expect(store.upsertIfNewer(coll, doc('a', { gen: 1 }, 5))).resolves.toBe(false);
        await expect(store.upsertIfNewer(coll, doc('b', { gen: 1 }, 5))).resolves.toBe(false);
        await expect(store.get(coll, 'a')).resolves.toBeNull();
        await expect(store.get(coll, 'b')).resolves.toBeNull();
        await expect(store.count(coll, {})).resolves.toBe(0);
      });

      it('refuses an older write of a document the instance no longer projects, even one never written', async () => {
        await expect(store.deleteStale(coll, 'inst-1', 3)).resolves.toBe(0);
        await expect(store.upsertIfNewer(coll, doc('late', {}, 2))).resolves.toBe(false);
        await expect(store.get(coll, 'late')).resolves.toBeNull();
        await expect(store.upsertIfNewer(coll, doc('late', {}, 3))).resolves.toBe(true);
      });

      it('keeps the highest deleted version: a delete of an older version lowers nothing', async () => {
        await store.deleteStale(coll, 'inst-1', 6);
        await store.deleteStale(coll, 'inst-1', 3);
        await expect(store.upsertIfNewer(coll, doc('a', {}, 5))).resolves.toBe(false);
        await expect(store.upsertIfNewer(coll, doc('a', {}, 6))).resolves.toBe(true);
      });

      it("keeps each instance's deletes to its own documents and each collection's to itself", async () => {
        const other = `${coll}_other`;
        await store.deleteStale(coll, 'inst-1', 9);
        await expect(store.upsertIfNewer(coll, doc('a', {}, 1, 'inst-2'))).resolves.toBe(true);
        await expect(store.upsertIfNewer(other, doc('a', {}, 1, 'inst-1'))).resolves.toBe(true);
        await store.drop(other);
      });

      it('leaves no older document when a write and the delete of a newer version race', async () => {
        for (let round = 0; round < 20; round++) {
          const instance = `race-${round}`;
          await store.upsertIfNewer(coll, doc(`r${round}`, { gen: 0 }, 1, instance));
          const write = store.upsertIfNewer(coll, doc(`r${round}`, { gen: 1 }, 2, instance));
          const fresh = store.upsertIfNewer(coll, doc(`s${round}`, { gen: 3 }, 3, instance));
          const deleted = store.deleteStale(coll, instance, 3);
          // in either order the write loses: the delete is of a newer version
          await Promise.all(round % 2 ? [write, fresh, deleted] : [deleted, fresh, write]);
          await expect(store.get(coll, `r${round}`)).resolves.toBeNull();
          await expect(store.get(coll, `s${round}`)).resolves.toMatchObject({ _v: 3 });
        }
      });
    });

    describe('find filters', () => {
      it.each(QUERY_CASES)('%s', async (_description, filter, expected) => {
        await seed();
        const { items, total } = await store.find(coll, filter, { sort: { _id: 1 } });
        expect(ids(items)).toEqual(expected);
        expect(total).toBe(expected.length);
        await expect(store.count(coll, filter)).resolves.toBe(expected.length);
      });
    });

    describe('find filters with secondary indexes', () => {
      it.each(QUERY_CASES)('%s', async (_description, filter, expected) => {
        await store.ensureIndexes(coll, SECONDARY_INDEXES);
        await seed();
        const { items, total } = await store.find(coll, filter, { sort: { _id: 1 } });
        expect(ids(items)).toEqual(expected);
        expect(total).toBe(expected.length);
        await expect(store.count(coll, filter)).resolves.toBe(expected.length);
      });
    });

    describe('find sort, skip, limit and projection', () => {
      beforeEach(() => seed());

      it('sorts ascending', async () => {
        const { items } = await store.find(coll, { age: { $exists: true } }, { sort: { age: 1, _id: 1 } });
        expect(ids(items)).toEqual(['p2', 'p4', 'p1', 'p3']);
      });

      it('sorts descending', async () => {
        const { items } = await store.find(coll, {}, { sort: { joined: -1 } });
        expect(ids(items)).toEqual(['p5', 'p4', 'p2', 'p1', 'p3']);
      });

      it('sorts on several keys in order, with a missing value lowest', async () => {
        const byAgeDescName = await store.find(coll, {}, { sort: { age: -1, name: 1 } });
        expect(ids(byAgeDescName.items)).toEqual(['p3', 'p1', 'p2', 'p4', 'p5']);

        const byAgeNameDesc = await store.find(coll, {}, { sort: { age: 1, name: -1 } });
        expect(ids(byAgeNameDesc.items)).toEqual(['p5', 'p4', 'p2', 'p1', 'p3']);

        const byStatusAgeDesc = await store.find(coll, {}, { sort: { status: 1, age: -1 } });
        expect(ids(byStatusAgeDesc.items)).toEqual(['p3', 'p1', 'p5', 'p2', 'p4']);
      });

      it('sorts on a dotted path', async () => {
        const { items } = await store.find(coll, { 'address.zip': { $exists: true } }, { sort: { 'address.zip': -1 } });
        expect(ids(items)).toEqual(['p2', 'p3', 'p1']);
      });

      it('sorts strings by code point, upper case before lower case', async () => {
        const { items } = await store.find(coll, {}, { sort: { name: 1 } });
        expect(items.map((item) => item.name)).toEqual(['Alice', 'Carol', 'Eve', 'bob', 'dave']);
      });

      it('pages with skip and limit while total counts every match', async () => {
        const page = await store.find(coll, {}, { sort: { _id: 1 }, skip: 1, limit: 2 });
        expect(ids(page.items)).toEqual(['p2', 'p3']);
        expect(page.total).toBe(5);

        const filtered = await store.find(coll, { status: 'active' }, { sort: { _id: -1 }, limit: 1 });
        expect(ids(filtered.items)).toEqual(['p5']);
        expect(filtered.total).toBe(3);

        const last = await store.find(coll, {}, { sort: { _id: 1 }, skip: 4, limit: 10 });
        expect(ids(last.items)).toEqual(['p5']);
        expect(last.total).toBe(5);
      });

      it('pages through ties in the order of the next sort key', async () => {
        const { items, total } = await store.find(coll, {}, { sort: { status: 1, _id: -1 }, skip: 1, limit: 3 });
        expect(ids(items)).toEqual(['p3', 'p1', 'p2']);
        expect(total).toBe(5);
      });

      it('pages with missing values lowest', async () => {
        const first = await store.find(coll, {}, { sort: { age: 1, _id: 1 }, limit: 2 });
        expect(ids(first.items)).toEqual(['p5', 'p2']);
        const last = await store.find(coll, {}, { sort: { age: -1, _id: 1 }, skip: 3, limit: 5 });
        expect(ids(last.items)).toEqual(['p4', 'p5']);
      });

      it('pages a filtered listing sorted descending', async () => {
        const { items, total } = await store.find(coll, { status: 'active' }, { sort: { joined: -1 }, limit: 2 });
        expect(ids(items)).toEqual(['p5', 'p1']);
        expect(total).toBe(3);
      });

      it('sorts, skips and limits the same with secondary indexes, also after changes', async () => {
        await store.ensureIndexes(coll, SECONDARY_INDEXES);
        const page = (filter: Filter, sort: Record<string, 1 | -1>, skip: number, limit: number) =>
          store.find(coll, filter, { sort, skip, limit }).then((r) => ({ ids: ids(r.items), total: r.total }));

        await expect(page({}, { joined: -1, _id: 1 }, 1, 2)).resolves.toEqual({ ids: ['p4', 'p2'], total: 5 });
        await expect(page({}, { age: 1, _id: 1 }, 0, 3)).resolves.toEqual({ ids: ['p5', 'p2', 'p4'], total: 5 });
        await expect(page({ status: 'active' }, { name: 1 }, 1, 5)).resolves.toEqual({ ids: ['p3', 'p5'], total: 3 });
        await expect(page({ tags: 'staff' }, { age: -1, _id: 1 }, 0, 2)).resolves.toEqual({
          ids: ['p1', 'p2'],
          total: 3,
        });

        // p2 becomes active and the newest, p5 gets an age between the others, p3 is deleted
        await store.upsertIfNewer(coll, {
          ...PEOPLE[1],
          _v: 2,
          status: 'active',
          joined: new Date('2025-01-01T00:00:00Z'),
        });
        await store.upsertIfNewer(coll, { ...PEOPLE[4], _v: 2, age: 30 });
        await store.upsertIfNewer(coll, { ...PEOPLE[2], _v: 2, _instance: 'inst-2' });
        await store.deleteStale(coll, 'inst-2', 3);
        await expect(page({}, { joined: -1, _id: 1 }, 0, 2)).resolves.toEqual({ ids: ['p2', 'p5'], total: 4 });
        await expect(page({}, { age: -1, _id: 1 }, 0, 10)).resolves.toEqual({
          ids: ['p1', 'p5', 'p2', 'p4'],
          total: 4,
        });
        await expect(page({}, { age: 1, _id: -1 }, 1, 2)).resolves.toEqual({ ids: ['p2', 'p5'], total: 4 });
        await expect(page({ status: 'active' }, { joined: -1 }, 0, 10)).resolves.toEqual({
          ids: ['p2', 'p5', 'p1'],
          total: 3,
        });
        await expect(page({ status: 'inactive' }, { joined: -1 }, 0, 10)).resolves.toEqual({ ids: [], total: 0 });
      });

      it('returns no items but the total when skipping past the end', async () => {
        await expect(store.find(coll, {}, { skip: 10 })).resolves.toEqual({ items: [], total: 5 });
        await expect(store.find(coll, { status: 'active' }, { sort: { _id: 1 }, skip: 10, limit: 2 })).resolves.toEqual(
          { items: [], total: 3 },
        );
      });

      it('counts the total of a full page, and of a short one from the page itself', async () => {
        const full = await store.find(coll, { status: 'active' }, { sort: { _id: 1 }, limit: 3 });
        expect({ ids: ids(full.items), total: full.total }).toEqual({ ids: ['p1', 'p3', 'p5'], total: 3 });
        const short = await store.find(coll, { status: 'active' }, { sort: { _id: 1 }, skip: 2, limit: 3 });
        expect({ ids: ids(short.items), total: short.total }).toEqual({ ids: ['p5'], total: 3 });
        const unfiltered = await store.find(coll, {}, { sort: { _id: 1 }, limit: 2 });
        expect(unfiltered.total).toBe(5);
      });

      it('answers the page alone when the total is not asked for', async () => {
        const page = await store.find(coll, { status: 'active' }, { sort: { _id: -1 }, limit: 2, total: false });
        expect(ids(page.items)).toEqual(['p5', 'p3']);
      });

      it('treats a limit of 0 as no limit', async () => {
        const { items } = await store.find(coll, {}, { limit: 0 });
        expect(items).toHaveLength(5);
      });

      it('returns every match without options', async () => {
        const { items, total } = await store.find(coll, {});
        expect([...ids(items)].sort()).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
        expect(total).toBe(5);
        expect(items.find((item) => item._id === 'p1')).toEqual(PEOPLE[0]);
      });

      it('returns an empty result for an unknown collection', async () => {
        await expect(store.find(`${coll}_missing`, {})).resolves.toEqual({ items: [], total: 0 });
        await expect(store.count(`${coll}_missing`, {})).resolves.toBe(0);
      });

      it('projects included fields plus _id', async () => {
        const { items } = await store.find(
          coll,
          { _id: { $in: ['p1', 'p2'] } },
          { sort: { _id: 1 }, projection: { name: 1, status: 1 } },
        );
        expect(items).toEqual([
          { _id: 'p1', name: 'Alice', status: 'active' },
          { _id: 'p2', name: 'bob', status: 'inactive' },
        ]);
      });

      it('projects without _id when it is excluded', async () => {
        const { items } = await store.find(
          coll,
          { status: 'active' },
          { sort: { _id: 1 }, projection: { name: 1, _id: 0 } },
        );
        expect(items).toEqual([{ name: 'Alice' }, { name: 'Carol' }, { name: 'Eve' }]);
      });

      it('projects dotted paths and leaves out missing fields', async () => {
        const { items } = await store.find(
          coll,
          { _id: { $in: ['p1', 'p5'] } },
          { sort: { _id: 1 }, projection: { 'address.city': 1, age: 1 } },
        );
        expect(items).toEqual([{ _id: 'p1', address: { city: 'Oslo' }, age: 34 }, { _id: 'p5' }]);
      });

      it('sorts, pages and then projects', async () => {
        const { items, total } = await store.find(coll, {}, { sort: { age: -1 }, limit: 2, projection: { name: 1 } });
        expect(items).toEqual([
          { _id: 'p3', name: 'Carol' },
          { _id: 'p1', name: 'Alice' },
        ]);
        expect(total).toBe(5);
      });
    });

    describe('ensureIndexes', () => {
      const EMAIL_UNIQUE = [{ keys: { email: 1 as const }, unique: true }];

      it('rejects a different document with the same unique key', async () => {
        await store.ensureIndexes(coll, EMAIL_UNIQUE);
        await expect(store.upsertIfNewer(coll, doc('a', { email: 'x@example.com' }))).resolves.toBe(true);
        await expect(store.upsertIfNewer(coll, doc('b', { email: 'x@example.com' }))).rejects.toMatchObject({
          code: 'DUPLICATE_KEY',
        });
        await expect(store.get(coll, 'b')).resolves.toBeNull();
      });

      it('lets a document keep its own unique key and frees it when changed', async () => {
        await store.ensureIndexes(coll, EMAIL_UNIQUE);
        await store.upsertIfNewer(coll, doc('a', { email: 'x@example.com' }, 1));
        await expect(store.upsertIfNewer(coll, doc('a', { email: 'x@example.com', n: 2 }, 2))).resolves.toBe(true);
        await expect(store.upsertIfNewer(coll, doc('a', { email: 'y@example.com' }, 3))).resolves.toBe(true);
        await expect(store.upsertIfNewer(coll, doc('b', { email: 'x@example.com' }))).resolves.toBe(true);
      });

      it('leaves the stored version in place when a write is rejected', async () => {
        await store.ensureIndexes(coll, EMAIL_UNIQUE);
        await seed([doc('a', { email: 'x@example.com' }), doc('b', { email: 'y@example.com' })]);
        await expect(store.upsertIfNewer(coll, doc('b', { email: 'x@example.com' }, 2))).rejects.toMatchObject({
          code: 'DUPLICATE_KEY',
        });
        await expect(store.get(coll, 'b')).resolves.toEqual(doc('b', { email: 'y@example.com' }));
        // the rejected write did not take the key from a
        await expect(store.upsertIfNewer(coll, doc('c', { email: 'y@example.com' }))).rejects.toMatchObject({
          code: 'DUPLICATE_KEY',
        });
      });

      it('frees a unique key when deleteStale removes its document', async () => {
        await store.ensureIndexes(coll, EMAIL_UNIQUE);
        await seed([doc('a', { email: 'x@example.com' }, 1, 'inst-1')]);
        await store.deleteStale(coll, 'inst-1', 2);
        await expect(store.upsertIfNewer(coll, doc('b', { email: 'x@example.com' }, 1, 'inst-2'))).resolves.toBe(true);
      });

      it('enforces compound unique keys on the combination of values', async () => {
        await store.ensureIndexes(coll, [{ keys: { org: 1, code: -1 }, unique: true, name: 'org_code' }]);
        await seed([
          doc('a', { org: 'o1', code: 'c1' }),
          doc('b', { org: 'o1', code: 'c2' }),
          doc('c', { org: 'o2', code: 'c1' }),
        ]);
        await expect(store.count(coll, {})).resolves.toBe(3);
        await expect(store.upsertIfNewer(coll, doc('d', { org: 'o1', code: 'c1' }))).rejects.toMatchObject({
          code: 'DUPLICATE_KEY',
        });
      });

      it('enforces unique keys on dotted paths', async () => {
        await store.ensureIndexes(coll, [{ keys: { 'contact.email': 1 }, unique: true }]);
        await store.upsertIfNewer(coll, doc('a', { contact: { email: 'x@example.com' } }));
        await expect(
          store.upsertIfNewer(coll, doc('b', { contact: { email: 'x@example.com' } })),
        ).rejects.toMatchObject({
          code: 'DUPLICATE_KEY',
        });
      });

      it('treats a missing unique field as null, so only one document may lack it', async () => {
        await store.ensureIndexes(coll, EMAIL_UNIQUE);
        await store.upsertIfNewer(coll, doc('a', {}));
        await expect(store.upsertIfNewer(coll, doc('b', {}))).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
      });

      it('does not restrict documents through non-unique indexes', async () => {
        await store.ensureIndexes(coll, [
          { keys: { status: 1, joined: -1 } },
          { keys: { name: 'text' }, name: 'name_text' },
        ]);
        await seed();
        await expect(store.count(coll, { status: 'active' })).resolves.toBe(3);
      });

      it('is idempotent', async () => {
        const indexes = [...EMAIL_UNIQUE, { keys: { status: 1 as const } }];
        await store.ensureIndexes(coll, indexes);
        await expect(store.ensureIndexes(coll, indexes)).resolves.toBeUndefined();
      });

      it('rejects a unique index over existing duplicates', async () => {
        await seed([doc('a', { email: 'x@example.com' }), doc('b', { email: 'x@example.com' })]);
        await expect(store.ensureIndexes(coll, EMAIL_UNIQUE)).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
        // no index was left behind
        await expect(store.upsertIfNewer(coll, doc('c', { email: 'x@example.com' }))).resolves.toBe(true);
      });

      it('keeps enforcing unique indexes after drop', async () => {
        await store.ensureIndexes(coll, EMAIL_UNIQUE);
        await seed([doc('a', { email: 'x@example.com' })]);
        await store.drop(coll);
        await expect(store.upsertIfNewer(coll, doc('b', { email: 'x@example.com' }))).resolves.toBe(true);
        await expect(store.upsertIfNewer(coll, doc('c', { email: 'x@example.com' }))).rejects.toMatchObject({
          code: 'DUPLICATE_KEY',
        });
      });
    });

    describe('drop', () => {
      it('removes every document of the collection only', async () => {
        const other = `${coll}_other`;
        await seed();
        await store.upsertIfNewer(other, doc('x'));
        await store.drop(coll);
        await expect(store.count(coll, {})).resolves.toBe(0);
        await expect(store.find(coll, {})).resolves.toEqual({ items: [], total: 0 });
        await expect(store.get(coll, 'p1')).resolves.toBeNull();
        await expect(store.count(other, {})).resolves.toBe(1);
        await store.drop(other);
      });

      it('lets documents be written again from any version', async () => {
        await seed([doc('a', { gen: 1 }, 9)]);
        await store.drop(coll);
        await expect(store.upsertIfNewer(coll, doc('a', { gen: 2 }, 1))).resolves.toBe(true);
        expect((await store.get(coll, 'a'))?.gen).toBe(2);
      });

      it('drops the tombstones too: a reproject writes every instance again from its current version', async () => {
        await seed([doc('a', { gen: 1 }, 9)]);
        await store.deleteStale(coll, 'inst-1', 10);
        await store.drop(coll);
        await expect(store.upsertIfNewer(coll, doc('a', { gen: 2 }, 4))).resolves.toBe(true);
      });

      it('accepts an unknown collection', async () => {
        await expect(store.drop(coll)).resolves.toBeUndefined();
      });
    });

    describe('copies', () => {
      it('is not affected by changes to a document after it was written', async () => {
        const d = doc('a', { tags: ['one'], nested: { n: 1 } });
        await store.upsertIfNewer(coll, d);
        (d.tags as string[]).push('two');
        (d.nested as { n: number }).n = 2;
        d.name = 'changed';
        await expect(store.get(coll, 'a')).resolves.toEqual(doc('a', { tags: ['one'], nested: { n: 1 } }));
      });

      it('is not affected by changes to documents it returned', async () => {
        await seed();
        const got = (await store.get(coll, 'p1')) as StoredDocument;
        (got.tags as string[]).push('hacked');
        (got.address as { city: string }).city = 'Nowhere';
        got.name = 'Mallory';

        const { items } = await store.find(coll, { _id: 'p1' });
        (items[0].items as Array<{ qty: number }>)[0].qty = 99;
        const projected = await store.find(coll, { _id: 'p1' }, { projection: { address: 1 } });
        (projected.items[0].address as { zip: string }).zip = '9999';

        await expect(store.get(coll, 'p1')).resolves.toEqual(PEOPLE[0]);
        expect(await store.get(coll, 'p1')).not.toBe(await store.get(coll, 'p1'));
      });
    });
  });
}
