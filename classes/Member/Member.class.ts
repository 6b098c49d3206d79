/**
 * Member (spec 2.1, 3.1, 4.1-4.5): one instance per member (instance id =
 * member id), private state `profile` (+ documents, pending approvals).
 * Lookup keys: `staffId` (current staff id) and `email` (lower case).
 *
 * HR integration (external contract, spec 4.1-4.3, 7.2):
 *   POST /members/hr/employee   → hrUpdateEmployee (STATIC) → hrApplyEmployee (INTERNAL) on the member
 *   POST /members/hr/dependant  → hrUpsertDependant (STATIC) → hrApplyDependant (INTERNAL, upsert) on the dependant
 *                                 (+ linkFamilyMember on the primary member)
 *   POST /<projectId>/CALL/Member/updateEmployeePhoto/<id | staffId!<staffId>> (WRITE)
 * Both STATIC entries are also reachable through CALL. Their error bodies are
 * the contract's (errorShape), including the 401 the runtime raises before the
 * handler runs.
 *
 * This file declares the methods (access, kind, schema, time-outs) and delegates:
 * each body lives in use-cases/<use case>.ts, its rules in the pure modules of
 * this folder. See README.md in this folder for the operations, choices and
 * error codes.
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, Init, Internal, QueuedWrite, Read, Static, Write, type ClassClient } from '../../runtime';
import { SUBJECT_DATA_ACCESS } from '../_platform/personal-data';
import { ownedByCompany } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { hrErrorShape, hrReplayWindow, photoErrorShape } from './hr-contract';
import { HrClient, hrClientConfig } from './hr-client';
import { IdCardClient, idCardClientConfig, type IdCardLookup } from './id-card-client';
import { quarantineSettings, type QuarantineSettings } from './hr-quarantine';
import { HR_DEPENDANT_JOURNAL, HR_EMPLOYEE_JOURNAL, HR_PHOTO_JOURNAL } from './hr-ledger';
import {
  invalidQuery,
  LIST_MEMBERS,
  MEMBER_GAUGES,
  MEMBER_INDEXES,
  MEMBERS_COLLECTION,
  memberDocuments,
} from './listing-rules';
import type { MemberCtx, MemberReadCtx, MemberStaticCtx } from './member-state';
import type { MemberClassState } from './types';
import * as hrEmployee from './use-cases/hr-employee';
import * as hrDependant from './use-cases/hr-dependant';
import * as hrLedger from './use-cases/hr-ledger';
import * as hrReconcile from './use-cases/hr-reconcile';
import * as hrRelease from './use-cases/hr-release';
import * as hrQuarantine from './use-cases/hr-quarantine';
import * as family from './use-cases/family';
import * as common from './use-cases/common';
import * as idPhoto from './use-cases/id-photo';
import * as idCard from './use-cases/id-card';
import * as registration from './use-cases/registration';
import * as selfRegistration from './use-cases/self-registration';
import * as creation from './use-cases/create';
import * as importing from './use-cases/import';
import * as profileChange from './use-cases/profile-change';
import * as personal from './use-cases/personal';
import * as employment from './use-cases/employment';
import * as contact from './use-cases/contact';
import * as status from './use-cases/status';
import * as listing from './use-cases/listing';
import * as ownProfile from './use-cases/own-profile';
import * as memberships from './use-cases/memberships';
import * as lifecycle from './use-cases/membership-lifecycle';
import { reminderDaysFrom } from './membership-lifecycle';
import * as documents from './use-cases/documents';
import * as signIn from './use-cases/sign-in';
import * as subjectData from './use-cases/subject-data';
import * as erasure from './use-cases/erasure';
import { erasureSettingsFrom, isErased, type ErasureSettings } from './erasure-rules';
import * as sso from './use-cases/sign-in-sso';
import * as invitation from './use-cases/sign-in-invitation';
import * as passwords from './use-cases/sign-in-password';
import { signInSettingsFrom, type SignInSettings } from './sign-in-rules';
import { memberAppUrl } from './use-cases/welcome';
import type {
  UpdateEmployeePhotoInput,
  VerifyCredentialsInput,
  ResetPasswordInput,
  RenewMyMembershipInput,
  ReinstateMembershipInput,
  AcceptInvitationInput,
  AddMemberFamilyMemberInput,
  AddMembershipInput,
  ChangePasswordInput,
  CheckOtpInput,
  ChooseTierInput,
  CompleteRegistrationInput,
  CompleteSingleSignOnInput,
  CreateMemberInput,
  DiscoverAuthMethodInput,
  DocumentRefInput,
  HrUpdateEmployeeInput,
  HrUpsertDependantInput,
  IdPhotoInput,
  InviteMyDependantInput,
  InviteRedirectInput,
  ListHeldHrPushesInput,
  ListHrLedgerInput,
  ListMembersInput,
  ListMembershipsInput,
  LoginInput,
  MailPasswordResetInput,
  ReconcileHrPopulationInput,
  RegisterFromHrInput,
  RemoveMemberFamilyMemberInput,
  RenewMembershipInput,
  RestartInvitationInput,
  SeedMemberInput,
  SendPasswordResetEmailInput,
  SingleSignOnInput,
  SuspendMembershipInput,
  UpdateMemberContactInput,
  UpdateMemberEmploymentInput,
  UpdateMemberFamilyMemberInput,
  UpdateMemberPersonalInput,
  UpdateMemberStatusInput,
  UploadDocumentInput,
  ListDocumentsInput,
  ExportSubjectDataInput,
  EraseSubjectDataInput,
} from '../../schemas/Member/inputs';

const PM = ['program_management_user'] as const;
/** the body limit of the public sign-in operations: their bodies are an email, a password, a token */
const SIGN_IN_BODY = '16kb';

