/**
 * For other classes: record an entity change in the audit log (spec 6:
 * "entity changes are also logged through LogManager with field-level
 * before/after values").
 *
 *   await logChange(ctx, { entityType: 'member', entityId: id, before, after, sensitiveFields: ['birthdate', 'phone'] });
 *
 * The log is written under the calling class (ctx.classId) with the actor
 * behind the current call (the user, member or system that caused the change).
 * Nothing is written when nothing changed ({logId: null, fieldUpdates: 0}).
 * Errors of LogManager are thrown (ActorError), as from any ctx.call.
 */
import type { Ctx } from '../../runtime';
import { actorFromIdentity, type Actor } from '../_platform/actor';

export interface LogChangeInput {
  entityType: string;
  entityId: string | number;
  /** the entity before the change; null (or undefined) for a create */
  before: Record<string, unknown> | null | undefined;
  /** the entity after the change; null (or undefined) for a delete */
  after: Record<string, unknown> | null | undefined;
  additionalData?: Record<string, unknown>;
  /** personal-data field names to mask (credentials are always masked) */
  sensitiveFields?: string[];
  /** top-level keys not to log */
  ignore?: string[];
  /** who made the change when it is not the caller (e.g. the reviewer, in an approval callback) */
  actor?: Actor;
}

export interface LogChangeResult {
  logId: string | null;
  fieldUpdates: number;
}

export async function logChange(ctx: Ctx, input: LogChangeInput): Promise<LogChangeResult> {
  const body: Record<string, unknown> = {
    classId: ctx.classId,
    entityType: input.entityType,
    entityId: String(input.entityId),
    before: input.before ?? null,
    after: input.after ?? null,
    actor: input.actor ?? actorFromIdentity(ctx.identity),
  };
  if (input.additionalData !== undefined) body.additionalData = input.additionalData;
  if (input.sensitiveFields?.length) body.sensitiveFields = input.sensitiveFields;
  if (input.ignore?.length) body.ignore = input.ignore;
  const res = await ctx.call('LogManager', 'addLogEntry', undefined, body);
  return res.body as LogChangeResult;
}
