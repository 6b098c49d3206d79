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
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, Init, isUnknownInstance, Read, Static, type Ctx } from '../../runtime';
import { actorFromIdentity, type Actor } from '../_platform/actor';
import { ownedByCompany } from '../_platform/scope';
import { logManagerError } from './errors';
import { jsonText } from '../_platform/field-diff';
import { buildLog, largeLogBlobName, withFullValues, utf8Bytes, type LargeLogContent, type LogRecord } from './log-entry';
import { logListingDocument, parseLogListQuery } from './list-query';

/** additionalData larger than this (JSON, UTF-8 bytes) is refused */
export const MAX_ADDITIONAL_DATA_BYTES = 16 * 1024;

const LOG_ID = /^[A-Za-z0-9_-]{1,200}$/;

interface AddLogEntryBody {
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
}

/**
 * A class logs its own changes only; LogManager itself relays addLogEntry's
 * (whose caller it checked). The system identity (CLI) may log any.
 */
function assertOwnChanges(ctx: Ctx, body: AddLogEntryBody): void {
  const id = ctx.identity;
  if (id.type === 'class' && id.classId !== 'LogManager' && body.classId !== id.classId) {
    throw logManagerError('ACTOR_NOT_ALLOWED', `Class ${id.classId} may only log its own changes, not ${body.classId}'s`);
  }
}

/** The entry of a change (masked, large values cut) and its LARGE_LOG content; 400s for what cannot be logged. */
function buildEntry(ctx: Ctx, body: AddLogEntryBody, logId: string, timeStamp: string): ReturnType<typeof buildLog> {
  try {
    if (body.additionalData !== undefined && utf8Bytes(jsonText(body.additionalData) ?? '') > MAX_ADDITIONAL_DATA_BYTES) {
      throw logManagerError('ADDITIONAL_DATA_TOO_LARGE', `additionalData must be at most ${MAX_ADDITIONAL_DATA_BYTES} bytes of JSON`, {
        errors: [{ field: 'additionalData', reason: `must be at most ${MAX_ADDITIONAL_DATA_BYTES} bytes of JSON` }],
      });
    }
    return buildLog({
      logId,
      timeStamp,
      classId: body.classId,
      entityId: body.entityId,
      entityType: body.entityType,
      before: body.before,
      after: body.after,
      actor: body.actor ?? actorFromIdentity(ctx.identity),
      additionalData: body.additionalData,
      // a class acting for a company user logs into that company unless it names the entity's
      companyId: body.companyId ?? ctx.tenancy.tenant,
      sensitiveFields: body.sensitiveFields,
      plainFields: body.plainFields,
      ignore: body.ignore,
    });
  } catch (err) {
    // only reachable from in-process callers: values JSON cannot encode (BigInt, cycles)
    if (err instanceof TypeError) throw logManagerError('INVALID_ENTITY', `The entry cannot be logged as JSON: ${err.message}`);
    throw err;
  }
}

/** A stored entry, or null when its instance is gone (listed from a projection that lags). */
async function readRecord(ctx: Ctx, logId: string): Promise<LogRecord | null> {
  try {
    return (await ctx.call('LogManager', 'readEntry', logId)).body as LogRecord;
  } catch (err) {
    if (isUnknownInstance(err)) return null;
    throw err;
  }
}