@ActorClass<MemberClassState>({
  id: 'Member',
  description: 'Members (employees and dependants), HR integration',
  routes: [
    { method: 'POST', path: '/members/hr/employee', target: 'hrUpdateEmployee' },
    { method: 'POST', path: '/members/hr/dependant', target: 'hrUpsertDependant' },
  ],
  sensitiveFields: [
    'photo',
    'content',
    'password',
    'currentPassword',
    'newPassword',
    'passwordHash',
    'token',
    'otp',
    'SAMLResponse',
    'accessToken',
    'refreshToken',
  ],
  // members sign in as enduser: the runtime asks resolveIdentity whether a member's token still works
  identitySource: { tokenType: 'enduser', method: 'resolveIdentity' },
  // company scope: a member belongs to its company; company users reach, create and list only their company's members
  tenancy: ownedByCompany((state) => state.private.profile?.company?.id),
  stream: {
    collections: {
      [MEMBERS_COLLECTION]: {
        indexes: MEMBER_INDEXES,
        listings: [LIST_MEMBERS],
        tenantField: 'companyId',
        gauges: MEMBER_GAUGES,
      },
    },
    toDocuments: (state, id) => memberDocuments(state.private, id),
  },
})
export class Member {
  readonly hr: HrClient;
  /** the ID card system of the registration (ID_CARD_BASE_URL; unset: not asked) */
  readonly idCards: IdCardLookup;
  /** where members sign in (MEMBER_APP_URL): the welcome message links to it */
  readonly memberAppUrl: string;
  /** sign-in's configuration: SAML identity providers, the member application, link lifetimes (sign-in-rules.ts) */
  readonly signIn: SignInSettings;

  /** deactivations from HR held past a company's limit (hr-quarantine.ts) */
  readonly quarantine: QuarantineSettings;

  /** the membership life cycle's settings: the reminder's lead time (MEMBERSHIP_REMINDER_DAYS) */
  readonly lifecycle: lifecycle.LifecycleSettings;

  /** whether an erased person may be created again (ERASED_MEMBERS_RETURN) and the key of the markers (README "Erasure") */
  readonly erasure: ErasureSettings;

  constructor(env: NodeJS.ProcessEnv = {}) {
    this.hr = new HrClient(hrClientConfig(env));
    this.idCards = new IdCardClient(idCardClientConfig(env));
    this.quarantine = quarantineSettings(env);
    this.lifecycle = { reminderDays: reminderDaysFrom(env) };
    this.memberAppUrl = memberAppUrl(env);
    this.signIn = signInSettingsFrom(env);
    this.erasure = erasureSettingsFrom(env);
  }

  // ---------------------------------------------------------------- HR 4.2

  /** Spec 4.2: the HR system pushes the full employee record. */
  @Static({
    access: ['integration_user'],
    errorShape: hrErrorShape('employee'),
    timeoutSeconds: 30,
    bodyLimit: '64kb',
    answer: 'hrUpdateEmployee.answer',
    answerStatuses: [200, 202],
    errorAnswer: 'hrError.answer',
    journal: HR_EMPLOYEE_JOURNAL,
    replayWindowSeconds: hrReplayWindow,
    errors: [
      'VALIDATION',
      'INVALID_API_KEY',
      'EMPLOYEE_NOT_FOUND',
      'COMPANY_NOT_MAPPED',
      'COMPANY_GROUP_MISMATCH',
      'INTERNAL',
    ],
  })
  async hrUpdateEmployee(ctx: MemberStaticCtx<HrUpdateEmployeeInput>) {
    return hrEmployee.hrUpdateEmployee(ctx);
  }

  /** What hrUpdateEmployee's fast path compares a record with (a read: no write turn for an unchanged record). */
  @Read({ access: ['class:Member'], schema: false })
  hrEmployeeSnapshot(ctx: MemberReadCtx) {
    return hrEmployee.hrEmployeeSnapshot(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false })
  async hrApplyEmployee(ctx: MemberCtx<hrEmployee.ApplyEmployeeBody>) {
    return hrEmployee.hrApplyEmployee(ctx, this.quarantine);
  }

