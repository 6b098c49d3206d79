/** The inbox's reads: a page of it, and the unread count. */
import type { GetUnreadCountInput, ListUserNotificationsInput } from '../../../schemas/UserNotification/inputs';
import { listQuery, pageOf, unreadCount } from '../rules';
import type { UNReadCtx } from './common';

/** listUserNotifications {status?, page?, limit?} → {notifications, totalCount, page, limit, totalPages}, newest first. */
export function listUserNotifications(ctx: UNReadCtx<ListUserNotificationsInput>) {
  return pageOf(ctx.state.private.items ?? [], listQuery(ctx.request.body));
}

/** getUnreadCount → {unreadCount}. */
export function getUnreadCount(ctx: UNReadCtx<GetUnreadCountInput>) {
  return { unreadCount: unreadCount(ctx.state.private.items ?? []) };
}
