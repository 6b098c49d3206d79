/** updateContentStatus (content_status_update): active or inactive (spec 3.3). */
import { refuseWhilePending } from '../../_platform/gated-change';
import { contentError } from '../errors';
import { CONTENT_EVENTS, statusMove } from '../rules';
import type { UpdateContentStatusInput } from '../../../schemas/ContentManager/inputs';
import { changeContent } from './change';
import { now, requireContent, whilePending, writable, type ContentCtx } from './common';

export async function updateContentStatus(ctx: ContentCtx<UpdateContentStatusInput>) {
  const state = writable(ctx);
  const { id, status } = ctx.request.body;
  const old = requireContent(state.contents, id);
  // a waiting content is refused before the status is judged (409 18006 whatever the target)
  refuseWhilePending(old.pendingApprovalId, whilePending(old.id));
  const move = statusMove(old.status, status);
  if (!move.ok) {
    throw move.kind === 'invalid'
      ? contentError('CONTENT_INVALID_STATUS', `status ${move.reason}`, {
          errors: [{ field: 'status', reason: move.reason }],
        })
      : contentError('CONTENT_STATUS_UNCHANGED', `Content '${id}': ${move.reason}`, { status });
  }
  return changeContent(
    ctx,
    state,
    CONTENT_EVENTS.status,
    old,
    { ...old, status: move.to, updatedAt: now() },
    { fromStatus: old.status, toStatus: move.to },
  );
}
