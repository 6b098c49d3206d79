/**
 * PartnerUser error codes: 17100-17199 (the spec gives the class no range;
 * docs/error-ranges.md). Each name has one code and one HTTP status; 400s
 * name the field and the reason (`details.errors: [{field, reason}]`).
 */
import { errorFactory, type FieldError } from '../../runtime';
import { problemsText } from '../_platform/paging';

export const PartnerUserErrors = {
  /** another partner user that is not inactive has this email */
  PARTNER_USER_EMAIL_TAKEN: { code: 17101, status: 409 },
  /** input the schema cannot judge: a partner twice, a venue of a partner the user does not belong to */
  PARTNER_USER_INVALID_INPUT: { code: 17102, status: 400 },
  /** the user waits for an approval: no other change until it is reviewed */
  PARTNER_USER_APPROVAL_PENDING: { code: 17103, status: 409 },
  /** an approval callback for an approval the user does not wait for */
  PARTNER_USER_APPROVAL_MISMATCH: { code: 17104, status: 409 },
  /** a change that changes nothing (the same status, the same fields, venues all assigned already or none of them assigned) */
  PARTNER_USER_NO_CHANGE: { code: 17105, status: 409 },
  /** a partnerId that names no partner (details.errors) */
  PARTNER_USER_UNKNOWN_PARTNER: { code: 17106, status: 400 },
  /** a venueId that names no venue of the partner given with it (details.errors) */
  PARTNER_USER_UNKNOWN_VENUE: { code: 17107, status: 400 },
  /** listPartnerUsers: bad filter or page values (details.errors) */
  PARTNER_USER_INVALID_QUERY: { code: 17108, status: 400 },
  /** an approved change that no longer applies (reported in approveUser's answer, not thrown) */
  PARTNER_USER_APPROVAL_CONFLICT: { code: 17109, status: 409 },
  /** exportSubjectData: the subject names no partner user */
  PARTNER_USER_NOT_FOUND: { code: 17110, status: 404 },
  /** the user was erased (DataSubject): it takes no change or approval callback any more */
  PARTNER_USER_ERASED: { code: 17111, status: 410 },
} as const;

export type PartnerUserErrorName = keyof typeof PartnerUserErrors;

export const partnerUserError = errorFactory('PartnerUser', PartnerUserErrors);

/** listPartnerUsers' refusal of its input (a GET query or a POST body alike): 17108 naming each field. */
export function invalidListing(errors: FieldError[]) {
  return partnerUserError('PARTNER_USER_INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors });
}