  /**
   * Approval callback of HR_DEACTIVATION_HELD: approve applies the held HR push
   * through the push's own step, reject discards it (hr-release.ts).
   */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: 'approvalCallback' })
  async settleHeldHrPush(ctx: MemberCtx<ApprovalCallbackBody>) {
    return hrRelease.settleHeldHrPush(ctx);
  }

  // ---------------------------------------------------------------- HR 4.3

  /** Spec 4.3: the HR system pushes the full dependant record (upsert). */
  @Static({
    access: ['integration_user'],
    errorShape: hrErrorShape('dependant'),
    timeoutSeconds: 30,
    bodyLimit: '64kb',
    answer: 'hrUpsertDependant.answer',
    answerStatuses: [200, 201, 202],
    errorAnswer: 'hrError.answer',
    journal: HR_DEPENDANT_JOURNAL,
    replayWindowSeconds: hrReplayWindow,
    errors: ['VALIDATION', 'INVALID_API_KEY', 'DEPENDANT_FORBIDDEN', 'PRIMARY_MEMBER_NOT_FOUND', 'INTERNAL'],
  })
  async hrUpsertDependant(ctx: MemberStaticCtx<HrUpsertDependantInput>) {
    return hrDependant.hrUpsertDependant(ctx);
  }

  @Read({ access: ['class:Member'], schema: false })
  hrPrimaryInfo(ctx: MemberReadCtx) {
    return hrDependant.hrPrimaryInfo(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false, upsert: true })
  async hrApplyDependant(ctx: MemberCtx<hrDependant.ApplyDependantBody>) {
    return hrDependant.hrApplyDependant(ctx, this.quarantine, this.erasure);
  }

  /**
   * Adds or refreshes a family member entry on the primary member (no change → no write); a change is
   * audit-logged on the primary member, with the actor of the call that made it.
   */
  @Internal({ access: ['class:Member'], schema: false })
  async linkFamilyMember(ctx: MemberCtx<family.LinkFamilyBody>) {
    return family.linkFamilyMember(ctx);
  }

  /** The id of the member behind a lookup (`staffId!x`, `email!x`); used by Member itself. */
  @Read({ access: ['class:Member'], schema: false })
  resolveMemberId(ctx: MemberReadCtx) {
    return common.resolveMemberId(ctx);
  }

  /**
   * The HR ledger: every push of the HR endpoints (4.1-4.3), whatever it answered, newest first, by staff id,
   * status, code and time (hr-ledger.ts). For internal back-office users: company users are refused (403).
   */
  @Static({ access: [...PM] })
  listHrLedger(ctx: MemberStaticCtx<ListHrLedgerInput>) {
    return hrLedger.listHrLedger(ctx);
  }

  /**
   * The members whose deactivating HR push the quarantine holds, oldest first (hr-quarantine.ts); a company
   * user sees its own company's. Each names the approval that releases (approve) or discards (reject) it.
   */
  @Static({ access: [...PM], answer: 'listHeldHrPushes.answer' })
  listHeldHrPushes(ctx: MemberStaticCtx<ListHeldHrPushesInput>) {
    return hrQuarantine.listHeldHrPushes(ctx);
  }

  /**
   * Reconciliation of HR's population with the members (hr-reconcile.ts): HR's records (at most 5,000; a bigger
   * population goes through `npm run cli -- hr:reconcile <file>`) compared with the members: missing in the program,
   * missing in HR, field drift; `apply` pushes the corrections through 4.2 as the caller. For internal back-office
   * users: the population spans every company (company users are refused, 403).
   */
  @Static({
    access: [...PM],
    guard: hrReconcile.internalUsersOnly,
    bodyLimit: '4mb',
    timeoutSeconds: 30,
    answer: 'reconcileHrPopulation.answer',
  })
  reconcileHrPopulation(ctx: MemberStaticCtx<ReconcileHrPopulationInput>) {
    return hrReconcile.reconcileHrPopulation(ctx);
  }

  // ---------------------------------------------------------------- HR 4.1

  /** Spec 4.1: the HR system sends a new ID photo; it waits for approval (MEMBER_ID_PHOTO_UPLOAD). */
  @Write({
    access: ['integration_user'],
    errorShape: photoErrorShape,
    timeoutSeconds: 30,
    answer: 'updateEmployeePhoto.answer',
    errorAnswer: 'photoError.answer',
    journal: HR_PHOTO_JOURNAL,
    replayWindowSeconds: hrReplayWindow,
    errors: [
      'VALIDATION',
      'INVALID_API_KEY',
      'INVALID_FILE_EXTENSION',
      'EMPLOYEE_PHOTO_UPLOAD_FAILED',
      'MEMBER_NOT_FOUND',
      'INTERNAL',
    ],
  })
  async updateEmployeePhoto(ctx: MemberCtx<UpdateEmployeePhotoInput>) {
    return idPhoto.updateEmployeePhoto(ctx);
  }

  /** Approval callback of MEMBER_ID_PHOTO_UPLOAD (approve or reject). */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: 'approvalCallback' })
  async approveMemberIdPhoto(ctx: MemberCtx<ApprovalCallbackBody>) {
    return idPhoto.settleIdPhoto(ctx);
  }

  // ---------------------------------------------------------------- HR 4.4 registration

  /** Registers an employee from the HR system by email (see registration.ts). */
  @Static({ access: ['program_management_user'], timeoutSeconds: registration.REGISTER_FROM_HR_TIMEOUT_SECONDS })
  async registerFromHr(ctx: MemberStaticCtx<RegisterFromHrInput>) {
    return registration.registerFromHr(ctx, this.hr, this.idCards, undefined, registration.byBackOffice(this.erasure));
  }

  /**
   * registerFromHr's lookup and rules without creating anything: the same refusals, or what it would register
   * (`register-from-hr --dry-run`). Reads the HR system only.
   */
  @Static({
    access: ['program_management_user'],
    schema: 'registerFromHr',
    timeoutSeconds: registration.REGISTER_FROM_HR_TIMEOUT_SECONDS,
  })
  async checkRegistrationFromHr(ctx: MemberStaticCtx<RegisterFromHrInput>) {
    return registration.checkRegistrationFromHr(ctx, this.hr, this.erasure);
  }

  /** Background retry of the HR member-id update (queued by registerFromHr when it failed). */
  @QueuedWrite({ access: ['class:Member'], schema: false, attempts: 8, timeoutSeconds: 120 })
  async recordHrMemberId(ctx: MemberCtx<registration.RecordHrMemberIdBody>) {
    return registration.recordHrMemberId(ctx, this.hr);
  }

  /**
   * registerFromHr's last step, kept on the member: the registration finished (and the member id recorded, when
   * inline). An effect of registerFromHr, written with its family links once the handler has returned.
   */
  @Internal({ access: ['class:Member'], schema: false })
  markHrRegistrationFinished(ctx: MemberCtx<registration.MarkHrRegistrationFinishedBody>) {
    return registration.markHrRegistrationFinished(ctx);
  }

  /**
   * registerFromHr's ID card step, on the member: the card's photo becomes the ID photo through MEMBER_ID_PHOTO_UPLOAD,
   * unless the member has one or one waits (id-card.ts). Its time-out is what registerFromHr keeps for it.
   */
  @Internal({ access: ['class:Member'], schema: false, timeoutSeconds: idCard.SUBMIT_CARD_PHOTO_TIMEOUT_SECONDS })
  async submitIdCardPhoto(ctx: MemberCtx<idCard.IdCardPhotoBody>) {
    return idCard.submitIdCardPhoto(ctx);
  }

  /** How the member came to be and whether its registration from HR is left to finish (registerFromHr, register-from-hr). */
  @Read({ access: ['class:Member'], schema: false })
  hrRegistrationOf(ctx: MemberReadCtx) {
    return registration.hrRegistrationOf(ctx);
  }

  // ---------------------------------------------------------------- creation, approvals, status

  /** Creates a member (program management); runs member_create. */
  @Init({ access: ['program_management_user', 'class:Member'], instanceId: () => randomUUID(), timeoutSeconds: 30 })
  async createMember(ctx: MemberCtx<CreateMemberInput>) {
    return creation.createMember(ctx, this.memberAppUrl, this.erasure);
  }

  /** A member from a seed file (`npm run cli -- seed`, as the system); id from the call path. */
  @Internal({ access: ['class:Member'], upsert: true, timeoutSeconds: 30 })
  async seedMember(ctx: MemberCtx<SeedMemberInput>) {
    return creation.seedMember(ctx, this.erasure);
  }

  /**
   * One row of a migration sheet (`npm run cli -- import members|dependants`, as the system):
   * created, updated or unchanged, with memberships; a dry run writes nothing (use-cases/import.ts).
   */
  @Static({ access: ['class:Member'], schema: false, timeoutSeconds: 30 })
  async importMember(ctx: MemberStaticCtx<importing.ImportMemberBody>) {
    return importing.importMember(ctx, this.erasure);
  }

  /** What an import row would change on this member (importMember's read; nothing written). */
  @Read({ access: ['class:Member'], schema: false })
  checkImportMember(ctx: MemberReadCtx<importing.ApplyImportBody>) {
    return importing.checkImportMember(ctx, this.erasure);
  }

  /** An import row written on this member (importMember's write; upsert: a new member is created). */
  @Internal({ access: ['class:Member'], schema: false, upsert: true, timeoutSeconds: 30 })
  async applyImportMember(ctx: MemberCtx<importing.ApplyImportBody>) {
    return importing.applyImportMember(ctx, this.erasure);
  }

  /** Approval callback of member_create / member_update / member_status_update. */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: 'approvalCallback' })
  async approveMember(ctx: MemberCtx<ApprovalCallbackBody>) {
    return profileChange.approveMember(ctx, this.memberAppUrl);
  }

  // ---------------------------------------------------------------- personal, employment, contact (spec 4.5)

  @Read({ access: [...PM], answer: 'getMemberPersonal.answer' })
  getMemberPersonal(ctx: MemberReadCtx) {
    return personal.getMemberPersonal(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberPersonal(ctx: MemberCtx<UpdateMemberPersonalInput>) {
    return personal.updateMemberPersonal(ctx);
  }

  @Read({ access: [...PM], answer: 'getMemberEmployment.answer' })
  getMemberEmployment(ctx: MemberReadCtx) {
    return employment.getMemberEmployment(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberEmployment(ctx: MemberCtx<UpdateMemberEmploymentInput>) {
    return employment.updateMemberEmployment(ctx);
  }

  @Read({ access: [...PM], answer: 'getMemberContact.answer' })
  getMemberContact(ctx: MemberReadCtx) {
    return contact.getMemberContact(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberContact(ctx: MemberCtx<UpdateMemberContactInput>) {
    return contact.updateMemberContact(ctx);
  }

  // ---------------------------------------------------------------- status, listing, streaming

  /** Spec 3.1 "any → requested status" (not the four system-only ones); member_status_update. */
  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberStatus(ctx: MemberCtx<UpdateMemberStatusInput>) {
    return status.updateMemberStatus(ctx);
  }

  /**
   * Members from the document store: filters status, companyId, memberType,
   * membershipStatus, primaryMemberId, primaryOnly; search on name, email and
   * staff id; page/limit. The spec lists it as READ; Member has no singleton
   * instance to read, so it is STATIC (it reads only the document store).
   */
  @Static({ access: [...PM], answer: 'listMembers.answer', onValidationError: invalidQuery })
  listMembers(ctx: MemberStaticCtx<ListMembersInput>) {
    return listing.listMembers(ctx);
  }

  /** Manual stream to the document database (the commit re-projects the member). */
  @Write({ access: [...PM] })
  streamMember(ctx: MemberCtx) {
    return listing.streamMember(ctx);
  }

  /** The signed-in member's own profile (enduser only). */
  @Read({ access: ['enduser'], guard: common.selfOnly, answer: 'getMemberProfile.answer' })
  getMemberProfile(ctx: MemberReadCtx) {
    return ownProfile.getMemberProfile(ctx);
  }

  // ---------------------------------------------------------------- sign-in (spec 4.5, 5; README "Sign-in")

  /** {email, relayState?} → SSO login URL for an identity provider's domain, else email_password (the same for every email of it). */
  @Static({ access: ['public'], bodyLimit: SIGN_IN_BODY })
  discoverAuthMethod(ctx: MemberStaticCtx<DiscoverAuthMethodInput>) {
    return signIn.discoverAuthMethod(ctx, this.signIn);
  }

  /**
   * An employee's own registration, step 2: run as a task discoverAuthMethod schedules for an email of no member.
   * The HR lookup, then a registration code by mail to an active employee who may register; nothing otherwise.
   */
  @Static({ access: ['class:Member'], schema: false, timeoutSeconds: registration.REGISTER_FROM_HR_TIMEOUT_SECONDS })
  startSelfRegistration(ctx: MemberStaticCtx<selfRegistration.StartSelfRegistrationBody>) {
    return selfRegistration.startSelfRegistration(ctx, this.hr, this.erasure);
  }

  /**
   * {email, code, password} → the member registered from its HR record (or its registration stopped half-way
   * finished), its password set, and a session: 201 (200 on a resume). 401 5037 for a code that is not valid.
   */
  @Static({
    access: ['public'],
    bodyLimit: SIGN_IN_BODY,
    timeoutSeconds: registration.REGISTER_FROM_HR_TIMEOUT_SECONDS,
  })
  completeRegistration(ctx: MemberStaticCtx<CompleteRegistrationInput>) {
    return selfRegistration.completeRegistration(ctx, this.hr, this.idCards, this.erasure);
  }

  /** {familyMemberId, email?} → the primary member's dependant gets a registration code by mail (README "Dependants"). */
  @Write({ access: ['enduser'], guard: common.selfOnly, timeoutSeconds: 30, bodyLimit: SIGN_IN_BODY })
  inviteMyDependant(ctx: MemberCtx<InviteMyDependantInput>) {
    return selfRegistration.inviteMyDependant(ctx, this.hr);
  }

  /** inviteMyDependant's step on the dependant: its email when it has none, then the code. */
  @Internal({ access: ['class:Member'], schema: false, timeoutSeconds: 30 })
  sendDependantInvitation(ctx: MemberCtx<selfRegistration.DependantInvitationBody>) {
    return selfRegistration.sendDependantInvitation(ctx);
  }

  /** completeRegistration's last step: the password of a member who registered itself. */
  @Internal({ access: ['class:Member'], schema: false })
  setRegistrationPassword(ctx: MemberCtx<selfRegistration.SetRegistrationPasswordBody>) {
    return selfRegistration.setRegistrationPassword(ctx);
  }

  /** {email, password} → a code by mail and a member_otp token good for checkOtp and resendOtp only. */
  @Static({ access: ['public'], bodyLimit: SIGN_IN_BODY })
  login(ctx: MemberStaticCtx<LoginInput>) {
    return signIn.login(ctx, this.signIn);
  }

  /** Is this the member's password, and may it sign in with it? (the hash stays in the instance) */
  @Read({ access: ['class:Member'] })
  verifyCredentials(ctx: MemberReadCtx<VerifyCredentialsInput>) {
    return signIn.verifyCredentials(ctx);
  }

  /** {otp} → an enduser access token and a refresh token. */
  @Write({ access: ['member_otp'], guard: common.selfOnly, bodyLimit: SIGN_IN_BODY })
  checkOtp(ctx: MemberCtx<CheckOtpInput>) {
    return signIn.checkOtp(ctx);
  }

  /** A new sign-in code by mail (429 6001 past Otp's otpLimit). */
  @Write({ access: ['member_otp'], guard: common.selfOnly, bodyLimit: SIGN_IN_BODY })
  resendOtp(ctx: MemberCtx) {
    return signIn.resendOtp(ctx);
  }

  /** The identity source of enduser tokens: whether the member may sign in, and since when its tokens count. */
  @Read({ access: ['class:Member'] })
  resolveIdentity(ctx: MemberReadCtx) {
    return signIn.resolveIdentity(ctx);
  }

  /**
   * The assertion consumer service: {SAMLResponse, RelayState?} → 303 to the member application with the session.
   * The spec lists it as STATIC; it writes the member only through completeSingleSignOn.
   */
  @Static({ access: ['public'], bodyLimit: '512kb', formBody: true })
  singleSignOn(ctx: MemberStaticCtx<SingleSignOnInput>) {
    return sso.singleSignOn(ctx, this.signIn);
  }

  @Internal({ access: ['class:Member'] })
  completeSingleSignOn(ctx: MemberCtx<CompleteSingleSignOnInput>) {
    return sso.completeSingleSignOn(ctx);
  }

  /** Spec 3.1: pending_invite → pending_invitation_acceptance (or a re-send) with a new invitation token by mail. */
  @Write({ access: [...PM], timeoutSeconds: 30 })
  sendInviteEmail(ctx: MemberCtx) {
    return invitation.sendInviteEmail(ctx, this.signIn);
  }

  /** discoverAuthMethod's fresh invitation for an invited member without a password. */
  @QueuedWrite({ access: ['class:Member'] })
  restartInvitation(ctx: MemberCtx<RestartInvitationInput>) {
    return invitation.restartInvitation(ctx, this.signIn);
  }

  /** The invitation link: an HTML page sending the browser on to the member application (GET ?token=). */
  @Static({ access: ['public'], bodyLimit: SIGN_IN_BODY })
  inviteRedirect(ctx: MemberStaticCtx<InviteRedirectInput>) {
    return invitation.inviteRedirect(ctx, this.signIn);
  }

  /** {token, password} → active, with its first password (spec 3.1). */
  @Write({ access: ['public'], bodyLimit: SIGN_IN_BODY })
  acceptInvitation(ctx: MemberCtx<AcceptInvitationInput>) {
    return invitation.acceptInvitation(ctx);
  }

  /** {email} → 202, the same answer for every email; a member who may reset gets a link. */
  @Static({ access: ['public'], bodyLimit: SIGN_IN_BODY })
  sendPasswordResetEmail(ctx: MemberStaticCtx<SendPasswordResetEmailInput>) {
    return passwords.sendPasswordResetEmail(ctx);
  }

  @QueuedWrite({ access: ['class:Member'] })
  mailPasswordReset(ctx: MemberCtx<MailPasswordResetInput>) {
    return passwords.mailPasswordReset(ctx, this.signIn);
  }

  /** {token, password} → the password replaced and every session ended. */
  @Write({ access: ['public'], bodyLimit: SIGN_IN_BODY })
  resetPassword(ctx: MemberCtx<ResetPasswordInput>) {
    return passwords.resetPassword(ctx);
  }

  /** {currentPassword, newPassword}: the member's own; answers a new session (the others end). */
  @Write({ access: ['enduser'], guard: common.selfOnly, bodyLimit: SIGN_IN_BODY })
  changePassword(ctx: MemberCtx<ChangePasswordInput>) {
    return passwords.changePassword(ctx);
  }

  // ---------------------------------------------------------------- memberships

  @Write({ access: [...PM], timeoutSeconds: 30 })
  addMembership(ctx: MemberCtx<AddMembershipInput>) {
    return memberships.addMembership(ctx, this.lifecycle);
  }

  /** Does the member hold the membership? For the tier confirming a quota place (Tier README "Quotas"). */
  @Read({ access: ['class:Tier'], schema: false })
  holdsMembership(ctx: MemberReadCtx<{ membershipId: string }>) {
    return memberships.holdsMembership(ctx);
  }

  /** The member's own tier choices: the active tiers it is eligible for, and how it may pay for each (README "Choosing a tier"). */
  @Read({ access: ['enduser'], guard: common.selfOnly, timeoutSeconds: 30 })
  listMyTierChoices(ctx: MemberReadCtx) {
    return memberships.listMyTierChoices(ctx);
  }

  /** {tierId, paymentType: cpg | dds} → the member takes the tier itself: addMembership's rules; pending_tier → active. */
  @Write({ access: ['enduser'], guard: common.selfOnly, timeoutSeconds: 30, answer: 'addMembership.answer' })
  chooseTier(ctx: MemberCtx<ChooseTierInput>) {
    return memberships.chooseTier(ctx, this.lifecycle);
  }

  /** Renews a membership for another payment period (any payment type; README "Membership life cycle"). */
  @Write({ access: [...PM], timeoutSeconds: 30, answer: 'renewMembership.answer' })
  renewMembership(ctx: MemberCtx<RenewMembershipInput>) {
    return lifecycle.renewMembership(ctx, 'back_office', this.lifecycle);
  }

  /** The member renews its own card-paid (cpg) membership for another payment period. */
  @Write({ access: ['enduser'], guard: common.selfOnly, timeoutSeconds: 30, answer: 'renewMyMembership.answer' })
  renewMyMembership(ctx: MemberCtx<RenewMyMembershipInput>) {
    return lifecycle.renewMembership(ctx, 'member', this.lifecycle);
  }

  /** Suspends an active membership, with a reason, through the workflow (membership_suspend). */
  @Write({ access: [...PM], timeoutSeconds: 30, answer: 'suspendMembership.answer' })
  suspendMembership(ctx: MemberCtx<SuspendMembershipInput>) {
    return lifecycle.requestMembershipMove(ctx, 'suspend');
  }

  /** Reinstates a suspended membership, with a reason, through the workflow (membership_reinstate). */
  @Write({ access: [...PM], timeoutSeconds: 30, answer: 'reinstateMembership.answer' })
  reinstateMembership(ctx: MemberCtx<ReinstateMembershipInput>) {
    return lifecycle.requestMembershipMove(ctx, 'reinstate');
  }

  /** Approval callback of membership_suspend / membership_reinstate. */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: 'approvalCallback' })
  settleMembershipChange(ctx: MemberCtx<ApprovalCallbackBody>) {
    return lifecycle.settleMembershipChange(ctx);
  }

  /** Delayed task at a membership's end: expires it, renews it as its company says, or finds its end moved. */
  @Internal({ access: ['class:Member'], schema: false })
  expireMembership(ctx: MemberCtx<lifecycle.MembershipTaskBody>) {
    // an erased member's record is written no more: a task scheduled before its erasure has nothing to do
    if (isErased(ctx.state.private)) return { skipped: 'erased' as const };
    return lifecycle.expireMembershipTask(ctx, this.lifecycle);
  }

  /** Delayed task MEMBERSHIP_REMINDER_DAYS before a membership's end: tells the member once. */
  @Internal({ access: ['class:Member'], schema: false })
  remindMembership(ctx: MemberCtx<lifecycle.MembershipTaskBody>) {
    if (isErased(ctx.state.private)) return { skipped: 'erased' as const };
    return lifecycle.remindMembershipTask(ctx);
  }

  @Read({ access: [...PM], timeoutSeconds: 30, onValidationError: invalidQuery })
  listMemberships(ctx: MemberReadCtx<ListMembershipsInput>) {
    return memberships.listMemberships(ctx);
  }

  // ---------------------------------------------------------------- family members

  @Read({ access: [...PM] })
  getMemberDependants(ctx: MemberReadCtx) {
    return family.getMemberDependants(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  addMemberFamilyMember(ctx: MemberCtx<AddMemberFamilyMemberInput>) {
    return family.addMemberFamilyMember(ctx, this.erasure);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberFamilyMember(ctx: MemberCtx<UpdateMemberFamilyMemberInput>) {
    return family.updateMemberFamilyMember(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  removeMemberFamilyMember(ctx: MemberCtx<RemoveMemberFamilyMemberInput>) {
    return family.removeMemberFamilyMember(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false, upsert: true })
  createFamilyMember(ctx: MemberCtx<family.CreateFamilyBody>) {
    return family.createFamilyMember(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false })
  applyFamilyMemberUpdate(ctx: MemberCtx<family.FamilyUpdateBody>) {
    return family.applyFamilyMemberUpdate(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false })
  detachFamilyMember(ctx: MemberCtx<family.FamilyOfBody>) {
    return family.detachFamilyMember(ctx);
  }

  /** A dependant's profile, for its primary member (404 5011 when it is not that member's family member). */
  @Read({ access: ['class:Member'], schema: false })
  familyMemberOf(ctx: MemberReadCtx<family.FamilyOfBody>) {
    return family.familyMemberOf(ctx);
  }

  /** The primary member's family list (for a dependant's company-paid check). */
  @Read({ access: ['class:Member'], schema: false })
  hrPrimaryFamily(ctx: MemberReadCtx) {
    return family.hrPrimaryFamily(ctx);
  }

  // ---------------------------------------------------------------- ID photos

  @Write({ access: [...PM], schema: 'idPhoto', timeoutSeconds: 30 })
  uploadMemberIdPhoto(ctx: MemberCtx<IdPhotoInput>) {
    return idPhoto.uploadMemberIdPhoto(ctx);
  }

  /** The member's own photo: only when `active` or `pending_id_photo` (spec 3.1). */
  @Write({ access: ['enduser'], guard: common.selfOnly, schema: 'idPhoto', timeoutSeconds: 30 })
  uploadMyIdPhoto(ctx: MemberCtx<IdPhotoInput>) {
    return idPhoto.uploadMyIdPhoto(ctx);
  }

  // ---------------------------------------------------------------- documents

  @Write({ access: [...PM], timeoutSeconds: 30 })
  uploadDocument(ctx: MemberCtx<UploadDocumentInput>) {
    return documents.uploadDocument(ctx);
  }

  // a GET query or a POST body, checked by its schema alike (400 5005 naming the field)
  @Read({ access: [...PM], onValidationError: invalidQuery })
  listDocuments(ctx: MemberReadCtx<ListDocumentsInput>) {
    return documents.listDocuments(ctx);
  }

  /** Active documents only; a 5-minute URL. */
  @Read({ access: [...PM], schema: 'documentRef' })
  downloadDocument(ctx: MemberReadCtx<DocumentRefInput>) {
    return documents.downloadDocument(ctx, false);
  }

  /** Archived (and active) documents; a permission of its own. */
  @Read({ access: [...PM], schema: 'documentRef' })
  downloadArchivedDocument(ctx: MemberReadCtx<DocumentRefInput>) {
    return documents.downloadDocument(ctx, true);
  }

  @Write({ access: [...PM], schema: 'documentRef' })
  archiveDocument(ctx: MemberCtx<DocumentRefInput>) {
    return documents.setDocumentStatus(ctx, 'archived');
  }

  @Write({ access: [...PM], schema: 'documentRef' })
  unarchiveDocument(ctx: MemberCtx<DocumentRefInput>) {
    return documents.setDocumentStatus(ctx, 'active');
  }

  // ---------------------------------------------------------------- personal data (README "Personal data export")

  /**
   * {subject} → what Member keeps about a member (its state without secrets, its listed documents, its HR
   * records), its dependants and its company; 404 5000 for no such member, empty lists for another subject type.
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS], timeoutSeconds: 30 })
  exportSubjectData(ctx: MemberStaticCtx<ExportSubjectDataInput>) {
    return subjectData.exportSubjectData(ctx);
  }

  /** exportSubjectData's read of the member itself (a STATIC reads no instance); it takes no body. */
  @Read({ access: ['class:Member'], schema: false, timeoutSeconds: 30, answer: 'exportSubjectData.answer' })
  subjectRecordsOf(ctx: MemberReadCtx) {
    return subjectData.subjectRecordsOf(ctx);
  }

  /**
   * {subject, erasureId} → the member erased (README "Erasure"): its personal values gone from its record and its
   * listed document, its lookup keys released, its sessions ended, its dependants' link on its primary member
   * without their values; {records, files}, zeros when nothing was left (a second call, an unknown member, another
   * subject type).
   */
  @Static({ access: [...SUBJECT_DATA_ACCESS], timeoutSeconds: 30 })
  eraseSubjectData(ctx: MemberStaticCtx<EraseSubjectDataInput>) {
    return erasure.eraseSubjectData(ctx);
  }

  /** eraseSubjectData's write of the member: its tombstone, in one commit (nothing for a member erased already). */
  @Internal({ access: ['class:Member'], schema: false, timeoutSeconds: 30 })
  eraseMember(ctx: MemberCtx<erasure.EraseMemberBody>) {
    return erasure.eraseMember(ctx, this.erasure);
  }

  /** eraseSubjectData's second step, on the primary member of an erased dependant: the link keeps the id only. */
  @Internal({ access: ['class:Member'], schema: false })
  forgetFamilyMember(ctx: MemberCtx<erasure.ForgetFamilyMemberBody>) {
    return erasure.forgetFamilyMember(ctx);
  }
}

/**
 * Member calls other members through clients typed from its use-case
 * functions (use-cases/self-client.ts); these are the methods it calls so.
 * Compiles only while each method of the class takes and answers what the
 * function of its name does.
 */
type SelfCalls = {
  hrApplyEmployee: (ctx: MemberCtx<hrEmployee.ApplyEmployeeBody>) => ReturnType<typeof hrEmployee.hrApplyEmployee>;
} & {
  hrApplyDependant: (ctx: MemberCtx<hrDependant.ApplyDependantBody>) => ReturnType<typeof hrDependant.hrApplyDependant>;
} & Pick<typeof hrDependant, 'hrPrimaryInfo'> &
  Pick<typeof hrEmployee, 'hrEmployeeSnapshot'> &
  Pick<typeof creation, 'createMember'> &
  Pick<typeof registration, 'hrRegistrationOf'> &
  Pick<typeof selfRegistration, 'setRegistrationPassword' | 'sendDependantInvitation'> &
  Pick<typeof idCard, 'submitIdCardPhoto'> & {
    checkImportMember: (
      ctx: MemberReadCtx<importing.ApplyImportBody>,
    ) => ReturnType<typeof importing.checkImportMember>;
    applyImportMember: (ctx: MemberCtx<importing.ApplyImportBody>) => ReturnType<typeof importing.applyImportMember>;
  } & Pick<typeof common, 'resolveMemberId'> &
  Pick<typeof family, 'hrPrimaryFamily' | 'familyMemberOf'> &
  Pick<typeof subjectData, 'subjectRecordsOf'> & {
    eraseMember: (ctx: MemberCtx<erasure.EraseMemberBody>) => ReturnType<typeof erasure.eraseMember>;
  } & Pick<typeof erasure, 'forgetFamilyMember'> &
  Pick<typeof signIn, 'verifyCredentials'> &
  Pick<typeof sso, 'completeSingleSignOn'>;
export type SelfCallsMatch =
  ClassClient<typeof Member> extends ClassClient<abstract new () => SelfCalls> ? true : never;
export const selfCallsMatch: SelfCallsMatch = true;
