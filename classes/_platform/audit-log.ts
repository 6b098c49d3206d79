/**
 * For other classes: record an entity change in the audit log (spec 6:
 * "entity changes are also logged through LogManager with field-level
 * before/after values").
 *
 *   await logChange(ctx, { entityType: 'member', entityId: id, before, after, sensitiveFields: ['birthdate', 'phone'] });
 *
 * The log is written under the calling class (ctx.classId) with the actor
 * behind the current call (the user, member or system that caused the change);
 * in an approval callback that is the reviewer who approved the change
 * (changeActor), so every class's approved changes name their reviewer
 * without passing `actor`.
 * Nothing is written when nothing changed ({logId: null, fieldUpdates: 0}).
 *
 * The entry belongs to the change: it is committed with the calling handler's
 * change as an effect (ctx.effect → LogManager.record under a log id chosen
 * here) and written right after the commit, effectively once; a change that
 * throws or fails to commit leaves no entry. The body is checked against
 * record's schema now; what LogManager refuses later is dead-lettered.
 */
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../runtime';
import { countFieldUpdates } from './field-diff';
import { recordCompany } from './scope';
import { changeActor, type Actor } from './actor';

/**
 * `E`: the entity's record type, as the class keeps it (an interface needs no
 * index signature: the entry is its JSON, diffed field by field).
 */
export interface LogChangeInput<E extends object = object> {
  entityType: string;
  entityId: string | number;
  /** the entity before the change; null (or undefined) for a create */
  before: E | null | undefined;
  /** the entity after the change; null (or undefined) for a delete */
  after: E | null | undefined;
  additionalData?: Record<string, unknown>;
  /** personal-data field names to mask (credentials are always masked) */
  sensitiveFields?: string[];
  /** top-level fields that hold no personal data (e.g. consent flags): personal names are not masked inside them */
  plainFields?: string[];
  /** top-level keys not to log */
  ignore?: string[];
  /** who made the change when it is not the caller; default changeActor (the caller, or in an approval callback the reviewer) */
  actor?: Actor;
  /** the company the entity belongs to (company scope); default: recordCompany (the changing instance's owner, else the caller's company) */
  companyId?: string;
}

export interface LogChangeResult {
  logId: string | null;
  fieldUpdates: number;
}

export async function logChange<E extends object>(ctx: Ctx, input: LogChangeInput<E>): Promise<LogChangeResult> {
  const body: Record<string, unknown> = {
    classId: ctx.classId,
    entityType: input.entityType,
    entityId: String(input.entityId),
    before: input.before ?? null,
    after: input.after ?? null,
    actor: input.actor ?? changeActor(ctx.identity, ctx.request.body),
  };
  if (input.additionalData !== undefined) body.additionalData = input.additionalData;
  if (input.sensitiveFields?.length) body.sensitiveFields = input.sensitiveFields;
  if (input.plainFields?.length) body.plainFields = input.plainFields;
  if (input.ignore?.length) body.ignore = input.ignore;
  const companyId = recordCompany(ctx, input.companyId);
  if (companyId !== undefined) body.companyId = companyId;
  const fieldUpdates = countFieldUpdates(body.before, body.after, { ignore: input.ignore });
  if (fieldUpdates === 0) return { logId: null, fieldUpdates: 0 };
  // the entry is part of the change: committed with it, written after it, once (an effect under an id chosen now)
  const logId = randomUUID();
  await ctx.effect({
    classId: 'LogManager',
    method: 'record',
    instanceId: logId,
    body: { ...body, timeStamp: new Date().toISOString() },
  });
  return { logId, fieldUpdates };
}
