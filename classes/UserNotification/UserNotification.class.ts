/**
 * UserNotification (spec 2.8, 3.3, 4.5, 5): one inbox per user, instance id
 * `M<userId>` for members and `PM<userId>` for program management users,
 * created on its first notification. Private state: its owner and its items
 * (types.ts), at most INBOX_CAP of them (rules.ts). An enduser reaches only
 * its own M inbox, a program management user only its own PM inbox.
 *
 * This file declares the methods and delegates to use-cases/; README.md has
 * the operations, choices and error codes.
 */
import { ActorClass, client, Internal, Read, Static, Write, type StaticCtx } from '../../runtime';
import { SUBJECT_DATA_ACCESS, type SubjectData, type SubjectErasure } from '../_platform/personal-data';
import { COMPANY_RECORDS } from '../_platform/scope';
import type {
  AddNotificationInput,
  DeleteNotificationInput,
  EraseInboxInput,
  EraseSubjectDataInput,
  ExportSubjectDataInput,
  GetUnreadCountInput,
  ListUserNotificationsInput,
  MarkNotificationAsReadInput,
  ReadInboxInput,
  UpdateNotificationStatusInput,
} from '../../schemas/UserNotification/inputs';
import { invalidQuery } from './rules';
import type { UserNotificationClassState } from './types';
import type { UNCtx, UNReadCtx } from './use-cases/common';
import * as items from './use-cases/items';
import * as reading from './use-cases/read';
import * as subjectData from './use-cases/subject-data';
import { inboxGuard } from './use-cases/common';

/**
 * The user-facing methods: members and back-office users on their own inbox.
 * Ownership replaces the role check (every back-office user reads its own
 * inbox; no role grants another's), judged from the inbox id before the inbox
 * is looked up. An own inbox that has had no item yet reads as empty, and a
 * change of an item in it answers that the item does not exist (upsert: the
 * refused change creates nothing).
 */
const OWNER = { access: ['program_management_user', 'enduser'] as const, skipRoleCheck: true, guard: inboxGuard };
// a bad query and a bad body get the class's 16103 alike
const OWNER_READ = { ...OWNER, emptyWhenMissing: true, onValidationError: invalidQuery };
const OWNER_WRITE = { ...OWNER, upsert: true };

@ActorClass<UserNotificationClassState>({
  id: 'UserNotification',
  description: "Users' notification inboxes (spec 4.5)",
  // an inbox is its user's alone (spec 5 "Ownership", checked by every handler), which is narrower
  // than a company: company users reach their own inbox, never another's
  tenancy: COMPANY_RECORDS,
})
export class UserNotification {
  /** {templateId, subject?, content, metadata?} → the created item (201); the inbox is created on its first item. */
  @Write({ access: ['class'], upsert: true })
  addNotification(ctx: UNCtx<AddNotificationInput>) {
    return items.addNotification(ctx);
  }

  /** {notificationId} → 204. */
  @Write(OWNER_WRITE)
  markNotificationAsRead(ctx: UNCtx<MarkNotificationAsReadInput>) {
    return items.markNotificationAsRead(ctx);
  }

  /** {notificationId, status: unread|read|archived} → 204. */
  @Write(OWNER_WRITE)
  updateNotificationStatus(ctx: UNCtx<UpdateNotificationStatusInput>) {
    return items.updateNotificationStatus(ctx);
  }

  /** {notificationId} → 204. */
  @Write(OWNER_WRITE)
  deleteNotification(ctx: UNCtx<DeleteNotificationInput>) {
    return items.deleteNotification(ctx);
  }

  /** {status?, page?, limit? (1-100, default 10)} (POST body or GET query) → {notifications, totalCount, page, limit, totalPages}. */
  @Read(OWNER_READ)
  listUserNotifications(ctx: UNReadCtx<ListUserNotificationsInput>) {
    return reading.listUserNotifications(ctx);
  }

  /** → {unreadCount}. */
  @Read(OWNER_READ)
  getUnreadCount(ctx: UNReadCtx<GetUnreadCountInput>) {
    return reading.getUnreadCount(ctx);
  }

  /**
   * {subject} → the subject's inbox for DataSubject's export, one record per item (store `inbox`); nothing for a
   * partner user. Read through readInbox on the inbox: a STATIC has no instance state.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS] })
  exportSubjectData(ctx: StaticCtx<ExportSubjectDataInput>): Promise<SubjectData> {
    return subjectData.exportSubjectData(ctx, client<typeof UserNotification>(ctx, 'UserNotification'));
  }

  /** → {items}: the inbox as stored, for exportSubjectData only (an inbox never written has none). */
  @Read({ access: ['class:UserNotification'], emptyWhenMissing: true })
  readInbox(ctx: UNReadCtx<ReadInboxInput>) {
    return subjectData.readInbox(ctx);
  }

  /**
   * {subject, subjectCompanyId?, erasureId} → {records: items removed, files: 0}: the subject's inbox emptied for
   * DataSubject's erasure; zeros for a partner user, an inbox never written, or one erased already. Written
   * through eraseInbox: a STATIC has no instance state.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS] })
  eraseSubjectData(ctx: StaticCtx<EraseSubjectDataInput>): Promise<SubjectErasure> {
    return subjectData.eraseSubjectData(ctx, client<typeof UserNotification>(ctx, 'UserNotification'));
  }

  /** → {removed}: every item of the inbox removed, for eraseSubjectData only. */
  @Internal({ access: ['class:UserNotification'] })
  eraseInbox(ctx: UNCtx<EraseInboxInput>) {
    return subjectData.eraseInbox(ctx);
  }
}
