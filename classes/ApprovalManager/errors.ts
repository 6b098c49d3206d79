/** ApprovalManager error codes (spec 7.1: 8000-8099). Each name has one code and one HTTP status. */
import { errorFactory, type FieldError } from '../../runtime';
import { problemsText } from '../_platform/paging';

export const ApprovalErrors = {
  /** reviewApproval on a record that is already approved or rejected */
  APPROVAL_NOT_PENDING: { code: 8000, status: 409 },
  /** the reviewer holds none of the record's approver roles as an active role now (and is no developer) */
  APPROVER_NOT_ELIGIBLE: { code: 8001, status: 403 },
  /** the approve/reject callback of the originating class could not be queued; nothing was committed */
  APPROVAL_CALLBACK_FAILED: { code: 8002, status: 502 },
  /** the blob holding a large approval's patch is missing or unreadable */
  APPROVAL_PATCH_UNAVAILABLE: { code: 8003, status: 500 },
  /** listApprovals: bad filter or page values */
  APPROVAL_INVALID_QUERY: { code: 8004, status: 400 },
  /** a class registered callbacks that target another class */
  APPROVAL_CALLBACK_CLASS_MISMATCH: { code: 8005, status: 403 },
  /** storing a large approval's patch failed */
  APPROVAL_PATCH_STORE_FAILED: { code: 8006, status: 500 },
  /** the maker of a change tried to approve it and its workflow rule does not say allowSelfApproval: true */
  SELF_APPROVAL_NOT_ALLOWED: { code: 8007, status: 403 },
  /** getApproval / listApprovals: no role grants the method and the call is not one an approver may make without it */
  APPROVAL_ACCESS_DENIED: { code: 8008, status: 403 },
} as const;

export type ApprovalErrorName = keyof typeof ApprovalErrors;

export const approvalError = errorFactory('ApprovalManager', ApprovalErrors);

/** listApprovals's refusal of its input (a GET query or a POST body alike): 8004 naming each field. */
export function invalidListing(errors: FieldError[]) {
  return approvalError('APPROVAL_INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors });
}
