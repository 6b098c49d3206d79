/** UserNotification records (spec 2.8 "UserNotification item", 3.3). */
import type { StateOf } from '../../runtime';

export const ITEM_STATUSES = ['unread', 'read', 'archived'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** Spec 2.8: id, userId, templateId, subject?, content, metadata?, status, createdAt, readAt?. */
export interface NotificationItem {
  id: string;
  userId: string;
  templateId: string;
  subject?: string;
  content: string;
  metadata?: Record<string, unknown>;
  status: ItemStatus;
  createdAt: string;
  readAt?: string;
}

/** Whose inbox: `M<userId>` a member's, `PM<userId>` a program management user's. */
export type InboxOwnerType = 'member' | 'program_management_user';

export interface InboxOwner {
  type: InboxOwnerType;
  userId: string;
}

export interface UserNotificationState {
  owner: InboxOwner;
  /** oldest first; at most INBOX_CAP items (rules.ts) */
  items: NotificationItem[];
  /** items dropped to keep the inbox within its cap, ever */
  dropped: number;
}

/** The class's state (`@ActorClass<UserNotificationClassState>`); empty until the first notification. */
export type UserNotificationClassState = StateOf<Partial<UserNotificationState>>;

export interface ListQuery {
  status?: ItemStatus;
  page: number;
  limit: number;
}
