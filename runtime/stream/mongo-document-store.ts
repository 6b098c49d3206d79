/**
 * DocumentStore on MongoDB (official driver). Every process talks to the same
 * database, so `shared` is true.
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
import type {
  DocumentStore,
  Filter,
  FindOptions,
  FindResult,
  IndexSpec,
  StoredDocument,
} from './document-store';

export interface MongoDocumentStoreOptions {
  url: string;
  /** defaults to the database named in the URL (or the driver's default) */
  dbName?: string;
  /** prepended to every collection name */
  collectionPrefix?: string;
}

const DUPLICATE_KEY = 11000;

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
    const [items, total] = await Promise.all([cursor.toArray(), coll.countDocuments(query)]);
    return { items: items as T[], total };
  }

  async count(collection: string, filter: Filter): Promise<number> {
    return this.collection(collection).countDocuments(filter as MongoFilter<StoredDocument>);
  }

  async drop(collection: string): Promise<void> {
    // deleteMany rather than Collection.drop, so the indexes survive a reproject.
    await this.collection(collection).deleteMany({});
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private collection(name: string): Collection<StoredDocument> {
    return this.db.collection<StoredDocument>(this.prefix + name);
  }
}
