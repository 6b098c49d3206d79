/**
 * What ContentManager's use cases share: the singleton's instance, the
 * handlers' context types, the state to write or read, parameters, the
 * content a call names, the refusal while a content waits for an approval,
 * field errors, and the audit entry of a change.
 */
import type { BaseCtx, Ctx, DeepReadonly, ReadCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import type { FieldProblem } from '../../_platform/paging';
import { openRecord, ownEntry } from '../../_platform/records';
import { contentError, type ContentManagerErrorName } from '../errors';
import { toEntity } from '../rules';
import type { ContentManagerClassState, ContentManagerState, ContentRecord } from '../types';
import { problemsText } from '../../_platform/paging';

export const CONTENT_INSTANCE = 'default';
/** the approval callback of every ContentManager event (approve and reject) */
export const APPROVAL_CALLBACK = 'approveContent';
/** entity type of the audit entries and of the image files (FileManager instance `content_<id>`) */
export const CONTENT_ENTITY = 'content';

/** a ContentManager write's context: the singleton's state, and the method's body `I` */
export type ContentCtx<I = Record<string, never>> = Ctx<ContentManagerClassState, I>;
/** a ContentManager READ's context */
export type ContentReadCtx<I = Record<string, never>> = ReadCtx<ContentManagerClassState, I>;

export const now = () => new Date().toISOString();

export function guardSingleton(ctx: Pick<BaseCtx, 'instanceId'>): void {
  if (ctx.instanceId !== CONTENT_INSTANCE) {
    throw contentError(
      'CONTENT_SINGLETON_ONLY',
      `ContentManager is a singleton: call instance '${CONTENT_INSTANCE}', not '${ctx.instanceId}'`,
    );
  }
}

/** The state to change (contents keyed by id in a null-prototype record). */
export function writable(ctx: ContentCtx<unknown>): ContentManagerState {
  guardSingleton(ctx);
  const s = ctx.state.private;
  s.contents = openRecord(s.contents);
  return s;
}

const NO_CONTENTS: Readonly<Record<string, never>> = Object.freeze({});

/** The contents to read (frozen; none before the first one is created). */
export function readableContents(ctx: ContentReadCtx<unknown>): DeepReadonly<Record<string, ContentRecord>> {
  guardSingleton(ctx);
  return ctx.state.private.contents ?? NO_CONTENTS;
}

/** A 400 of the class naming each field and its reason. */
export function fieldError(name: ContentManagerErrorName, errors: FieldProblem[], what = 'Invalid input') {
  return contentError(name, `${what}: ${problemsText(errors)}`, { errors });
}

/** The content with this id; 404 18000 when there is none. */
export function requireContent<C extends DeepReadonly<ContentRecord> | ContentRecord>(
  contents: Readonly<Record<string, C>>,
  id: string,
): C {
  const content = ownEntry(contents, id);
  if (!content) throw contentError('CONTENT_NOT_FOUND', `No content with id '${id}'`, { id });
  return content;
}

/** The refusal of a change asked while content `id` waits for an approval (409 18006). */
export function whilePending(id: string) {
  return (approvalId: string) =>
    contentError(
      'CONTENT_APPROVAL_PENDING',
      `Content '${id}' waits for approval ${approvalId}; it takes no other change until then`,
      { id, approvalId },
    );
}

/** The audit entry of an applied change (entity type `content`). */
export async function logContent(
  ctx: ContentCtx<unknown>,
  before: ContentRecord | null,
  after: ContentRecord,
  additionalData: Record<string, unknown>,
) {
  await logChange(ctx, {
    entityType: CONTENT_ENTITY,
    entityId: after.id,
    before: before ? { ...toEntity(before) } : null,
    after: { ...toEntity(after) },
    ignore: ['updatedAt'],
    additionalData,
  });
}
