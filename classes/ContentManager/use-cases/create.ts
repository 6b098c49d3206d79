/**
 * The singleton's creation (init) and createContent: a new content of a key
 * of its group, its fields checked against the key's schema, its images
 * stored as public files, `pending` until content_create is approved (spec 3.3).
 */
import { randomUUID } from 'node:crypto';
import { actorFromIdentity } from '../../_platform/actor';
import { requestGatedChange } from '../../_platform/gated-change';
import { hasEntry } from '../../_platform/records';
import { contentError } from '../errors';
import { CONTENT_EVENTS, fromEntity, newContent, toEntity, windowProblems } from '../rules';
import { CATALOGUE } from '../schema-rules';
import type { CreateContentInput } from '../../../schemas/ContentManager/inputs';
import { checkedFields } from './fields';
import { storeImages } from './images';
import { APPROVAL_CALLBACK, fieldError, logContent, now, whilePending, writable, type ContentCtx } from './common';

/** Creates the singleton (instance `default`) without contents. */
export function init(ctx: ContentCtx) {
  ctx.state.private.contents = {};
  return { id: ctx.instanceId, contents: 0 };
}

export async function createContent(ctx: ContentCtx<CreateContentInput>) {
  const state = writable(ctx);
  const input = ctx.request.body;
  const keyProblems = CATALOGUE.keyProblems(input.contentGroupKey, input.contentKey);
  if (keyProblems.length) throw fieldError('CONTENT_INVALID_KEY', keyProblems, 'Invalid content key');
  const id = input.id ?? randomUUID();
  if (hasEntry(state.contents, id))
    throw contentError('CONTENT_ID_TAKEN', `A content with id '${id}' exists`, {
      id,
      errors: [{ field: 'id', reason: 'is taken' }],
    });
  const dates = windowProblems(input.startDate ?? null, input.endDate ?? null);
  if (dates.length) throw fieldError('CONTENT_INVALID_DATES', dates, 'Invalid window');
  const checked = await checkedFields(ctx, input.contentKey, input.fields, undefined);
  const fields = await storeImages(ctx, id, checked.fields, checked.images);
  const content = newContent(input, fields, actorFromIdentity(ctx.identity), now(), id);
  const change = await requestGatedChange(ctx, {
    event: CONTENT_EVENTS.create,
    entityId: id,
    oldEntity: null,
    newEntity: toEntity(content),
    // a new content waits for nothing yet
    pendingApprovalId: null,
    whilePending: whilePending(id),
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
  });
  const stored = change.applied
    ? fromEntity(change.entity, { pendingApprovalId: null, lastSettledApprovalId: null })
    : { ...content, pendingApprovalId: change.approvalId };
  state.contents[id] = stored;
  await logContent(ctx, null, stored, { event: CONTENT_EVENTS.create, approvalId: change.approvalRecord.id });
  ctx.response.status = 201;
  return { id, content: stored, approval: change.approval, newStatus: change.newStatus };
}
