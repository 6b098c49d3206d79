/**
 * LogManager (spec 2.8 Log, 4.5 LogManager, 6, 8): the audit log of entity
 * changes with field-level before/after values.
 *
 * Storage: one actor instance per log entry (instance id = log id, a UUID),
 * created by `record` and projected to the `logs` collection, which
 * getLogEntries lists. Values larger than 1 KB are kept in full in a
 * LARGE_LOG_{entityType}_{entityId}_{logId}.json blob; the entry keeps a
 * preview (see log-entry.ts). getLog reads the entry from its instance (not
 * the projection) and puts the full values back.
 *
 * This file declares the methods and delegates: the bodies are in
 * use-cases/{record,read,listing,subject-data,erasure}.ts, the rules in log-entry.ts,
 * masking.ts, listing-rules.ts, subject-data-rules.ts and erasure-rules.ts. Calls between entries go through the typed
 * client of this class (`entries`).
 */
import {
  ActorClass,
  client,
  Init,
  Internal,
  Read,
  Static,
  type BaseCtx,
  type Ctx,
  type ReadCtx,
  type StaticCtx,
} from '../../runtime';
import { ownedByCompany } from '../_platform/scope';
import { SUBJECT_DATA_ACCESS } from '../_platform/personal-data';
import type {
  AddLogEntryInput,
  EraseEntryInput,
  EraseSubjectDataInput,
  ExportSubjectDataInput,
  GetLogEntriesInput,
  GetLogInput,
  RecordInput,
} from '../../schemas/LogManager/inputs';
import { invalidQuery, LIST_LOG_ENTRIES, logListingDocument } from './listing-rules';
import { LIST_SUBJECT_LOG_ENTRIES } from './subject-data-rules';
import type { LogManagerState, NoBody } from './types';
import * as recording from './use-cases/record';
import * as reading from './use-cases/read';
import * as listing from './use-cases/listing';
import * as subjectData from './use-cases/subject-data';
import * as erasure from './use-cases/erasure';

/** the types other classes see of this one (they import this file's types only) */
export type { LogManagerError as LogManagerErrorName } from './errors';

/**
 * LogManager's typed client, as the use cases need it (addLogEntry creates an
 * entry's instance, the readers read them, the erasure rewrites them): the
 * compiler checks that the client derived from this class fits their
 * interfaces.
 */
const entries = (ctx: Pick<BaseCtx, 'call'>): recording.EntryRecorder & reading.EntryReader & erasure.EntryEraser =>
  client<typeof LogManager>(ctx, 'LogManager');

@ActorClass<LogManagerState>({
  id: 'LogManager',
  description: 'Audit log of entity changes (field-level before/after values)',
  // company scope: an entry belongs to the company of the entity it logs; entries of programme data (no company) are internal
  tenancy: ownedByCompany((state) => state.private.log?.companyId),
  stream: {
    collections: {
      logs: { tenantField: 'companyId', listings: [LIST_LOG_ENTRIES, LIST_SUBJECT_LOG_ENTRIES] },
    },
    toDocuments: (state, id) =>
      state.private.log ? [{ collection: 'logs', id, doc: logListingDocument(state.private.log) }] : [],
  },
})
export class LogManager {
  /**
   * Records a change (spec 4.5: all class identities; users cannot write the
   * audit log). A class records its own changes only (classId = the caller's
   * class) and passes the actor behind the change. Classes changing an
   * instance use logChange (_platform/audit-log.ts), which commits `record` with the
   * change as an effect instead; this is the direct form (STATIC callers).
   */
  @Static({ access: ['class'], timeoutSeconds: 30 })
  async addLogEntry(ctx: StaticCtx<AddLogEntryInput>) {
    return recording.addLogEntry(ctx, entries(ctx));
  }

  /**
   * Creates the instance of one log entry from the change (the addLogEntry
   * body plus its time stamp), under an id the caller chose: logChange commits
   * it with the change it logs (an effect, applied effectively once), and
   * addLogEntry relays to it. Created at commit, without a lease. Values over
   * 1 KB go to the LARGE_LOG file first (same name on a redelivery).
   */
  @Init({ access: ['class'], lease: false, timeoutSeconds: 30 })
  async record(ctx: Ctx<LogManagerState, RecordInput>) {
    return recording.record(ctx);
  }

  /** The stored entry (large values as previews); for getLog and getLogEntries, and Partner's getLog (one entry by id, from its instance, not the listing). */
  @Read({ access: ['class:LogManager', 'class:Partner'], schema: false })
  readEntry(ctx: ReadCtx<LogManagerState, NoBody>) {
    return reading.readEntry(ctx);
  }

  /** Lists entries newest first; large values are previews (isLarge: true). */
  @Static({ access: ['program_management_user', 'class'], onValidationError: invalidQuery })
  async getLogEntries(ctx: StaticCtx<GetLogEntriesInput>) {
    return listing.getLogEntries(ctx, entries(ctx));
  }

  /** One entry with every value in full (large values read back from their LARGE_LOG file). */
  @Static({ access: ['program_management_user'], onValidationError: invalidQuery })
  async getLog(ctx: StaticCtx<GetLogInput>) {
    return reading.getLog(ctx, entries(ctx));
  }

  /**
   * The audit entries about one data subject (its own changes, and the
   * changes it made), each as stored, with their LARGE_LOG files: for
   * DataSubject's export only (classes/_platform/personal-data.ts). Found
   * through the `logs` listing, read from the entries' instances.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS], timeoutSeconds: 30 })
  async exportSubjectData(ctx: StaticCtx<ExportSubjectDataInput>) {
    return subjectData.exportSubjectData(ctx, entries(ctx));
  }

  /**
   * DataSubject's approved erasure of one data subject
   * (classes/_platform/personal-data.ts): the entries exportSubjectData
   * gives lose the subject's values (an entry about it: its field values and
   * additionalData read `[erased]`, marked erasedBy/erasedAt, its LARGE_LOG
   * file deleted) or its name (an entry it made). → {records, files}; zeros
   * on a second call. Each entry is rewritten by its own instance (eraseEntry).
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS], timeoutSeconds: 30 })
  async eraseSubjectData(ctx: StaticCtx<EraseSubjectDataInput>) {
    return erasure.eraseSubjectData(ctx, entries(ctx));
  }

  /** One entry's part of eraseSubjectData: the entry decides on its own state what is left to erase (erasure-rules.ts). */
  @Internal({ access: ['class:LogManager'] })
  eraseEntry(ctx: Ctx<LogManagerState, EraseEntryInput>) {
    return erasure.eraseEntry(ctx);
  }
}
