/**
 * The inbox's writes: an item delivered (created with the inbox on the first
 * one), an item read, its status set, an item deleted.
 */
import { randomUUID } from 'node:crypto';
import { userNotificationError } from '../errors';
import { withItem, withStatus } from '../rules';
import type {
  AddNotificationInput,
  DeleteNotificationInput,
  MarkNotificationAsReadInput,
  UpdateNotificationStatusInput,
} from '../../../schemas/UserNotification/inputs';
import type { ItemStatus, NotificationItem, UserNotificationState } from '../types';
import { now, ownerOf, type UNCtx } from './common';

/** addNotification (classes; upsert): the new item, unread; the inbox is created on its first item. */
export function addNotification(ctx: UNCtx<AddNotificationInput>): NotificationItem {
  const owner = ownerOf(ctx);
  const s = ctx.state.private;
  if (!s.owner) {
    s.owner = owner;
    s.items = [];
    s.dropped = 0;
  }
  const body = ctx.request.body;
  const item: NotificationItem = {
    id: randomUUID(),
    userId: owner.userId,
    templateId: body.templateId,
    ...(body.subject !== undefined ? { subject: body.subject } : {}),
    content: body.content,
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    status: 'unread',
    createdAt: now(),
  };
  const next = withItem(s.items ?? [], item);
  s.items = next.items;
  s.dropped = (s.dropped ?? 0) + next.dropped;
  ctx.response.status = 201;
  return item;
}

function indexOf(s: Partial<UserNotificationState>, notificationId: string): number {
  const i = (s.items ?? []).findIndex((x) => x.id === notificationId);
  if (i < 0) {
    throw userNotificationError('NOTIFICATION_NOT_FOUND', `This inbox has no notification ${notificationId}`, {
      errors: [{ field: 'notificationId', reason: 'names no notification of this inbox' }],
    });
  }
  return i;
}

function setStatus(ctx: UNCtx<{ notificationId: string }>, status: ItemStatus): null {
  const s = ctx.state.private;
  const i = indexOf(s, ctx.request.body.notificationId);
  s.items![i] = withStatus(s.items![i], status, now());
  ctx.response.status = 204;
  return null;
}

/** markNotificationAsRead {notificationId} → 204: `read`, readAt set. */
export function markNotificationAsRead(ctx: UNCtx<MarkNotificationAsReadInput>): null {
  return setStatus(ctx, 'read');
}

/** updateNotificationStatus {notificationId, status} → 204. */
export function updateNotificationStatus(ctx: UNCtx<UpdateNotificationStatusInput>): null {
  return setStatus(ctx, ctx.request.body.status);
}

/** deleteNotification {notificationId} → 204: the item is gone. */
export function deleteNotification(ctx: UNCtx<DeleteNotificationInput>): null {
  const s = ctx.state.private;
  const i = indexOf(s, ctx.request.body.notificationId);
  s.items!.splice(i, 1);
  ctx.response.status = 204;
  return null;
}
