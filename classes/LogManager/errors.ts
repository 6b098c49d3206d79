import { errorFactory } from '../../runtime';

/** LogManager error codes (spec 7.1: 12000-12099). Each code has one HTTP status. */
export const LogManagerErrors = {
  /** query parameters of getLogEntries/getLog are malformed (page, limit, dates, ...) */
  INVALID_QUERY: { code: 12001, status: 400 },
  /** getLogEntries: `from` is after `to` */
  INVALID_DATE_RANGE: { code: 12002, status: 400 },
  /** addLogEntry: only class identities (and the system) may record a log on behalf of another actor */
  ACTOR_NOT_ALLOWED: { code: 12003, status: 403 },
  /** getLog: no log entry with this id */
  LOG_NOT_FOUND: { code: 12004, status: 404 },
  /** getLog: the entry's LARGE_LOG file is missing or unreadable */
  LARGE_LOG_UNAVAILABLE: { code: 12005, status: 500 },
  /** addLogEntry: additionalData is larger than the limit */
  ADDITIONAL_DATA_TOO_LARGE: { code: 12006, status: 400 },
  /** record: the log record does not belong to the instance being created */
  RECORD_MISMATCH: { code: 12007, status: 400 },
  /** addLogEntry: before/after are not JSON objects (in-process callers only; HTTP input is checked by the schema) */
  INVALID_ENTITY: { code: 12008, status: 400 },
} as const;

export type LogManagerError = keyof typeof LogManagerErrors;

export const logManagerError = errorFactory('LogManager', LogManagerErrors);
