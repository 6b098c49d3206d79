/**
 * UserNotification error codes. Spec 7.1 gives the class no range: 16100-16199 is ours
 * (README "Errors"). Each name has one code and one HTTP status; 400s name the field and the reason.
 */
import { errorFactory } from '../../runtime';

export const UserNotificationErrors = {
  /** spec 5 "Ownership": an enduser reaches only M<its id>, a program management user only PM<its id> */
  NOT_YOUR_INBOX: { code: 16100, status: 403 },
  /** notificationId names no item of this inbox */
  NOTIFICATION_NOT_FOUND: { code: 16101, status: 404 },
  /** the instance id is no inbox id (M<userId> or PM<userId>) */
  INVALID_INBOX_ID: { code: 16102, status: 400 },
  /** listUserNotifications: bad status or page values */
  INVALID_QUERY: { code: 16103, status: 400 },
} as const;

export type UserNotificationErrorName = keyof typeof UserNotificationErrors;

export const userNotificationError = errorFactory('UserNotification', UserNotificationErrors);
