/** Streaming to the document database and reading it back (listings). */
import type { ListingSpec } from '../stream/listing';
import type { DocumentStore, Filter, IndexSpec } from '../stream/document-store';
import type { InstanceState } from './state';

export interface ProjectedDocument {
  collection: string;
  id: string;
  doc: Record<string, unknown>;
}

export interface CollectionOptions {
  indexes?: IndexSpec[];
  /**
   * the listings that read this collection (order and filter sets); the
   * indexes they need are derived from them (runtime/stream/listing.ts)
   */
  listings?: ListingSpec[];
  /**
   * Field (dotted path) holding the tenant a document belongs to. Reads of
   * this collection by a tenant-bound caller (ctx.documents) only see
   * documents whose field equals the caller's tenant. Required on every
   * collection of a class with `tenancy: {kind: 'owned'}`.
   */
  tenantField?: string;
  /**
   * Counts of this collection's documents an operator watches (e.g. records
   * waiting for review), exported as runtime_document_count{collection, gauge},
   * counted at each scrape: give each filter an index.
   */
  gauges?: DocumentGauge[];
}

/** One count of a collection's documents on /metrics (CollectionOptions.gauges). */
export interface DocumentGauge {
  /** the series' `gauge` label: 1-64 of [a-z0-9_] */
  name: string;
  help: string;
  filter: Filter;
}

export interface StreamOptions<S extends InstanceState = InstanceState> {
  /** collections this class writes, with their indexes */
  collections: Record<string, CollectionOptions>;
  /** turns committed state into the documents to upsert (all of the instance's documents) */
  toDocuments(state: S, instanceId: string): ProjectedDocument[];
}

export interface DocumentReader {
  find: DocumentStore['find'];
  get: DocumentStore['get'];
  count: DocumentStore['count'];
}
