/**
 * updateContent (content_update): every field optional but the id (spec
 * 4.5). A new key must be of the content's group (or of the group given with
 * it) and comes with its fields; with the key kept, the given fields are
 * merged over the stored ones (a value replaces, null removes; images key by
 * key). The window is checked as it will be.
 */
import { refuseWhilePending } from '../../_platform/gated-change';
import { contentError } from '../errors';
import { applyContentUpdate, CONTENT_EVENTS, namedUpdates, sameContent, windowProblems } from '../rules';
import { CATALOGUE } from '../schema-rules';
import type { UpdateContentInput } from '../../../schemas/ContentManager/inputs';
import { changeContent } from './change';
import { fieldError, now, requireContent, whilePending, writable, type ContentCtx } from './common';
import { checkedFields } from './fields';
import { storeImages } from './images';

export async function updateContent(ctx: ContentCtx<UpdateContentInput>) {
  const state = writable(ctx);
  const input = ctx.request.body;
  const old = requireContent(state.contents, input.id);
  // a waiting content is refused before its input is judged (409 18006 whatever the update)
  refuseWhilePending(old.pendingApprovalId, whilePending(old.id));
  const named = namedUpdates(input);
  if (!named.length)
    throw contentError('CONTENT_EMPTY_UPDATE', 'The update names no field to change', {
      errors: [{ field: '(body)', reason: 'names no field to change' }],
    });
  const group = input.contentGroupKey ?? old.contentGroupKey;
  const key = input.contentKey ?? old.contentKey;
  if (input.contentGroupKey !== undefined || input.contentKey !== undefined) {
    const problems = CATALOGUE.keyProblems(group, key);
    if (problems.length) throw fieldError('CONTENT_INVALID_KEY', problems, 'Invalid content key');
  }
  const keyChanged = key !== old.contentKey;
  if (keyChanged && input.fields === undefined) {
    throw fieldError('CONTENT_INVALID_FIELDS', [
      { field: 'fields', reason: `is required when contentKey changes (the fields of ${key})` },
    ]);
  }
  const dates = windowProblems(
    input.startDate !== undefined ? input.startDate : old.startDate,
    input.endDate !== undefined ? input.endDate : old.endDate,
  );
  if (dates.length) throw fieldError('CONTENT_INVALID_DATES', dates, 'Invalid window');
  let fields = old.fields;
  if (input.fields !== undefined) {
    const checked = await checkedFields(ctx, key, input.fields, keyChanged ? undefined : old.fields);
    const uploads = checked.images.some((i) => i.value.kind === 'upload');
    // nothing to store when the update changes nothing: refused before any file is written
    if (!uploads && sameContent(applyContentUpdate(old, input, checked.fields, old.updatedAt), old))
      throw unchanged(old.id);
    fields = await storeImages(ctx, old.id, checked.fields, checked.images);
  }
  const requested = applyContentUpdate(old, input, fields, now());
  if (sameContent(requested, old)) throw unchanged(old.id);
  return changeContent(ctx, state, CONTENT_EVENTS.update, old, requested);
}

function unchanged(id: string) {
  return contentError('CONTENT_EMPTY_UPDATE', `The update changes nothing on content '${id}'`, {
    errors: [{ field: '(body)', reason: 'changes nothing' }],
  });
}
