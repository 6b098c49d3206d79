/**
 * NotificationManager error codes. Spec 7.1 gives the class no range: 16000-16099 is ours
 * (README "Errors"). Each name has one code and one HTTP status; 400s name the field and the reason.
 */
import { errorFactory } from '../../runtime';

export const NotificationManagerErrors = {
  /** the template id is none of the catalogue's (README "Built-in templates") */
  NOTIFICATION_TEMPLATE_NOT_FOUND: { code: 16000, status: 404 },
  /** sendNotification: a parameter is not a string */
  NOTIFICATION_INVALID_PARAMETERS: { code: 16001, status: 400 },
  /** sendNotification: parameters the enabled channels use are missing (details.missing lists them) */
  NOTIFICATION_MISSING_PARAMETERS: { code: 16002, status: 400 },
  /** sendNotification: a `to` entry is no email address, phone number or inbox id */
  NOTIFICATION_INVALID_RECIPIENT: { code: 16003, status: 400 },
  /** a change was requested while the template waits for an approval */
  NOTIFICATION_APPROVAL_PENDING: { code: 16004, status: 409 },
  /** approve: the callback is for an approval this template does not wait for */
  NOTIFICATION_APPROVAL_MISMATCH: { code: 16005, status: 409 },
  /** an update that changes nothing */
  NOTIFICATION_NO_CHANGES: { code: 16006, status: 400 },
  /** a template text does not parse (mustache syntax), or uses sections/partials */
  NOTIFICATION_INVALID_TEMPLATE: { code: 16007, status: 400 },
  /** listNotificationTemplates: bad filter or page values */
  NOTIFICATION_INVALID_QUERY: { code: 16008, status: 400 },
  /** updateNotificationChannel: a field the channel does not have */
  NOTIFICATION_INVALID_CHANNEL_CONTENT: { code: 16009, status: 400 },
  /** updateNotificationTemplateStatus to the status the template has */
  NOTIFICATION_STATUS_UNCHANGED: { code: 16010, status: 409 },
  /** sendNotification: a rendered message is longer than its port takes (or an SMS or in-app text is empty) */
  NOTIFICATION_MESSAGE_TOO_LONG: { code: 16011, status: 400 },
  /** sendTestMessage: the caller's user has no address to send the test to */
  NOTIFICATION_NO_CALLER_ADDRESS: { code: 16012, status: 409 },
} as const;

export type NotificationManagerErrorName = keyof typeof NotificationManagerErrors;

export const notificationError = errorFactory('NotificationManager', NotificationManagerErrors);
