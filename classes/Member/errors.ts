import { ActorError, errorFactory } from '../../runtime';

/**
 * Member's own error codes (spec 7.1: 5000-5099), raised through the runtime's
 * errorFactory. Each has one HTTP status. The HR integration's codes below are
 * the external contract's, with its own error bodies.
 */
export const MemberErrors = {
  /** no member with that id (inside flows that look members up themselves) */
  MEMBER_NOT_FOUND: { code: 5000, status: 404 },
  /** the status machine (spec 3.1) has no such move */
  INVALID_STATUS_TRANSITION: { code: 5001, status: 400 },
  /** updateMemberStatus to one of the four system-only statuses */
  SYSTEM_ONLY_STATUS: { code: 5002, status: 400 },
  /** a change waits for approval: no other change until it is reviewed */
  APPROVAL_PENDING: { code: 5003, status: 409 },
  /** an approval callback for an approval this member does not wait for */
  APPROVAL_MISMATCH: { code: 5004, status: 409 },
  /** the member's company (or the requested one) does not exist */
  COMPANY_NOT_FOUND: { code: 5006, status: 404 },
  /** member type or sub type not eligible for the member's company */
  NOT_ELIGIBLE_FOR_COMPANY: { code: 5007, status: 400 },
  /** member type unknown or not active */
  INVALID_MEMBER_TYPE: { code: 5008, status: 400 },
  /** member sub type unknown or not active */
  INVALID_MEMBER_SUB_TYPE: { code: 5009, status: 400 },
  /** page/limit of a listing out of range */
  INVALID_QUERY: { code: 5005, status: 400 },
  /** the company's dependant limit for that sub type is reached */
  FAMILY_MEMBER_LIMIT: { code: 5010, status: 400 },
  /** no family member with that id */
  FAMILY_MEMBER_NOT_FOUND: { code: 5011, status: 404 },
  /** the tier does not exist */
  TIER_NOT_FOUND: { code: 5012, status: 404 },
  /** the tier is not active */
  TIER_NOT_ACTIVE: { code: 5013, status: 400 },
  /** no active eligibility rule of the tier admits the member */
  NOT_ELIGIBLE_FOR_TIER: { code: 5014, status: 400 },
  /** the payment type is not allowed (company-paid needs a company-paid rule) */
  PAYMENT_TYPE_NOT_ALLOWED: { code: 5015, status: 400 },
  /** the member already has an active membership of that tier */
  DUPLICATE_MEMBERSHIP: { code: 5016, status: 409 },
  /** uploadMyIdPhoto outside `active` / `pending_id_photo` */
  PHOTO_UPLOAD_NOT_ALLOWED: { code: 5017, status: 403 },
  /** no document with that id */
  DOCUMENT_NOT_FOUND: { code: 5018, status: 404 },
  /** downloadDocument on an archived document */
  DOCUMENT_ARCHIVED: { code: 5019, status: 400 },
  /** archive an archived document, or unarchive an active one */
  DOCUMENT_STATUS_CONFLICT: { code: 5020, status: 409 },
  /** an enduser touching another member */
  NOT_YOUR_MEMBER: { code: 5021, status: 403 },
  /** the email belongs to another member */
  EMAIL_TAKEN: { code: 5022, status: 409 },
  /** the staff id belongs to another member */
  STAFF_ID_TAKEN: { code: 5023, status: 409 },
  /** the HR system did not answer usably (timeout, 5xx, bad body) */
  HR_UNAVAILABLE: { code: 5024, status: 502 },
  /** the HR system knows no employee with that email */
  HR_EMPLOYEE_NOT_FOUND: { code: 5025, status: 404 },
  /** the employee is already a member */
  ALREADY_REGISTERED: { code: 5026, status: 409 },
  /** a file was refused (type, size, content) */
  INVALID_FILE: { code: 5027, status: 400 },
  /** a member's company cannot change through this operation */
  COMPANY_CHANGE_NOT_ALLOWED: { code: 5029, status: 400 },
  /** the file store failed */
  FILE_STORE_FAILED: { code: 5030, status: 500 },
  /** the HR record cannot become a member (unknown member type, company) */
  HR_RECORD_REJECTED: { code: 5031, status: 422 },
  /** a dependant cannot have family members of its own */
  NOT_A_PRIMARY_MEMBER: { code: 5032, status: 400 },
  /** input the class checks itself (a field the JSON Schema cannot require, e.g. a GET query's documentId) */
  INVALID_INPUT: { code: 5028, status: 400 },
  /** the membership period does not fit the tier (startDate before the tier starts or after it ends) */
  INVALID_MEMBERSHIP_PERIOD: { code: 5033, status: 400 },
  /** members are created in, or moved to, active companies only (not one pending its approval, nor an inactive one) */
  COMPANY_NOT_ACTIVE: { code: 5034, status: 400 },
  /** a public sign-in operation repeated too often from one address or for one account (details.retryAfterSeconds) */
  TOO_MANY_ATTEMPTS: { code: 5035, status: 429 },
  /** login: the email and password do not sign a member in (one answer for an unknown email, a wrong password, a member who may not) */
  INVALID_CREDENTIALS: { code: 5036, status: 401 },
  /** a sign-in code, invitation or password reset token that is not valid (wrong, spent, expired, superseded, not this member's) */
  INVALID_CODE: { code: 5037, status: 401 },
  /** a new password the policy refuses (details.errors: [{field, reason}]) */
  WEAK_PASSWORD: { code: 5038, status: 400 },
  /** changePassword: currentPassword is not the member's password */
  WRONG_CURRENT_PASSWORD: { code: 5039, status: 400 },
  /** singleSignOn while no identity provider is configured */
  SSO_NOT_CONFIGURED: { code: 5040, status: 404 },
  /** singleSignOn: the SAML response, or the member it names, does not sign in (details.reason) */
  SSO_REFUSED: { code: 5041, status: 401 },
  /** changePassword for a member who signs in without a password (SSO, not yet invited) */
  NO_PASSWORD: { code: 5042, status: 400 },
  /** registerFromHr: another call is registering the same employee (details.employeeId, retryAfterSeconds: when a crashed call's hold lapses) */
  REGISTRATION_IN_PROGRESS: { code: 5043, status: 409 },
  /** no membership with that id on this member */
  MEMBERSHIP_NOT_FOUND: { code: 5044, status: 404 },
  /** the membership's status does not allow the move (suspend a suspended one, reinstate an active one, renew a suspended one) */
  INVALID_MEMBERSHIP_TRANSITION: { code: 5045, status: 400 },
  /** this caller may not renew this membership (a member renews only self-paid ones; automatic renewal as the company says) */
  RENEWAL_NOT_ALLOWED: { code: 5046, status: 400 },
  /** every place under the quota of the eligibility rule(s) the member satisfies is taken (Tier README "Quotas") */
  QUOTA_FULL: { code: 5047, status: 409 },
  /** the member was erased at its request (README "Erasure"): its record is read as it is, never written again */
  MEMBER_ERASED: { code: 5048, status: 410 },
  /** a member would be created for a person erased at their request, and ERASED_MEMBERS_RETURN is `refuse` */
  MEMBER_ERASED_PERSON: { code: 5049, status: 409 },
} as const;

