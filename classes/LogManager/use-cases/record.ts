/** Writing the audit log: addLogEntry (the direct form) and record (the entry's instance; logChange's effect). */
import { randomUUID } from 'node:crypto';
import type { BaseCtx, Ctx, StaticCtx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { logManagerError } from '../errors';
import { additionalDataTooLarge, buildLog, MAX_ADDITIONAL_DATA_BYTES } from '../log-entry';
import type { AddLogEntryInput, RecordInput } from '../../../schemas/LogManager/inputs';
import type { LogManagerState } from '../types';

/** What addLogEntry asks the entry's instance; LogManager's typed client (`client<typeof LogManager>`) fits it. */
export interface EntryRecorder {
  record(logId: string, body: RecordInput): Promise<{ id: string; fieldUpdates: number }>;
}

/**
 * A class logs its own changes only; LogManager itself relays addLogEntry's
 * (whose caller it checked). The system identity (CLI) may log any.
 */
function assertOwnChanges(ctx: BaseCtx, body: AddLogEntryInput): void {
  const id = ctx.identity;
  if (id.type === 'class' && id.classId !== 'LogManager' && body.classId !== id.classId) {
    throw logManagerError(
      'ACTOR_NOT_ALLOWED',
      `Class ${id.classId} may only log its own changes, not ${body.classId}'s`,
    );
  }
}

/** The entry of a change (masked, large values cut) and its LARGE_LOG content; 400s for what cannot be logged. */
function buildEntry(
  ctx: BaseCtx,
  body: AddLogEntryInput,
  logId: string,
  timeStamp: string,
): ReturnType<typeof buildLog> {
  try {
    if (additionalDataTooLarge(body.additionalData)) {
      throw logManagerError(
        'ADDITIONAL_DATA_TOO_LARGE',
        `additionalData must be at most ${MAX_ADDITIONAL_DATA_BYTES} bytes of JSON`,
        {
          errors: [{ field: 'additionalData', reason: `must be at most ${MAX_ADDITIONAL_DATA_BYTES} bytes of JSON` }],
        },
      );
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
    if (err instanceof TypeError)
      throw logManagerError('INVALID_ENTITY', `The entry cannot be logged as JSON: ${err.message}`);
    throw err;
  }
}

/** Checks and answers first (nothing changed: no entry), then creates the entry's instance through `record`. */
export async function addLogEntry(ctx: StaticCtx<AddLogEntryInput>, entries: EntryRecorder) {
  const body = ctx.request.body;
  assertOwnChanges(ctx, body);
  const timeStamp = new Date().toISOString();
  // built once here to answer (and to refuse bad input) before anything is stored
  const n = buildEntry(ctx, body, 'pending', timeStamp).full.length;
  if (n === 0) return { logId: null, fieldUpdates: 0 };
  const logId = randomUUID();
  await entries.record(logId, { ...body, actor: body.actor ?? actorFromIdentity(ctx.identity), timeStamp });
  return { logId, fieldUpdates: n };
}

/** Builds and stores the entry under the instance id the caller chose; the LARGE_LOG file first. */
export async function record(ctx: Ctx<LogManagerState, RecordInput>) {
  const body = ctx.request.body;
  assertOwnChanges(ctx, body);
  const built = buildEntry(ctx, body, ctx.instanceId!, body.timeStamp ?? new Date().toISOString());
  // the file first: an entry never points at a file that is not there
  if (built.large) {
    await ctx.ports.blobs.put(
      built.large.name,
      Buffer.from(JSON.stringify(built.large.content), 'utf8'),
      'application/json',
    );
  }
  ctx.state.private.log = built.record;
  return { id: built.record.id, fieldUpdates: built.full.length };
}
