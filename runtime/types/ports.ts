/** Outside systems behind ports (ctx.ports). */
import type { Signer } from '../auth/signer';
import type { BlobStore } from '../files/blob-store';
import type { RolePublisher } from './roles';

/** One method of a class as the registry knows it (for permission catalogues). */
export interface CatalogueMethod {
  name: string;
  kind: string;
  access: readonly string[];
}

/**
 * Where the runtime keeps records of past calls (TraceErasure.byStore):
 * - `jobs`: finished BullMQ jobs (completed and failed) of every queue, the mail and SMS queue included
 * - `jobEvents`: the entries of those queues' event streams (a finished job's return value or failure)
 * - `answers`: kept answers of idempotency keys (and of methods' replay windows)
 * - `journals`: call journal entries
 * - `deadLetters`: dead-lettered committed effects, mails and SMS
 * - `mailFiles`: the embedded mail adapter's .eml files
 * - `mailIndex`: lines of the embedded mail adapter's listing (recipients, subject)
 * - `smsOutbox`: lines of the SMS outbox
 */
export type TraceStore =
  'jobs' | 'jobEvents' | 'answers' | 'journals' | 'deadLetters' | 'mailFiles' | 'mailIndex' | 'smsOutbox';

/** What one erasure removed: in all, and per store. */
export interface TraceErasure {
  removed: number;
  byStore: Record<TraceStore, number>;
}

/** ctx.ports.traces: forgets a person's values in the runtime's own records of past calls (docs/runtime.md). */
export interface TraceEraser {
  /**
   * Removes the runtime's own records of past calls that hold any of `values` (each compared as an exact
   * substring of the record's text, and also in its JSON-escaped form): finished jobs (completed and failed)
   * of every queue, the mail and SMS delivery queue included, and their entries in the queues' event streams;
   * kept answers of idempotency keys; journal entries (and their place in their subject index); dead letters
   * (effects and messages); the embedded mail adapter's .eml files and listing lines and the SMS outbox's
   * lines. Work not done yet (waiting, delayed, active, prioritised jobs; effects not applied yet) is never
   * touched. Values shorter than 3 characters (leading and trailing spaces aside) are ignored. Walks every key
   * of the project and every finished job: call it from a method with a budget to match (a QUEUED_WRITE).
   */
  forget(values: readonly string[]): Promise<TraceErasure>;
}

export interface Ports {
  blobs: BlobStore;
  signer: Signer;
  roles: RolePublisher;
  /** the classes this runtime serves: class id → its methods with kind and access (read-only) */
  catalogue(): Record<string, CatalogueMethod[]>;
  /** forgets values (a person's) in the runtime's records of past calls: jobs, kept answers, journals, dead letters, mail and SMS files */
  traces: TraceEraser;
}
