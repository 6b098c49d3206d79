/**
 * ProgramManagementUser error codes (spec 7.1: 4000-4099). Each name has one
 * code and one HTTP status; 400s name the field and the reason
 * (`details.errors: [{field, reason}]`). The OTP limits keep Otp's own codes
 * (429 6001 / 6002, classId `Otp`): they come back from Otp as they are.
 */
import { errorFactory, type FieldError } from '../../runtime';
import { problemsText } from '../_platform/paging';

export const UserErrors = {
  /** another user that is not inactive has this email */
  PM_USER_EMAIL_TAKEN: { code: 4001, status: 409 },
  /** input the schema cannot judge (a company user without companyId, an internal one with one, ...) */
  PM_USER_INVALID_INPUT: { code: 4002, status: 400 },
  /** the user waits for an approval: no other change until it is reviewed */
  PM_USER_APPROVAL_PENDING: { code: 4003, status: 409 },
  /** an approval callback for an approval the user does not wait for */
  PM_USER_APPROVAL_MISMATCH: { code: 4004, status: 409 },
  /** updateUserStatus to the status the user has, or an update that changes nothing */
  PM_USER_NO_CHANGE: { code: 4005, status: 409 },
  /** the roles given would grant permissions the caller does not hold (details.notHeld: Class.method) */
  PM_USER_PERMISSION_NOT_HELD: { code: 4006, status: 403 },
  /** only a developer makes, changes or unmakes a developer */
  PM_USER_DEVELOPER_ONLY: { code: 4007, status: 403 },
  /** a user changing its own roles, type, company, developer flag or status */
  PM_USER_SELF_EDIT: { code: 4008, status: 403 },
  /** roles that are not active roles of RoleManager (details.errors) */
  PM_USER_UNKNOWN_ROLES: { code: 4009, status: 400 },
  /** the company of a company user does not exist (details.errors) */
  PM_USER_UNKNOWN_COMPANY: { code: 4010, status: 400 },
  /** listUsers: bad filter or page values */
  PM_USER_INVALID_QUERY: { code: 4011, status: 400 },
  /** getPermissions of another user than the caller */
  PM_USER_NOT_YOURS: { code: 4012, status: 403 },
  /** login: the email and password do not match an active email/password user (one answer for every cause) */
  PM_USER_INVALID_CREDENTIALS: { code: 4013, status: 401 },
  /** checkOtp, acceptInvitation, resetPassword: the code is not valid (one answer for every cause) */
  PM_USER_INVALID_CODE: { code: 4014, status: 401 },
  /** a public sign-in operation repeated too often from one address or for one account (Retry-After) */
  PM_USER_TOO_MANY_ATTEMPTS: { code: 4015, status: 429 },
  /** the new password breaks the password policy (details.errors) */
  PM_USER_WEAK_PASSWORD: { code: 4016, status: 400 },
  /** singleSignOn: the SAML response was refused (details.reason), or names no user who signs in by SSO */
  PM_USER_SSO_REFUSED: { code: 4017, status: 401 },
  /** singleSignOn while no identity provider is configured */
  PM_USER_SSO_NOT_CONFIGURED: { code: 4018, status: 404 },
  /** a level-1 role given or taken by a caller that does not hold everything */
  PM_USER_LEVEL_NOT_HELD: { code: 4019, status: 403 },
  /** an approval callback whose change no longer applies (reported in the callback's answer, not thrown) */
  PM_USER_APPROVAL_CONFLICT: { code: 4020, status: 409 },
  /** a company user's change would leave the user outside the caller's company (internal, or another company) */
  PM_USER_OUTSIDE_COMPANY: { code: 4021, status: 403 },
  /** exportSubjectData: the subject names no back-office user */
  PM_USER_NOT_FOUND: { code: 4022, status: 404 },
  /** the user was erased (DataSubject): it takes no change, approval callback or sign-in write any more */
  PM_USER_ERASED: { code: 4023, status: 410 },
} as const;

export type UserErrorName = keyof typeof UserErrors;

export const userError = errorFactory('ProgramManagementUser', UserErrors);

/** listUsers' refusal of its input (a GET query or a POST body alike): 4011 naming each field. */
export function invalidListing(errors: FieldError[]) {
  return userError('PM_USER_INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors });
}