export type MemberErrorName = keyof typeof MemberErrors;

export const memberError: (name: MemberErrorName, message: string, details?: unknown) => ActorError = errorFactory(
  'Member',
  MemberErrors,
);

/**
 * A Member error about one input field: `details.errors: [{field, reason}]`
 * (the shape of the runtime's schema validation answers), plus any other
 * details.
 */
export function fieldError(
  name: MemberErrorName,
  field: string,
  message: string,
  details?: Record<string, unknown>,
): ActorError {
  return memberError(name, message, { ...(details ?? {}), errors: [{ field, reason: message }] });
}

/**
 * The HR integration codes (spec 7.2 and 4.1). These numbers are the external
 * contract's, not Member's range: the HR system is built against them.
 */
export const HrErrors = {
  INTERNAL: { code: 10000, status: 500 },
  VALIDATION: { code: 10001, status: 400 },
  INVALID_FILE_EXTENSION: { code: 10005, status: 400 },
  /** status depends on the inner error: see photoUploadFailed */
  EMPLOYEE_PHOTO_UPLOAD_FAILED: { code: 10018, status: 500 },
  INVALID_API_KEY: { code: 10072, status: 401 },
  EMPLOYEE_NOT_FOUND: { code: 10073, status: 404 },
  DEPENDANT_FORBIDDEN: { code: 10074, status: 403 },
  PRIMARY_MEMBER_NOT_FOUND: { code: 10075, status: 404 },
  COMPANY_NOT_MAPPED: { code: 11016, status: 404 },
  COMPANY_GROUP_MISMATCH: { code: 11017, status: 409 },
  /**
   * Beyond spec 7.2: 4.3 would create a dependant erased at their request, and
   * ERASED_MEMBERS_RETURN is `refuse` (docs/hr-integration.md). 10076 is the
   * quarantine's held push already, so the next number.
   */
  ERASED_PERSON: { code: 10077, status: 409 },
} as const;

export type HrErrorName = keyof typeof HrErrors;

/** field name → messages (spec 7.2 `details.errors`) */
export type FieldMessages = Record<string, string[]>;

/**
 * An error of the HR endpoints 4.2/4.3 (spec 7.2):
 * `{success: false, error: {code, message}, details?: {errors: {field: [messages]}}}`.
 */
export function hrError(name: HrErrorName, message: string, errors?: FieldMessages, status?: number): ActorError {
  const def = HrErrors[name];
  const body: Record<string, unknown> = { success: false, error: { code: def.code, message } };
  if (errors && Object.keys(errors).length) body.details = { errors };
  return new ActorError(status ?? def.status, def.code, message, { body });
}

/** An error of the photo endpoint 4.1: `{code, message, details?}`. */
export function photoError(
  status: number,
  code: number,
  message: string,
  details?: Record<string, unknown>,
): ActorError {
  const body: Record<string, unknown> = { code, message };
  if (details !== undefined) body.details = details;
  return new ActorError(status, code, message, { body });
}
