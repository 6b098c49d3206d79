/** Reading one entry: readEntry (the entry's instance, as stored) and getLog (with every value in full). */
import { isUnknownInstance, type BaseCtx, type DeepReadonly, type ReadCtx, type StaticCtx } from '../../../runtime';
import { logManagerError } from '../errors';
import { needsLargeFile } from '../erasure-rules';
import { largeLogBlobName, LOG_ID_PATTERN, withFullValues, type LargeLogContent, type LogRecord } from '../log-entry';
import type { GetLogInput } from '../../../schemas/LogManager/inputs';
import type { LogManagerState, NoBody } from '../types';

/** What getLog and the listing ask the entries' instances; LogManager's typed client (`client<typeof LogManager>`) fits it. */
export interface EntryReader {
  readEntry(logId: string, body?: NoBody): Promise<DeepReadonly<LogRecord>>;
}

/** The stored entry (large values as previews). */
export function readEntry(ctx: ReadCtx<LogManagerState, NoBody>) {
  const log = ctx.state.private.log;
  if (!log) throw logManagerError('LOG_NOT_FOUND', `No log entry '${ctx.instanceId}'`);
  return log;
}

/** A stored entry, or null when its instance is gone (listed from a projection that lags). */
export async function entryOrNull(entries: EntryReader, logId: string): Promise<DeepReadonly<LogRecord> | null> {
  try {
    return await entries.readEntry(logId);
  } catch (err) {
    if (isUnknownInstance(err)) return null;
    throw err;
  }
}

/** The entry's LARGE_LOG content, or undefined when its file is missing or is not what `record` wrote. */
export async function largeContentOf(
  ctx: Pick<BaseCtx, 'ports'>,
  record: Pick<DeepReadonly<LogRecord>, 'entityType' | 'entityId' | 'id'>,
): Promise<LargeLogContent | undefined> {
  const blob = await ctx.ports.blobs.get(largeLogBlobName(record.entityType, record.entityId, record.id));
  let content: LargeLogContent | undefined;
  try {
    content = blob ? (JSON.parse(blob.data.toString('utf8')) as LargeLogContent) : undefined;
  } catch {
    content = undefined;
  }
  return content && Array.isArray(content.fieldUpdates) ? content : undefined;
}

/** One entry with every value in full (large values read back from their LARGE_LOG file, unless erased). */
export async function getLog(ctx: StaticCtx<GetLogInput>, entries: EntryReader) {
  const { logId } = ctx.request.body;
  if (!logId) {
    throw logManagerError('INVALID_QUERY', 'logId is required', {
      errors: [{ field: 'logId', reason: 'is required' }],
    });
  }
  if (!LOG_ID_PATTERN.test(logId)) throw logManagerError('LOG_NOT_FOUND', `No log entry '${logId}'`);
  const record = await entryOrNull(entries, logId);
  if (!record) throw logManagerError('LOG_NOT_FOUND', `No log entry '${logId}'`);
  // an erased entry's large values read ERASED inline and its file is gone: nothing to read back (erasure-rules.ts)
  if (!needsLargeFile(record)) return record;

  const name = largeLogBlobName(record.entityType, record.entityId, record.id);
  const content = await largeContentOf(ctx, record);
  if (!content) {
    throw logManagerError(
      'LARGE_LOG_UNAVAILABLE',
      `The large values of log entry '${logId}' (${name}) are unavailable`,
    );
  }
  const merged = withFullValues(record, content);
  if (merged.missing.length) {
    throw logManagerError('LARGE_LOG_UNAVAILABLE', `${name} lacks the values of ${merged.missing.join(', ')}`);
  }
  return merged.record;
}
