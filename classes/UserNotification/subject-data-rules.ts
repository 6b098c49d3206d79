/**
 * What UserNotification gives a data subject's export and erasure
 * (classes/_platform/personal-data.ts), pure: which inbox is the subject's,
 * the records its items become, and the inbox once erased. Unit-tested in
 * test/UserNotification/subject-data-rules.test.ts.
 */
import type { DeepReadonly } from '../../runtime';
import type { Subject, SubjectRecord } from '../_platform/personal-data';
import { inboxOwner } from './rules';
import type { NotificationItem } from './types';

export const CLASS_ID = 'UserNotification';
/** the kind of an inbox item in the export (one record per item) */
export const NOTIFICATION_KIND = 'notification';

/**
 * The subject's inbox id: `M<id>` for a member, `PM<id>` for a back-office
 * user. Undefined for a partner user (partner users have no inbox) and for an
 * id no inbox can have (an inbox id that would name someone else, or a lookup
 * address): there is then nothing to read.
 */
export function subjectInboxId(subject: Subject): string | undefined {
  const prefix = subject.type === 'member' ? 'M' : subject.type === 'program_management_user' ? 'PM' : undefined;
  if (prefix === undefined) return undefined;
  const inboxId = `${prefix}${subject.id}`;
  const owner = inboxOwner(inboxId);
  return owner?.type === subject.type && owner.userId === subject.id ? inboxId : undefined;
}

/**
 * One record per item of the inbox, oldest first, each as stored: an item
 * holds no secret (it is what the user was shown), so nothing is left out.
 * One record per item rather than one for the inbox, so that an archive
 * lists them as the user sees them, one notification each.
 */
export function inboxRecords(inboxId: string, items: DeepReadonly<NotificationItem[]>): SubjectRecord[] {
  return items.map((item) => ({
    store: 'inbox',
    classId: CLASS_ID,
    instanceId: inboxId,
    kind: NOTIFICATION_KIND,
    data: structuredClone(item),
  }));
}

/**
 * The inbox once its subject is erased: every item removed (each is a
 * notification shown to the person, its content personal), `removed` how
 * many. The inbox's owner (the subject's id, which names it) and its count of
 * items dropped for the cap (a number that names nothing) stay; an erased
 * inbox reads as empty to its owner.
 */
export function erasedInbox(items: DeepReadonly<NotificationItem[]>): { items: NotificationItem[]; removed: number } {
  return { items: [], removed: items.length };
}
