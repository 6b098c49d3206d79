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

/** One instance per export (instance id = export id). */
export type DataSubjectClassState = StateOf<{ export?: ExportRecord }>;
