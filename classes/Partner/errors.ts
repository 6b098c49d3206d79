/**
 * Partner error codes: 17000-17099 (the spec gives the class no range;
 * docs/error-ranges.md), plus 14008 for an archived document asked of
 * downloadDocument, the code spec 7.1 gives Partner (it lies in Workflow's
 * range; only Partner answers it with classId `Partner`). Each name has one
 * code and one HTTP status; 400s name the field and the reason
 * (`details.errors: [{field, reason}]`).
 */
import { errorFactory, type FieldError } from '../../runtime';
import { problemsText } from '../_platform/paging';

export const PartnerErrors = {
  /** input the schema cannot judge (a platform twice, a logo that is no image, a documentId missing) */
  INVALID_INPUT: { code: 17000, status: 400 },
  /** contractStartDate is not before contractEndDate, or a date is not an ISO 8601 date or date-time */
  PARTNER_INVALID_CONTRACT_DATES: { code: 17001, status: 400 },
  /** init: the path id cannot name a partner (letters, digits, `_`, `-`; it names the partner's files too) */
  PARTNER_INVALID_ID: { code: 17002, status: 400 },
  /** the partner waits for an approval: no other change of the partner until it is reviewed */
  PARTNER_APPROVAL_PENDING: { code: 17003, status: 409 },
  /** the venue waits for an approval: no other change of that venue until it is reviewed */
  VENUE_APPROVAL_PENDING: { code: 17004, status: 409 },
  /** a status change to the status the partner or venue has */
  PARTNER_STATUS_UNCHANGED: { code: 17005, status: 409 },
  /** an update that changes nothing */
  PARTNER_NO_CHANGES: { code: 17006, status: 400 },
  /** venueId names no venue of this partner */
  VENUE_NOT_FOUND: { code: 17007, status: 404 },
  /** createVenue: the id is taken (by a venue of this or another partner) */
  VENUE_ID_TAKEN: { code: 17008, status: 409 },
  /** a client sent the venue's `type`, which the service manages */
  VENUE_TYPE_NOT_SETTABLE: { code: 17009, status: 400 },
  /** a listing's bad filter or page values */
  INVALID_QUERY: { code: 17010, status: 400 },
  /** an approval callback for an approval neither the partner nor the venue waits for */
  PARTNER_APPROVAL_MISMATCH: { code: 17011, status: 409 },
  /** an approved change that no longer applies (reported in approvePartner's answer, not thrown) */
  PARTNER_APPROVAL_CONFLICT: { code: 17012, status: 409 },
  /** a logo or document the file store refused (type, size, content) */
  INVALID_FILE: { code: 17013, status: 400 },
  /** the file store failed */
  FILE_STORE_FAILED: { code: 17014, status: 500 },
  /** documentId names no document of this partner */
  DOCUMENT_NOT_FOUND: { code: 17015, status: 404 },
  /** archive of an archived document, unarchive of an active one */
  DOCUMENT_STATUS_CONFLICT: { code: 17016, status: 409 },
  /** getLog: no audit entry of the Partner class has this id */
  PARTNER_LOG_NOT_FOUND: { code: 17017, status: 404 },
  /** getLogEntries: `from` after `to` */
  PARTNER_INVALID_DATE_RANGE: { code: 17018, status: 400 },
  /** downloadDocument of an archived document (spec 7.1: 14008) */
  DOCUMENT_ARCHIVED: { code: 14008, status: 400 },
} as const;

export type PartnerErrorName = keyof typeof PartnerErrors;

export const partnerError = errorFactory('Partner', PartnerErrors);

/** a listing's refusal of its input (a GET query or a POST body alike): 17010 naming each field */
export function invalidListing(errors: FieldError[]) {
  return partnerError('INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors });
}

/** the audit trail's refusal of its input (getLogEntries' filters, getLog's logId): 17010 naming each field */
export function invalidLogQuery(errors: FieldError[]) {
  return partnerError('INVALID_QUERY', `Invalid query: ${problemsText(errors)}`, { errors });
}