@ActorClass({
  id: 'LogManager',
  description: 'Audit log of entity changes (field-level before/after values)',
  // company scope: an entry belongs to the company of the entity it logs; entries of programme data (no company) are internal
  tenancy: ownedByCompany((state) => (state.private.log as LogRecord | undefined)?.companyId),
  stream: {
    collections: {
      logs: { tenantField: 'companyId', indexes: [{ keys: { classId: 1, entityId: 1, timeStamp: -1 } }, { keys: { timeStamp: -1 } }] },
    },
    toDocuments: (state, id) => {
      const log = state.private.log as LogRecord | undefined;
      return log ? [{ collection: 'logs', id, doc: logListingDocument(log) }] : [];
    },
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
  async addLogEntry(ctx: Ctx) {
    const body = ctx.request.body as AddLogEntryBody;
    assertOwnChanges(ctx, body);
    const timeStamp = new Date().toISOString();
    // built once here to answer (and to refuse bad input) before anything is stored
    const n = buildEntry(ctx, body, 'pending', timeStamp).full.length;
    if (n === 0) return { logId: null, fieldUpdates: 0 };
    const logId = randomUUID();
    await ctx.call('LogManager', 'record', logId, { ...body, actor: body.actor ?? actorFromIdentity(ctx.identity), timeStamp });
    return { logId, fieldUpdates: n };
  }

  /**
   * Creates the instance of one log entry from the change (the addLogEntry
   * body plus its time stamp), under an id the caller chose: logChange commits
   * it with the change it logs (an effect, applied effectively once), and
   * addLogEntry relays to it. Created at commit, without a lease. Values over
   * 1 KB go to the LARGE_LOG file first (same name on a redelivery).
   */
  @Init({ access: ['class'], lease: false, timeoutSeconds: 30 })
  async record(ctx: Ctx) {
    const body = ctx.request.body as AddLogEntryBody & { timeStamp?: string };
    assertOwnChanges(ctx, body);
    const built = buildEntry(ctx, body, ctx.instanceId!, body.timeStamp ?? new Date().toISOString());
    // the file first: an entry never points at a file that is not there
    if (built.large) {
      await ctx.ports.blobs.put(built.large.name, Buffer.from(JSON.stringify(built.large.content), 'utf8'), 'application/json');
    }
    ctx.state.private.log = built.record;
    return { id: built.record.id, fieldUpdates: built.full.length };
  }

  /** The stored entry (large values as previews); for getLog. */
  @Read({ access: ['class:LogManager'], schema: false })
  readEntry(ctx: Ctx) {
    const log = ctx.state.private.log as LogRecord | undefined;
    if (!log) throw logManagerError('LOG_NOT_FOUND', `No log entry '${ctx.instanceId}'`);
    return log;
  }

  /** Lists entries newest first; large values are previews (isLarge: true). */
  @Static({ access: ['program_management_user', 'class'] })
  async getLogEntries(ctx: Ctx) {
    const q = parseLogListQuery(ctx.request.query ?? {}, (ctx.request.body ?? {}) as Record<string, unknown>);
    const { items, total } = await ctx.documents.find('logs', q.filter, { sort: q.sort, skip: q.skip, limit: q.limit });
    // the page's entries in full from their instances (the listing holds a search string, not the field updates)
    const entries = await Promise.all(items.map((d) => readRecord(ctx, String(d._id))));
    return {
      entries: entries.filter((e): e is LogRecord => e !== null),
      totalCount: total,
      page: q.page,
      limit: q.limit,
      totalPages: Math.ceil(total / q.limit),
    };
  }

  /** One entry with every value in full (large values read back from their LARGE_LOG file). */
  @Static({ access: ['program_management_user'] })
  async getLog(ctx: Ctx) {
    const body = (ctx.request.body ?? {}) as { logId?: unknown };
    const logId = body.logId ?? (ctx.request.query ?? {}).logId;
    if (typeof logId !== 'string' || logId.length === 0) {
      throw logManagerError('INVALID_QUERY', 'logId is required', { errors: [{ field: 'logId', reason: 'is required' }] });
    }
    if (!LOG_ID.test(logId)) throw logManagerError('LOG_NOT_FOUND', `No log entry '${logId}'`);
    let record: LogRecord;
    try {
      record = (await ctx.call('LogManager', 'readEntry', logId)).body as LogRecord;
    } catch (err) {
      if (isUnknownInstance(err)) {
        throw logManagerError('LOG_NOT_FOUND', `No log entry '${logId}'`);
      }
      throw err;
    }
    if (!record.isLargeLog) return record;

    const name = largeLogBlobName(record.entityType, record.entityId, record.id);
    const blob = await ctx.ports.blobs.get(name);
    let content: LargeLogContent | undefined;
    try {
      content = blob ? (JSON.parse(blob.data.toString('utf8')) as LargeLogContent) : undefined;
    } catch {
      content = undefined;
    }
    if (!content || !Array.isArray(content.fieldUpdates)) {
      throw logManagerError('LARGE_LOG_UNAVAILABLE', `The large values of log entry '${logId}' (${name}) are unavailable`);
    }
    const merged = withFullValues(record, content);
    if (merged.missing.length) {
      throw logManagerError('LARGE_LOG_UNAVAILABLE', `${name} lacks the values of ${merged.missing.join(', ')}`);
    }
    return merged.record;
  }
}
