/**
 * ProgramManagementUser (spec 2.7, 3.3, 4.5, 5, 7.1 codes 4000-4099): the
 * back-office users. One actor instance per user (instance id = user id, a
 * UUID), not the spec's singleton: a sign-in then holds no instance that
 * every other sign-in waits for, and passwords are hashed in STATIC handlers,
 * outside any instance (README "Layout"). A user is found by email through
 * the `email` lookup key (lower-cased) and listed from the document store
 * (collection `programManagementUsers`).
 *
 * The class is the identity source of `program_management_user` tokens: the
 * runtime takes a signed-in user's roles, company (tenant), developer flag
 * and status from resolveIdentity, not from the token.
 *
 * This file declares the methods and delegates: each body lives in
 * use-cases/<use case>.ts, the rules in rules.ts. README.md has the choices.
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, client, Init, Internal, QueuedWrite, Read, Static, Write, type StaticCtx } from '../../runtime';
import { SUBJECT_DATA_ACCESS, type SubjectData, type SubjectErasure } from '../_platform/personal-data';
import { ownedByCompany } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { LIST_USERS, userDocument, USERS_COLLECTION } from './rules';
import { userSettingsFrom, type UserSettings } from './settings';
import type { ProgramManagementUserClassState } from './types';
import type {
  AcceptInvitationInput,
  CheckOtpInput,
  CompleteInvitationInput,
  CreateUserInput,
  DiscoverAuthMethodInput,
  EraseSubjectDataInput,
  EraseUserInput,
  ExportSubjectDataInput,
  ListUsersInput,
  LoginInput,
  RecordSignInInput,
  ResendOtpInput,
  ResetPasswordInput,
  SendPasswordResetEmailInput,
  SetPasswordInput,
  SingleSignOnInput,
  UpdateUserInput,
  UpdateUserStatusInput,
  VerifyCredentialsInput,
} from '../../schemas/ProgramManagementUser/inputs';
import { invalidListing } from './errors';
import * as approval from './use-cases/approval';
import * as change from './use-cases/change';
import type { UserCtx, UserReadCtx, UserStaticCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as listing from './use-cases/listing';
import * as password from './use-cases/password';
import * as read from './use-cases/read';
import * as session from './use-cases/session';
import * as signIn from './use-cases/sign-in';
import * as sso from './use-cases/sso';
import * as subjectData from './use-cases/subject-data';

const PM = 'program_management_user';
const PUBLIC = 'public';
/** the class's own sign-in steps */
const SELF = 'class:ProgramManagementUser';

@ActorClass<ProgramManagementUserClassState>({
  id: 'ProgramManagementUser',
  description: 'Back-office users and their sign-in (spec 2.7, 4.5)',
  // a company user belongs to its company: company users reach their company's users only; internal users belong to none
  tenancy: ownedByCompany<ProgramManagementUserClassState>((s) => s.private.user?.companyId),
  identitySource: { tokenType: PM, method: 'resolveIdentity' },
  sensitiveFields: ['password', 'passwordHash', 'otp', 'SAMLResponse', 'token', 'refreshToken', 'accessToken'],
  stream: {
    collections: {
      [USERS_COLLECTION]: {
        tenantField: 'companyId',
        listings: [LIST_USERS],
      },
    },
    toDocuments: (state, id) =>
      state.private.user
        ? [
            {
              collection: USERS_COLLECTION,
              id,
              doc: userDocument(state.private.user, state.private.pendingApproval ?? null),
            },
          ]
        : [],
  },
})
export class ProgramManagementUser {
  readonly settings: UserSettings;

  constructor(env: NodeJS.ProcessEnv = {}) {
    this.settings = userSettingsFrom(env);
  }

  // ---------------------------------------------------------------- users

  /** A new user (`pending`) in a new instance; user_create, then the invitation (201). */
  @Init({ access: [PM], instanceId: () => randomUUID() })
  createUser(ctx: UserCtx<CreateUserInput>) {
    return create.createUser(ctx, this.settings);
  }

  /** Name, email, type and company, login method, roles, developer flag (user_update). */
  @Write({ access: [PM] })
  updateUser(ctx: UserCtx<UpdateUserInput>) {
    return change.updateUser(ctx);
  }

  /** pending, active or inactive (user_status_update); activation checks the email is free. */
  @Write({ access: [PM] })
  updateUserStatus(ctx: UserCtx<UpdateUserStatusInput>) {
    return change.updateUserStatus(ctx);
  }

  @Read({ access: [PM, 'class'] })
  getUser(ctx: UserReadCtx) {
    return read.getUser(ctx);
  }

  /** From the document store: status, type, companyId, loginMethod, search; page, limit 1-100 (default 20). */
  @Static({ access: [PM], onValidationError: invalidListing })
  listUsers(ctx: UserStaticCtx<ListUsersInput>) {
    return listing.listUsers(ctx);
  }

  /** The signed-in user's own permissions by class key (its own instance only: the rule replaces the role check). */
  @Read({ access: [PM], skipRoleCheck: true, guard: read.ownUserOnly })
  getPermissions(ctx: UserReadCtx) {
    return read.getPermissions(ctx);
  }

  // ---------------------------------------------------------------- sign-in (README "Sign-in")

  /** {email} → sso with the identity provider's login URL, or email_password: by the domain alone. */
  @Static({ access: [PUBLIC] })
  discoverAuthMethod(ctx: UserStaticCtx<DiscoverAuthMethodInput>) {
    return signIn.discoverAuthMethod(ctx, this.settings);
  }

