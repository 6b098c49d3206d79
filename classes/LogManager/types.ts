/** LogManager's state and the bodies of its methods (schemas/LogManager/*.json). */
import type { StateOf } from '../../runtime';
import type { Actor } from '../_platform/actor';
import type { LogRecord } from './log-entry';

/** One instance per entry: private state holds the entry (absent until `record` created it). */
export type LogManagerState = StateOf<{ log?: LogRecord }>;

/** addLogEntry: one change of an entity of the calling class */
export type AddLogEntryBody = {
  classId: string;
  entityId: string;
  entityType: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  actor?: Actor;
  additionalData?: Record<string, unknown>;
  companyId?: string;
  sensitiveFields?: string[];
  plainFields?: string[];
  ignore?: string[];
};

/** record: the addLogEntry body and the time stamp of the change */
export type RecordBody = AddLogEntryBody & { timeStamp?: string };

/** getLogEntries: filters and paging, from the body or the query string (list-query.ts) */
export type GetLogEntriesBody = {
  classId?: string;
  entityId?: string;
  entityType?: string;
  from?: string;
  to?: string;
  search?: string;
  page?: number;
  limit?: number;
};

/** getLog: the entry's id, from the body or the query string */
export type GetLogBody = { logId?: string };

/** a READ without input */
export type NoBody = Record<string, never>;
