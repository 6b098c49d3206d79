/**
 * DocumentStore on MongoDB (official driver). Every process talks to the same
 * database, so `shared` is true.
 *
 * Tombstones: several projector processes may write one instance's documents
 * at once, one of them from an older state. A single-document write cannot
 * check another document, so each collection has a side collection
 * `<collection>.tombstones` holding, per instance, the version of its last
 * deleteStale, and the two sides follow an order that needs no transaction:
 * deleteStale raises the tombstone first and deletes second; upsertIfNewer
 * writes first and reads the tombstone second, and removes its own write when
 * the tombstone is above it. Whichever order the four steps interleave in,
 * the older document does not survive: either the delete comes after the
 * write and removes it, or the read comes after the tombstone and sees it
 * (the older document is then listed for the moment between its write and
 * its removal).
 *
 * Totals: a page shorter than its limit ends the matches, so its total is
 * skip + its length and nothing is counted; a full page is counted exactly
 * (countDocuments), except an unfiltered count above EXACT_COUNT_BELOW, which
 * takes the collection's own count (estimatedDocumentCount: its metadata, the
 * same number unless the server stopped uncleanly or the collection is
 * sharded with orphaned documents).
 */
import {
  MongoClient,
  MongoServerError,
  type Collection,
  type Db,
  type IndexDescription,
  type MongoClientOptions,
  type Filter as MongoFilter,
} from 'mongodb';
import type { DocumentStore, Filter, FindOptions, FindResult, IndexSpec, StoredDocument } from './document-store';

export interface MongoDocumentStoreOptions {
  url: string;
  /** defaults to the database named in the URL (or the driver's default) */
  dbName?: string;
  /** prepended to every collection name */
  collectionPrefix?: string;
}

const DUPLICATE_KEY = 11000;

/** below this many documents an unfiltered total is counted; above, the collection's own count is taken */
export const EXACT_COUNT_BELOW = 10_000;

interface Tombstone {
  /** the instance */
  _id: string;
  /** its documents below this version are deleted */
  _v: number;
}

/**
 * The total a page tells by itself, or undefined when it must be counted: a
 * page shorter than its limit (or any page without a limit) holds the last of
 * the matches, unless it is empty past the first one (the skip may have gone
 * beyond the end).
 */
export function totalFromPage(skip: number, limit: number, returned: number): number | undefined {
  if (limit > 0 && returned >= limit) return undefined;
  if (returned === 0 && skip > 0) return undefined;
  return skip + returned;
}

