/** SystemEmail error codes (spec 7.1: 11000-11099). Each name has one code and one HTTP status. */
import { errorFactory } from '../../runtime';

export const SystemEmailErrors = {
  /** subject or html is no template we store: mustache cannot parse it, it includes a partial, uses a dotted name, or (html) inserts a value unescaped */
  SYSTEM_EMAIL_INVALID_TEMPLATE: { code: 11000, status: 400 },
  /** createSystemEmailTemplate: the path names another instance than body.templateId */
  SYSTEM_EMAIL_TEMPLATE_ID_MISMATCH: { code: 11001, status: 400 },
  /** a change was requested while the template waits for an approval */
  SYSTEM_EMAIL_APPROVAL_PENDING: { code: 11002, status: 409 },
  /** updateSystemEmailTemplate that changes nothing */
  SYSTEM_EMAIL_NO_CHANGES: { code: 11003, status: 400 },
  /** updateSystemEmailTemplateStatus to the status the template has */
  SYSTEM_EMAIL_STATUS_UNCHANGED: { code: 11004, status: 409 },
  /** sendSystemEmail with an inactive template: nothing is sent */
  SYSTEM_EMAIL_TEMPLATE_INACTIVE: { code: 11005, status: 409 },
  /** sendSystemEmail names no recipient and the template has none */
  SYSTEM_EMAIL_NO_RECIPIENTS: { code: 11006, status: 400 },
  /** sendSystemEmail: a parameter is not a string (details.errors names it) */
  SYSTEM_EMAIL_INVALID_PARAMETERS: { code: 11007, status: 400 },
  /** sendSystemEmail: parameters the template uses are missing (details.missing lists them) */
  SYSTEM_EMAIL_MISSING_PARAMETERS: { code: 11008, status: 400 },
  /** listSystemEmailTemplates: bad filter or page values */
  SYSTEM_EMAIL_INVALID_QUERY: { code: 11009, status: 400 },
  /** approve: the callback is for an approval this template does not wait for */
  SYSTEM_EMAIL_APPROVAL_MISMATCH: { code: 11010, status: 409 },
  /** sendTestMessage: the caller's user has no address to send the test to */
  SYSTEM_EMAIL_NO_CALLER_ADDRESS: { code: 11011, status: 409 },
} as const;

export type SystemEmailErrorName = keyof typeof SystemEmailErrors;

export const systemEmailError = errorFactory('SystemEmail', SystemEmailErrors);
