/** The inbox's reads: a page of it, and the unread count. */
import { listingInput, problemsText } from '../../_platform/paging';
import { userNotificationError } from '../errors';
import { pageOf, parseListQuery, unreadCount } from '../rules';
import type { UNReadCtx } from './common';

/** listUserNotifications {status?, page?, limit?} → {notifications, totalCount, page, limit, totalPages}, newest first. */
export function listUserNotifications(ctx: UNReadCtx<unknown>) {
  const parsed = parseListQuery(listingInput(ctx));
  if (!parsed.ok) {
    throw userNotificationError('INVALID_QUERY', `Invalid listing: ${problemsText(parsed.problems)}`, {
      errors: parsed.problems,
    });
  }
  return pageOf(ctx.state.private.items ?? [], parsed.query);
}

/** getUnreadCount → {unreadCount}. */
export function getUnreadCount(ctx: UNReadCtx<unknown>) {
  return { unreadCount: unreadCount(ctx.state.private.items ?? []) };
}
