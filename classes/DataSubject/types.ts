/** DataSubject's records (the bodies are schemas/DataSubject/inputs.ts). */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';
import type { Subject } from '../_platform/personal-data';

/**
 * One export as the audit log and the instance keep it: who asked for whose
 * data and what the archive held, never the data itself.
 */
export interface ExportRecord {
  id: string;
  subject: Subject;
  includeDependants: boolean;
  /** every subject the archive covers: the subject, then its dependants when asked for */
  subjects: Subject[];
  /** the subject's company (null: none); the export belongs to it */
  companyId: string | null;
  requestedBy: Actor;
  requestedAt: string;
  recordCount: number;
  fileCount: number;
  /** SHA-256 of the archive answered, hex: what was handed out can be recognised later */
  archiveSha256: string;
}

export const ERASURE_STATUSES = ['requested', 'approved', 'erased', 'rejected'] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

/** What one class erased for the request. */
export interface ErasedCount {
  classId: string;
  records: number;
  files: number;
}

/**
 * One erasure as the instance keeps it (and the audit log and the approval
 * record see it): whose data, why, who asked and who approved, what was
 * erased where; never a personal value.
 */
export interface ErasureRecord {
  id: string;
  subject: Subject;
  includeDependants: boolean;
  /** every subject erased: the subject, then its dependants when asked for */
  subjects: Subject[];
  /** the subject's company (null: none); the request belongs to it */
  companyId: string | null;
  reason: string;
  status: ErasureStatus;
  requestedBy: Actor;
  requestedAt: string;
  /** the approval it waits for or waited for (four eyes) */
  approvalId: string | null;
  reviewedBy?: Actor | null;
  reviewedAt?: string;
  erasedAt?: string;
  /** per class, what it erased (summed over the subjects) */
  erased?: ErasedCount[];
  /** records outside the classes (mails, SMS, finished jobs, kept answers) removed because they held the subject's values */
  traces?: number;
  updatedAt: string;
}

export interface DataSubjectState {
  export?: ExportRecord;
  erasure?: ErasureRecord;
  /**
   * Between the approval and the erasure only: the subjects' values by which
   * traces are found, gathered before any class erases them (so a retried
   * erasure still has them) and dropped by the commit that ends it.
   */
  pendingValues?: string[];
}

/** One instance per request (instance id = request id): an export or an erasure. */
export type DataSubjectClassState = StateOf<DataSubjectState>;
