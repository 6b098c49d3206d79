/** RoleManager error codes (spec 7.1: 9000-9099). Each name has one code and one HTTP status. */
import { errorFactory, type FieldError } from '../../runtime';
import { problemsText } from '../_platform/paging';

export const RoleErrors = {
  /** no role with that id */
  ROLE_NOT_FOUND: { code: 9000, status: 404 },
  /** another role already has this name (names compare case-insensitively) */
  ROLE_NAME_TAKEN: { code: 9001, status: 409 },
  /** permissions name classes or methods a program management user cannot call (details.errors lists them) */
  ROLE_INVALID_PERMISSIONS: { code: 9002, status: 400 },
  /** the role waits for an approval: no other change until it is reviewed */
  ROLE_PENDING_APPROVAL: { code: 9003, status: 409 },
  /** the built-in super role cannot be changed or deactivated */
  ROLE_BUILT_IN: { code: 9004, status: 409 },
  /** an approval callback for an approval the role does not wait for */
  ROLE_APPROVAL_MISMATCH: { code: 9005, status: 409 },
  /** the approved change no longer applies to the role */
  ROLE_APPROVAL_CONFLICT: { code: 9006, status: 409 },
  /** listRoles: bad filter or page values */
  ROLE_INVALID_QUERY: { code: 9007, status: 400 },
  /** updateStatus to the status the role already has */
  ROLE_STATUS_UNCHANGED: { code: 9008, status: 409 },
  /** setState: the given state is not valid */
  ROLE_INVALID_STATE: { code: 9009, status: 400 },
  /** getRole without an id (or with input its schema refuses) */
  ROLE_INVALID_INPUT: { code: 9010, status: 400 },
  /** the role snapshot could not be published (the job is retried) */
  ROLE_DEPLOYMENT_FAILED: { code: 9011, status: 502, retryable: true },
  /** the role would grant permissions the acting user does not hold (details.notHeld lists them as Class.method) */
  ROLE_PERMISSION_NOT_HELD: { code: 9012, status: 403 },
  /** updateRole / updateStatus of a role the acting user holds (or a rename to a role name it holds) */
  ROLE_SELF_EDIT: { code: 9013, status: 403 },
  /** a level-1 role created, changed or (de)activated by a user who holds no level-1 role */
  ROLE_LEVEL_NOT_HELD: { code: 9014, status: 403 },
  /** a level-1 role change that would not wait for an approval with approvers (rule without approvers, or a developer's automatic approval) */
  ROLE_LEVEL1_NEEDS_APPROVAL: { code: 9015, status: 403 },
  /** setState by anyone but the system identity or a developer */
  ROLE_DEVELOPER_ONLY: { code: 9016, status: 403 },
} as const;

export type RoleErrorName = keyof typeof RoleErrors;

export const roleError = errorFactory('RoleManager', RoleErrors);

/** listRoles's refusal of its input (a GET query or a POST body alike): 9007 naming each field. */
export function invalidListing(errors: FieldError[]) {
  return roleError('ROLE_INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors });
}

/** getRole's refusal of its input (no id, or not a string): 9010 naming each field. */
export function invalidInput(errors: FieldError[]) {
  return roleError('ROLE_INVALID_INPUT', problemsText(errors), { errors });
}
