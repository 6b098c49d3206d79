/**
 * UserNotification's rules, pure: inbox ids and who may reach them (spec 5
 * "Ownership"), the inbox's cap, item status moves (spec 3.3), the listing.
 */
import type { FieldError } from '../../runtime';
import type { ListUserNotificationsInput } from '../../schemas/UserNotification/inputs';
import { problemsText, type FieldProblem } from '../_platform/paging';
import { userNotificationError } from './errors';
import type { InboxOwner, ItemStatus, ListQuery, NotificationItem } from './types';

export type { FieldProblem };

/**
 * The newest items an inbox keeps: a new item beyond it drops the oldest
 * (whatever its status). Every write rewrites the inbox, so its size is what
 * a write costs (README "Inbox cap").
 */
export const INBOX_CAP = 500;

/** spec 8: notifications default to 10 per page (1 to 100) */
export const DEFAULT_PAGE_SIZE = 10;

const USER_ID = /^[A-Za-z0-9_.@+\-=]{1,190}$/;

/** The owner an inbox id names: `M<userId>` a member, `PM<userId>` a program management user; undefined otherwise. */
export function inboxOwner(instanceId: string): InboxOwner | undefined {
  const pm = /^PM(.+)$/.exec(instanceId);
  if (pm && USER_ID.test(pm[1])) return { type: 'program_management_user', userId: pm[1] };
  const m = /^M(.+)$/.exec(instanceId);
  if (m && USER_ID.test(m[1])) return { type: 'member', userId: m[1] };
  return undefined;
}

/** The caller as ownership sees it (the runtime identity's type and user id). */
export interface Caller {
  type: string;
  userId?: string;
}

/**
 * Spec 5 "Ownership": an enduser may touch only its own member inbox (M and its
 * id), a program management user only its own PM inbox; classes and the
 * system (which deliver the items) reach every inbox.
 */
export function mayReach(caller: Caller, owner: InboxOwner): boolean {
  switch (caller.type) {
    case 'enduser':
      return owner.type === 'member' && caller.userId === owner.userId;
    case 'program_management_user':
      return owner.type === 'program_management_user' && caller.userId === owner.userId;
    case 'class':
    case 'system':
      return true;
    default:
      return false;
  }
}

/** The inbox with `item` added, within INBOX_CAP (the oldest dropped first); `dropped`: how many went. */
export function withItem(
  items: readonly NotificationItem[],
  item: NotificationItem,
  cap = INBOX_CAP,
): { items: NotificationItem[]; dropped: number } {
  const next = [...items, item];
  const dropped = Math.max(0, next.length - cap);
  return { items: dropped ? next.slice(dropped) : next, dropped };
}

/**
 * Spec 3.3: an item's status moves. `read` sets readAt (kept when it was read
 * before); `unread` clears it; `archived` keeps it. The item itself when
 * nothing changes.
 */
export function withStatus(item: NotificationItem, status: ItemStatus, now: string): NotificationItem {
  if (item.status === status) return item;
  if (status === 'unread') {
    const { readAt: _readAt, ...rest } = item;
    return { ...rest, status };
  }
  if (status === 'read') return { ...item, status, readAt: item.readAt ?? now };
  return { ...item, status };
}

export function unreadCount(items: readonly NotificationItem[]): number {
  let n = 0;
  for (const i of items) if (i.status === 'unread') n += 1;
  return n;
}

/** One page of the inbox, newest first, optionally of one status. */
export function pageOf(
  items: readonly NotificationItem[],
  q: ListQuery,
): { notifications: NotificationItem[]; totalCount: number; page: number; limit: number; totalPages: number } {
  const matching: NotificationItem[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (!q.status || item.status === q.status) matching.push(item);
  }
  const start = (q.page - 1) * q.limit;
  return {
    notifications: matching.slice(start, start + q.limit),
    totalCount: matching.length,
    page: q.page,
    limit: q.limit,
    totalPages: Math.ceil(matching.length / q.limit),
  };
}

/** The refusal of a bad listing (or unread count) input, by its schema: 400 16103, each field and reason. */
export function invalidQuery(errors: FieldError[]) {
  return userNotificationError('INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors });
}

/** listUserNotifications' query from its validated input: status?, page (default 1), limit (default 10). */
export function listQuery(input: ListUserNotificationsInput): ListQuery {
  const query: ListQuery = { page: input.page ?? 1, limit: input.limit ?? DEFAULT_PAGE_SIZE };
  if (input.status) query.status = input.status;
  return query;
}