function isDuplicateKey(err: unknown): err is MongoServerError {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/** True when a duplicate-key error is about `_id` rather than a unique index of ours. */
function isIdConflict(err: MongoServerError): boolean {
  const keyPattern: unknown = err.keyPattern;
  if (keyPattern && typeof keyPattern === 'object') {
    const fields = Object.keys(keyPattern);
    return fields.length === 1 && fields[0] === '_id';
  }
  return / index: _id_ /.test(err.message);
}

function duplicateKeyError(message: string, cause: unknown): Error & { code: 'DUPLICATE_KEY' } {
  return Object.assign(new Error(message, { cause }), { code: 'DUPLICATE_KEY' as const });
}

export class MongoDocumentStore implements DocumentStore {
  readonly shared = true;
  readonly kind = 'mongodb';
  private readonly client: MongoClient;
  private readonly db: Db;
  private readonly prefix: string;

  /**
   * Does not connect: the driver connects on the first operation. Use
   * `connect` to fail fast when the server is unreachable.
   */
  constructor(options: MongoDocumentStoreOptions, clientOptions: MongoClientOptions = {}) {
    // ignoreUndefined: a field set to undefined is left out, as it would be by
    // JSON, instead of being stored as null.
    this.client = new MongoClient(options.url, { ignoreUndefined: true, ...clientOptions });
    this.db = this.client.db(options.dbName);
    this.prefix = options.collectionPrefix ?? '';
  }

  static async connect(
    options: MongoDocumentStoreOptions,
    clientOptions?: MongoClientOptions,
  ): Promise<MongoDocumentStore> {
    const store = new MongoDocumentStore(options, clientOptions);
    try {
      await store.client.connect();
    } catch (err) {
      await store.client.close();
      throw err;
    }
    return store;
  }

  async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    const descriptions: IndexDescription[] = [
      // serves deleteStale
      { key: { _instance: 1, _v: 1 } },
      ...indexes.map((spec) => ({
        key: spec.keys,
        ...(spec.unique ? { unique: true } : {}),
        ...(spec.name ? { name: spec.name } : {}),
      })),
    ];
    try {
      await this.collection(collection).createIndexes(descriptions);
    } catch (err) {
      if (isDuplicateKey(err)) {
        throw duplicateKeyError(`cannot create unique index on ${collection}: ${err.message}`, err);
      }
      throw err;
    }
  }

  async upsertIfNewer(collection: string, doc: StoredDocument): Promise<boolean> {
    if (!(await this.replaceIfNewer(collection, doc))) return false;
    // the write first, the tombstone second (see the class comment); a write refused by its
    // version needs no look, so projecting a version again costs nothing more
    const tombstone = (await this.tombstones(collection).findOne({ _id: doc._instance }))?._v ?? 0;
    if (tombstone <= doc._v) return true;
    await this.collection(collection).deleteOne({ _id: doc._id, _instance: doc._instance, _v: { $lt: tombstone } });
    return false;
  }

  private async replaceIfNewer(collection: string, doc: StoredDocument): Promise<boolean> {
    const coll = this.collection(collection);
    // When the filter does not match, the upsert inserts `doc._id`, which fails
    // with a duplicate `_id` if a document with that id exists. That is usually
    // a newer or equal version, but may be an older one inserted concurrently
    // after our filter ran, so one retry settles it: the second attempt either
    // replaces the (now existing) older document or conflicts with a newer one.
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await coll.replaceOne({ _id: doc._id, _v: { $lt: doc._v } }, doc, { upsert: true });
        return result.matchedCount + result.upsertedCount > 0;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        if (!isIdConflict(err)) throw duplicateKeyError(`duplicate key in ${collection}: ${err.message}`, err);
        if (attempt === 2) return false;
      }
    }
  }

  async deleteStale(collection: string, instance: string, version: number): Promise<number> {
    // the tombstone before the delete (see the class comment)
    for (let attempt = 1; ; attempt++) {
      try {
        await this.tombstones(collection).updateOne({ _id: instance }, { $max: { _v: version } }, { upsert: true });
        break;
      } catch (err) {
        // two first tombstones of one instance raced: the second finds the first and raises it
        if (!isDuplicateKey(err) || attempt === 2) throw err;
      }
    }
    const result = await this.collection(collection).deleteMany({ _instance: instance, _v: { $lt: version } });
    return result.deletedCount;
  }

  async get(collection: string, id: string): Promise<StoredDocument | null> {
    return this.collection(collection).findOne({ _id: id });
  }

  async find<T = StoredDocument>(
    collection: string,
    filter: Filter,
    options: FindOptions = {},
  ): Promise<FindResult<T>> {
    const coll = this.collection(collection);
    const query = filter as MongoFilter<StoredDocument>;
    const cursor = coll.find(query);
    if (options.sort) cursor.sort(options.sort);
    if (options.skip) cursor.skip(options.skip);
    if (options.limit) cursor.limit(options.limit);
    if (options.projection) cursor.project(options.projection);
    const items = (await cursor.toArray()) as T[];
    // the port's `total: false` answer has no total; the field is typed for the other one
    if (options.total === false) return { items } as FindResult<T>;
    const total =
      totalFromPage(options.skip ?? 0, options.limit ?? 0, items.length) ?? (await this.count(collection, filter));
    return { items, total };
  }

  async count(collection: string, filter: Filter): Promise<number> {
    const coll = this.collection(collection);
    if (Object.keys(filter).length === 0) {
      // the collection's own count is read from its metadata; a small one is counted exactly
      const estimate = await coll.estimatedDocumentCount();
      if (estimate >= EXACT_COUNT_BELOW) return estimate;
    }
    return coll.countDocuments(filter);
  }

  async drop(collection: string): Promise<void> {
    // deleteMany rather than Collection.drop, so the indexes survive a reproject; the
    // tombstones go too, as every instance is projected again from its current state
    await this.collection(collection).deleteMany({});
    await this.tombstones(collection).deleteMany({});
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private collection(name: string): Collection<StoredDocument> {
    return this.db.collection<StoredDocument>(this.prefix + name);
  }

  /** the collection's tombstones: one per instance, the version of its last deleteStale */
  private tombstones(name: string): Collection<Tombstone> {
    return this.db.collection<Tombstone>(`${this.prefix}${name}.tombstones`);
  }
}
