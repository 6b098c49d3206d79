/**
 * DocumentStore port: the document database that committed actor state is
 * projected into, and that listing operations read from.
 *
 * Filters, sorts and projections are MongoDB query documents. Code that lists
 * must only use what both adapters support (see the contract suite in
 * test/contract/document-store.contract.ts): comparison operators ($eq, $ne,
 * $gt, $gte, $lt, $lte, $in, $nin), $and, $or, $nor, $not, $exists, $regex
 * (with $options 'i'), $elemMatch, $all, $size and dotted paths.
 *
 * Every stored document carries:
 *   _id        the document id (string)
 *   _v         the version of the actor instance it was projected from
 *   _instance  the actor instance id it came from
 *   _class     the actor class id it came from
 * Writes are idempotent by version: a document is only replaced by a write
 * carrying a higher `_v`. Deletes are version-checked the same way: once
 * `deleteStale(collection, instance, v)` ran, no document of that instance
 * below `v` is kept, even one whose write arrives later (a projector that read
 * an older state, in another process or before a restart), so a deleted
 * document does not come back.
 */

export type Filter = Record<string, unknown>;
export type Sort = Record<string, 1 | -1>;

export interface IndexSpec {
  /** MongoDB key document, e.g. { status: 1, createdAt: -1 } */
  keys: Record<string, 1 | -1 | 'text'>;
  unique?: boolean;
  name?: string;
}

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  /** inclusion projection, e.g. { name: 1, status: 1 } */
  projection?: Record<string, 0 | 1>;
  /**
   * false: the caller does not use the total, so none is counted (the answer
   * has none). Otherwise the total is exact; an adapter counts only when the
   * page does not tell it (a short page ends the matches).
   */
  total?: boolean;
}

/** A page without its total (`find` with `total: false`). */
export interface PageResult<T = Record<string, unknown>> {
  items: T[];
}

export interface FindResult<T = Record<string, unknown>> {
  items: T[];
  /** total number of documents matching the filter, ignoring skip/limit */
  total: number;
}

export interface StoredDocument {
  _id: string;
  _v: number;
  _instance: string;
  _class: string;
  [field: string]: unknown;
}

export interface DocumentStore {
  /** true when every process shares this store (MongoDB); false when each process has its own (embedded). */
  readonly shared: boolean;
  readonly kind: string;
  ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void>;
  /**
   * Insert or replace the document `doc._id` when the stored one is absent or
   * has a lower `_v`. Returns true when it wrote.
   */
  upsertIfNewer(collection: string, doc: StoredDocument): Promise<boolean>;
  /**
   * Delete the documents of `instance` in `collection` whose `_v` is lower than
   * `version` (documents the instance no longer projects), and keep the
   * instance's version as its tombstone: a later write of one of its documents
   * below that version is refused (or undone, when it raced the delete).
   * Returns the count deleted.
   */
  deleteStale(collection: string, instance: string, version: number): Promise<number>;
  get(collection: string, id: string): Promise<StoredDocument | null>;
  find<T = StoredDocument>(
    collection: string,
    filter: Filter,
    options: FindOptions & { total: false },
  ): Promise<PageResult<T>>;
  find<T = StoredDocument>(collection: string, filter: Filter, options?: FindOptions): Promise<FindResult<T>>;
  count(collection: string, filter: Filter): Promise<number>;
  /**
   * Remove every document of a collection and its tombstones (used by
   * reproject, which projects every instance again from its current state).
   */
  drop(collection: string): Promise<void>;
  close(): Promise<void>;
}
