/** Who calls: identities, identity sources, and the access rules methods declare. */

export type IdentityType =
  'program_management_user' | 'enduser' | 'member_otp' | 'integration_user' | 'class' | 'system' | 'anonymous';

export interface Identity {
  type: IdentityType;
  /** user id (JWT subject), API key id, or for class identities the calling instance id */
  userId?: string;
  roles?: string[];
  claims?: Record<string, unknown>;
  /** for class identities: the calling class and instance */
  classId?: string;
  instanceId?: string;
  /**
   * The tenant this identity's data access is limited to (a company, for a
   * company user); absent: not limited. Set from the token's `tenant` claim;
   * class-to-class calls, queued jobs and tasks carry the tenant of the call
   * that made them, so a class acting for a tenant-bound caller is held to the
   * same scope. See ClassOptions.tenancy for what it limits.
   */
  tenant?: string;
  /**
   * The only methods (`Class.method`) this identity may call, from a token
   * issued with `methods` (ctx.tokens.issue): any other is refused with 403
   * TOKEN_NOT_FOR_METHOD. Absent: whatever its type and roles allow.
   */
  methods?: readonly string[];
}

/** The identity types a bearer token may carry. */
export type TokenIdentityType = 'program_management_user' | 'enduser' | 'member_otp';

/**
 * A class holding the users that sign in as one token type (ClassOptions.identitySource):
 * for every request bearing a token of `tokenType` (other than a development
 * token), the runtime calls `method` (a READ or INTERNAL of the class) as the
 * system identity on the instance named by the token's subject, with an empty
 * body, and takes the caller's roles, tenant and developer flag from its
 * answer (an IdentitySourceAnswer) instead of the token. Its answer is cached
 * per subject in each process for IDENTITY_CACHE_SECONDS.
 */
export interface IdentitySourceOptions {
  /** one of the token identity types (TokenIdentityType) */
  tokenType: IdentityType;
  method: string;
}

/** What an identity source's method answers for a subject (README "Tokens and identity sources"). */
export interface IdentitySourceAnswer {
  /** false: every token of the subject is refused (401) */
  active: boolean;
  /** role ids or names (for program_management_user: checked against the deployed roles) */
  roles: string[];
  /** the tenant the subject is limited to; absent: not limited */
  tenant?: string;
  /** the developer flag (identity.claims.developer) */
  developer?: boolean;
  /** ISO time: tokens (and refresh tokens) issued before it are refused, e.g. after a password change */
  validAfter?: string;
  /** display name (identity.claims.name), for audit records */
  name?: string;
}

/**
 * Who may call a method. Plain identity types, plus:
 *  - 'public'          no authentication needed (anonymous callers admitted)
 *  - 'class'           any class calling from a handler
 *  - 'class:<ClassId>' that class only
 * The 'system' identity (CLI, seeds, scheduled tasks raised by the platform)
 * is always admitted.
 */
export type AccessRule =
  Exclude<IdentityType, 'class' | 'system' | 'anonymous'> | 'public' | 'class' | `class:${string}`;