  /** The SAML response of an identity provider (the assertion consumer service) → session, 303 to the back office. */
  @Static({ access: [PUBLIC], bodyLimit: '512kb', formBody: true })
  singleSignOn(ctx: UserStaticCtx<SingleSignOnInput>) {
    return sso.singleSignOn(ctx, this.settings);
  }

  /** {email, password} → a code by mail and a token good for checkOtp and resendOtp only. */
  @Static({ access: [PUBLIC] })
  login(ctx: UserStaticCtx<LoginInput>) {
    return signIn.login(ctx, this.settings);
  }

  /** {otp} with login's token → access token and refresh token. */
  @Static({ access: [PM], skipRoleCheck: true })
  checkOtp(ctx: UserStaticCtx<CheckOtpInput>) {
    return signIn.checkOtp(ctx);
  }

  /** A new sign-in code by mail (login's token). */
  @Static({ access: [PM], skipRoleCheck: true })
  resendOtp(ctx: UserStaticCtx<ResendOtpInput>) {
    return signIn.resendOtp(ctx);
  }

  /** {email} → 202, the same answer for every email. */
  @Static({ access: [PUBLIC] })
  sendPasswordResetEmail(ctx: UserStaticCtx<SendPasswordResetEmailInput>) {
    return password.sendPasswordResetEmail(ctx, this.settings);
  }

  /** {email, otp, password}: the reset code and a new password (policy checked); every session ends. */
  @Static({ access: [PUBLIC] })
  resetPassword(ctx: UserStaticCtx<ResetPasswordInput>) {
    return password.resetPassword(ctx, this.settings);
  }

  /** {email, otp, password}: the invitation code and the first password → `active`. */
  @Static({ access: [PUBLIC] })
  acceptInvitation(ctx: UserStaticCtx<AcceptInvitationInput>) {
    return password.acceptInvitation(ctx, this.settings);
  }

  // ---------------------------------------------------------------- approval callbacks

  /** user_update and user_status_update (approve and reject). */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approveUser(ctx: UserCtx<ApprovalCallbackBody>) {
    return approval.approveUser(ctx);
  }

  /** user_create (approve: the invitation is sent; reject: the user is `inactive`). */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: 'approveUser' })
  approveUserCreate(ctx: UserCtx<ApprovalCallbackBody>) {
    return approval.approveUserCreate(ctx, this.settings);
  }

  // ---------------------------------------------------------------- the class's own steps

  /** The identity source: {active, roles, tenant?, developer, validAfter?, name} (the runtime calls it as the system). */
  @Read({ access: [SELF], schema: 'empty' })
  resolveIdentity(ctx: UserReadCtx) {
    return read.resolveIdentity(ctx);
  }

  @Read({ access: [SELF], schema: 'empty' })
  signInView(ctx: UserReadCtx) {
    return read.signInView(ctx);
  }

  /** {password} → {valid, user}: the hash is checked here, in a READ, and never leaves the instance. */
  @Read({ access: [SELF] })
  verifyCredentials(ctx: UserReadCtx<VerifyCredentialsInput>) {
    return read.verifyCredentials(ctx);
  }

  @Internal({ access: [SELF] })
  recordSignIn(ctx: UserCtx<RecordSignInInput>) {
    return session.recordSignIn(ctx);
  }

  @Internal({ access: [SELF] })
  setPassword(ctx: UserCtx<SetPasswordInput>) {
    return session.setPassword(ctx);
  }

  @Internal({ access: [SELF] })
  completeInvitation(ctx: UserCtx<CompleteInvitationInput>) {
    return session.completeInvitation(ctx);
  }

  @Internal({ access: [SELF], schema: 'recordSignIn' })
  completeSso(ctx: UserCtx<RecordSignInInput>) {
    return session.completeSso(ctx);
  }

  // ---------------------------------------------------------------- personal data

  /**
   * {subject} → a back-office user's state (no password hash) and listing document, and its company, for
   * DataSubject's export; nothing for other subjects; 404 4022 for an unknown user. Read through readUserState:
   * a STATIC has no instance state.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS] })
  exportSubjectData(ctx: StaticCtx<ExportSubjectDataInput>): Promise<SubjectData> {
    return subjectData.exportSubjectData(ctx, client<typeof ProgramManagementUser>(ctx, 'ProgramManagementUser'));
  }

  /** The user's state but for its secrets, for exportSubjectData only. */
  @Read({ access: [SELF], schema: 'empty' })
  readUserState(ctx: UserReadCtx) {
    return subjectData.readUserState(ctx);
  }

  /**
   * {subject, erasureId} → {records, files: 0}: a back-office user erased for DataSubject's erasure (personal values
   * ERASED, credentials and waiting change gone, `inactive`, email released, sessions ended, marked erased); zeros
   * for other subjects or a user erased before; 404 4022 for an unknown user. Written through eraseUser.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS] })
  eraseSubjectData(ctx: StaticCtx<EraseSubjectDataInput>): Promise<SubjectErasure> {
    return subjectData.eraseSubjectData(ctx, client<typeof ProgramManagementUser>(ctx, 'ProgramManagementUser'));
  }

  /** {erasureId} → {erased}: the user's state erased, for eraseSubjectData only. */
  @Internal({ access: [SELF] })
  eraseUser(ctx: UserCtx<EraseUserInput>) {
    return subjectData.eraseUser(ctx);
  }
}
