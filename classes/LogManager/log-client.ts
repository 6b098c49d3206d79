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
 * Errors of LogManager are thrown (ActorError), as from any ctx.call.
 */
import type { Ctx } from '../../runtime';
import { recordCompany } from '../_platform/scope';
import { changeActor, type Actor } from '../_platform/actor';

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

export async function logChange(ctx: Ctx, input: LogChangeInput): Promise<LogChangeResult> {
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
  const res = await ctx.call('LogManager', 'addLogEntry', undefined, body);
  return res.body as LogChangeResult;
}
