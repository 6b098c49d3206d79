/**
 * In-process DocumentStore: one Map of documents per collection, queried with
 * mingo (MongoDB query language over plain objects). Each process has its own
 * copy, so `shared` is false.
 *
 * Documents are deep-copied on the way in and on the way out, so callers can
 * never mutate what is stored. Queries work on references to the stored
 * documents and only the page that `find` returns is copied.
 */
import { Query, find as mingoFind } from 'mingo';
import type {
  DocumentStore,
  Filter,
  FindOptions,
  FindResult,
  IndexSpec,
  StoredDocument,
} from './document-store';

/**
 * A unique index: maps the serialized key values of each document to its `_id`.
 * As in MongoDB, a missing field indexes as null, so only one document may lack
 * it. Unlike MongoDB multikey indexes, an array value is compared as a whole.
 */
interface UniqueIndex {
  name: string;
  fields: string[];
  owners: Map<string, string>;
}

interface CollectionState {
  docs: Map<string, StoredDocument>;
  uniqueIndexes: UniqueIndex[];
  /** `_instance` → ids of its documents, so deleteStale does not scan the collection */
  byInstance: Map<string, Set<string>>;
}

function duplicateKeyError(message: string): Error & { code: 'DUPLICATE_KEY' } {
  return Object.assign(new Error(message), { code: 'DUPLICATE_KEY' as const });
}

/** Value at a dotted path (`a.b.0.c`), or undefined when a step is missing. */
function valueAt(doc: unknown, path: string): unknown {
  let value = doc;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

function indexKey(index: UniqueIndex, doc: StoredDocument): string {
  return JSON.stringify(index.fields.map((field) => valueAt(doc, field) ?? null));
}

export class EmbeddedDocumentStore implements DocumentStore {
  readonly shared: boolean = false;
  readonly kind = 'embedded';
  private readonly collections = new Map<string, CollectionState>();

  async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    // Non-unique indexes only matter for performance, which a scan over an
    // in-memory Map does not gain from, so only unique ones are kept.
    const state = this.state(collection);
    for (const spec of indexes) {
      if (!spec.unique) continue;
      const fields = Object.keys(spec.keys);
      const signature = fields.join('\0');
      if (state.uniqueIndexes.some((ix) => ix.fields.join('\0') === signature)) continue;

      const index: UniqueIndex = {
        name: spec.name ?? Object.entries(spec.keys).flat().join('_'),
        fields,
        owners: new Map(),
      };
      for (const doc of state.docs.values()) {
        const key = indexKey(index, doc);
        if (index.owners.has(key)) {
          throw duplicateKeyError(`cannot create unique index ${index.name} on ${collection}: duplicate key ${key}`);
        }
        index.owners.set(key, doc._id);
      }
      state.uniqueIndexes.push(index);
    }
  }

  async upsertIfNewer(collection: string, doc: StoredDocument): Promise<boolean> {
    const state = this.state(collection);
    const current = state.docs.get(doc._id);
    if (current && current._v >= doc._v) return false;

    const copy = structuredClone(doc);
    // Check every unique index before touching any, so a rejected write leaves no trace.
    const keys = state.uniqueIndexes.map((index) => indexKey(index, copy));
    for (const [i, index] of state.uniqueIndexes.entries()) {
      const owner = index.owners.get(keys[i]);
      if (owner !== undefined && owner !== doc._id) {
        throw duplicateKeyError(
          `duplicate key in ${collection} index ${index.name}: ${keys[i]} is already used by ${owner}`,
        );
      }
    }

    if (current) this.unindex(state, current);
    for (const [i, index] of state.uniqueIndexes.entries()) index.owners.set(keys[i], doc._id);
    state.docs.set(doc._id, copy);
    let ids = state.byInstance.get(copy._instance);
    if (!ids) state.byInstance.set(copy._instance, (ids = new Set()));
    ids.add(copy._id);
    return true;
  }

  async deleteStale(collection: string, instance: string, version: number): Promise<number> {
    const state = this.collections.get(collection);
    if (!state) return 0;
    let deleted = 0;
    for (const id of [...(state.byInstance.get(instance) ?? [])]) {
      const doc = state.docs.get(id);
      if (doc && doc._instance === instance && doc._v < version) {
        this.unindex(state, doc);
        state.docs.delete(id);
        deleted++;
      }
    }
    return deleted;
  }

  async get(collection: string, id: string): Promise<StoredDocument | null> {
    const doc = this.collections.get(collection)?.docs.get(id);
    return doc ? structuredClone(doc) : null;
  }

  async find<T = StoredDocument>(
    collection: string,
    filter: Filter,
    options: FindOptions = {},
  ): Promise<FindResult<T>> {
    const matches = this.matching(collection, filter);
    const { sort, skip, limit, projection } = options;

    // mingo applies sort, then skip and limit, then the projection, lazily; the
    // cursor runs over `matches` (references), so the stored documents are
    // neither copied nor re-sorted beyond what the page needs.
    const cursor = mingoFind(matches, {}, projection ?? {});
    if (sort && Object.keys(sort).length > 0) cursor.sort(sort);
    if (skip) cursor.skip(skip);
    // As in MongoDB, a limit of 0 means no limit.
    if (limit) cursor.limit(limit);

    return { items: cursor.all().map((doc) => structuredClone(doc) as T), total: matches.length };
  }

  async count(collection: string, filter: Filter): Promise<number> {
    return this.matching(collection, filter).length;
  }

  async drop(collection: string): Promise<void> {
    // Like the MongoDB adapter, drop removes the documents but keeps the indexes.
    const state = this.collections.get(collection);
    if (!state) return;
    state.docs.clear();
    state.byInstance.clear();
    for (const index of state.uniqueIndexes) index.owners.clear();
  }

  async close(): Promise<void> {
    this.collections.clear();
  }

  private state(collection: string): CollectionState {
    let state = this.collections.get(collection);
    if (!state) {
      state = { docs: new Map(), uniqueIndexes: [], byInstance: new Map() };
      this.collections.set(collection, state);
    }
    return state;
  }

  /** The stored documents (not copies) matching `filter`, in insertion order. */
  private matching(collection: string, filter: Filter): StoredDocument[] {
    const docs = this.collections.get(collection)?.docs;
    if (!docs) return [];
    const query = new Query(filter);
    const matches: StoredDocument[] = [];
    for (const doc of docs.values()) {
      if (query.test(doc)) matches.push(doc);
    }
    return matches;
  }

  private unindex(state: CollectionState, doc: StoredDocument): void {
    for (const index of state.uniqueIndexes) index.owners.delete(indexKey(index, doc));
    const ids = state.byInstance.get(doc._instance);
    ids?.delete(doc._id);
    if (ids?.size === 0) state.byInstance.delete(doc._instance);
  }
}
