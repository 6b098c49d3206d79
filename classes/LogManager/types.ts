/** LogManager's state and the body of its schema-less READ (the others: schemas/LogManager/inputs.ts). */
import type { StateOf } from '../../runtime';
import type { LogRecord } from './log-entry';

/** One instance per entry: private state holds the entry (absent until `record` created it). */
export type LogManagerState = StateOf<{ log?: LogRecord }>;

/** a READ without input */
export type NoBody = Record<string, never>;
