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
import { ActorClass, Init, Internal, QueuedWrite, Read, Static, Write, type Ctx } from '../../runtime';
import { ownedByCompany } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { hrErrorShape, photoErrorShape } from './hr-contract';
import { HrClient, hrClientConfig } from './hr-client';
import { MEMBER_INDEXES, MEMBERS_COLLECTION, memberDocument } from './listing';
import type { FamilyMember, MemberPrivateState } from './types';
import * as hrEmployee from './use-cases/hr-employee';
import * as hrDependant from './use-cases/hr-dependant';
import * as family from './use-cases/family';
import * as common from './use-cases/common';
import * as idPhoto from './use-cases/id-photo';
import * as registration from './use-cases/registration';
import * as creation from './use-cases/creation';
import * as profileChange from './use-cases/profile-change';
import * as personal from './use-cases/personal';
import * as employment from './use-cases/employment';
import * as contact from './use-cases/contact';
import * as status from './use-cases/status';
import * as listing from './use-cases/listing';
import * as ownProfile from './use-cases/own-profile';
import * as memberships from './use-cases/memberships';
import * as documents from './use-cases/documents';

const PM = ['program_management_user'] as const;

@ActorClass({
  id: 'Member',
  description: 'Members (employees and dependants), HR integration',
  routes: [
    { method: 'POST', path: '/members/hr/employee', target: 'hrUpdateEmployee' },
    { method: 'POST', path: '/members/hr/dependant', target: 'hrUpsertDependant' },
  ],
  sensitiveFields: ['photo', 'content'],
  // company scope: a member belongs to its company; company users reach, create and list only their company's members
  tenancy: ownedByCompany((state) => (state.private as Partial<MemberPrivateState>).profile?.company?.id),
  stream: {
    collections: { [MEMBERS_COLLECTION]: { indexes: MEMBER_INDEXES, tenantField: 'companyId' } },
    toDocuments: (state, id) => {
      const s = state.private as MemberPrivateState;
      return s.profile ? [{ collection: MEMBERS_COLLECTION, id, doc: memberDocument(s.profile, s) }] : [];
    },
  },
})
export class Member {
  readonly hr: HrClient;

  constructor(env: NodeJS.ProcessEnv = {}) {
    this.hr = new HrClient(hrClientConfig(env));
  }

  // ---------------------------------------------------------------- HR 4.2

  /** Spec 4.2: the HR system pushes the full employee record. */
  @Static({ access: ['integration_user'], errorShape: hrErrorShape('employee'), timeoutSeconds: 30, bodyLimit: '64kb' })
  async hrUpdateEmployee(ctx: Ctx) {
    return hrEmployee.hrUpdateEmployee(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false })
  async hrApplyEmployee(ctx: Ctx) {
    return hrEmployee.hrApplyEmployee(ctx);
  }

  // ---------------------------------------------------------------- HR 4.3

  /** Spec 4.3: the HR system pushes the full dependant record (upsert). */
  @Static({ access: ['integration_user'], errorShape: hrErrorShape('dependant'), timeoutSeconds: 30, bodyLimit: '64kb' })
  async hrUpsertDependant(ctx: Ctx) {
    return hrDependant.hrUpsertDependant(ctx);
  }

  @Read({ access: ['class:Member'], schema: false })
  hrPrimaryInfo(ctx: Ctx): hrDependant.PrimaryInfo & { familyMembers: FamilyMember[] } {
    return hrDependant.hrPrimaryInfo(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false, upsert: true })
  async hrApplyDependant(ctx: Ctx) {
    return hrDependant.hrApplyDependant(ctx);
  }

  /**
   * Adds or refreshes a family member entry on the primary member (no change → no write); a change is
   * audit-logged on the primary member, with the actor of the call that made it.
   */
  @Internal({ access: ['class:Member'], schema: false })
  async linkFamilyMember(ctx: Ctx) {
    return family.linkFamilyMember(ctx);
  }

  /** The id of the member behind a lookup (`staffId!x`, `email!x`); used by Member itself. */
  @Read({ access: ['class:Member'], schema: false })
  resolveMemberId(ctx: Ctx) {
    return common.resolveMemberId(ctx);
  }

  // ---------------------------------------------------------------- HR 4.1

  /** Spec 4.1: the HR system sends a new ID photo; it waits for approval (MEMBER_ID_PHOTO_UPLOAD). */
  @Write({ access: ['integration_user'], errorShape: photoErrorShape, timeoutSeconds: 30 })
  async updateEmployeePhoto(ctx: Ctx) {
    return idPhoto.updateEmployeePhoto(ctx);
  }

  /** Approval callback of MEMBER_ID_PHOTO_UPLOAD (approve or reject). */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: false })
  async approveMemberIdPhoto(ctx: Ctx) {
    return idPhoto.settleIdPhoto(ctx, ctx.request.body as ApprovalCallbackBody);
  }

  // ---------------------------------------------------------------- HR 4.4 registration

  /** Registers an employee from the HR system by email (see registration.ts). */
  @Static({ access: ['program_management_user'], timeoutSeconds: registration.REGISTER_FROM_HR_TIMEOUT_SECONDS })
  async registerFromHr(ctx: Ctx) {
    return registration.registerFromHr(ctx, this.hr);
  }

  /** Background retry of the HR member-id update (queued by registerFromHr when it failed). */
  @QueuedWrite({ access: ['class:Member'], schema: false, attempts: 8, timeoutSeconds: 120 })
  async recordHrMemberId(ctx: Ctx) {
    return registration.recordHrMemberId(ctx, this.hr);
  }

  // ---------------------------------------------------------------- creation, approvals, status

  /** Creates a member (program management); runs member_create. */
  @Init({ access: ['program_management_user', 'class:Member'], instanceId: () => randomUUID(), timeoutSeconds: 30 })
  async createMember(ctx: Ctx) {
    return creation.createMember(ctx);
  }

  /** A member from a seed file (`npm run cli -- seed`, as the system); id from the call path. */
  @Internal({ access: ['class:Member'], upsert: true, timeoutSeconds: 30 })
  async seedMember(ctx: Ctx) {
    return creation.seedMember(ctx);
  }

  /** Approval callback of member_create / member_update / member_status_update. */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: false })
  async approveMember(ctx: Ctx) {
    return profileChange.approveMember(ctx);
  }

  // ---------------------------------------------------------------- personal, employment, contact (spec 4.5)

  @Read({ access: [...PM] })
  getMemberPersonal(ctx: Ctx) {
    return personal.getMemberPersonal(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberPersonal(ctx: Ctx) {
    return personal.updateMemberPersonal(ctx);
  }

  @Read({ access: [...PM] })
  getMemberEmployment(ctx: Ctx) {
    return employment.getMemberEmployment(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberEmployment(ctx: Ctx) {
    return employment.updateMemberEmployment(ctx);
  }

  @Read({ access: [...PM] })
  getMemberContact(ctx: Ctx) {
    return contact.getMemberContact(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberContact(ctx: Ctx) {
    return contact.updateMemberContact(ctx);
  }

  // ---------------------------------------------------------------- status, listing, streaming

  /** Spec 3.1 "any → requested status" (not the four system-only ones); member_status_update. */
  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberStatus(ctx: Ctx) {
    return status.updateMemberStatus(ctx);
  }

  /**
   * Members from the document store: filters status, companyId, memberType,
   * membershipStatus, primaryMemberId, primaryOnly; search on name, email and
   * staff id; page/limit. The spec lists it as READ; Member has no singleton
   * instance to read, so it is STATIC (it reads only the document store).
   */
  // schema: false: the query and the body are one input, checked together by listing.ts (400 5005 naming the field)
  @Static({ access: [...PM], schema: false })
  listMembers(ctx: Ctx) {
    return listing.listMembers(ctx);
  }

  /** Manual stream to the document database (the commit re-projects the member). */
  @Write({ access: [...PM] })
  streamMember(ctx: Ctx) {
    return listing.streamMember(ctx);
  }

  /** The signed-in member's own profile (enduser only). */
  @Read({ access: ['enduser'] })
  getMemberProfile(ctx: Ctx) {
    return ownProfile.getMemberProfile(ctx);
  }

  // ---------------------------------------------------------------- memberships

  @Write({ access: [...PM], timeoutSeconds: 30 })
  addMembership(ctx: Ctx) {
    return memberships.addMembership(ctx);
  }

  // schema: false: the query and the body are one input, checked together by listing.ts (400 5005 naming the field)
  @Read({ access: [...PM], timeoutSeconds: 30, schema: false })
  listMemberships(ctx: Ctx) {
    return memberships.listMemberships(ctx);
  }

  // ---------------------------------------------------------------- family members

  @Read({ access: [...PM] })
  getMemberDependants(ctx: Ctx) {
    return family.getMemberDependants(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  addMemberFamilyMember(ctx: Ctx) {
    return family.addMemberFamilyMember(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberFamilyMember(ctx: Ctx) {
    return family.updateMemberFamilyMember(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  removeMemberFamilyMember(ctx: Ctx) {
    return family.removeMemberFamilyMember(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false, upsert: true })
  createFamilyMember(ctx: Ctx) {
    return family.createFamilyMember(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false })
  applyFamilyMemberUpdate(ctx: Ctx) {
    return family.applyFamilyMemberUpdate(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false })
  detachFamilyMember(ctx: Ctx) {
    return family.detachFamilyMember(ctx);
  }

  /** The primary member's family list (for a dependant's company-paid check). */
  @Read({ access: ['class:Member'], schema: false })
  hrPrimaryFamily(ctx: Ctx) {
    return family.hrPrimaryFamily(ctx);
  }

  // ---------------------------------------------------------------- ID photos

  @Write({ access: [...PM], schema: 'idPhoto', timeoutSeconds: 30 })
  uploadMemberIdPhoto(ctx: Ctx) {
    return idPhoto.uploadMemberIdPhoto(ctx);
  }

  /** The member's own photo: only when `active` or `pending_id_photo` (spec 3.1). */
  @Write({ access: ['enduser'], schema: 'idPhoto', timeoutSeconds: 30 })
  uploadMyIdPhoto(ctx: Ctx) {
    return idPhoto.uploadMyIdPhoto(ctx);
  }

  // ---------------------------------------------------------------- documents

  @Write({ access: [...PM], timeoutSeconds: 30 })
  uploadDocument(ctx: Ctx) {
    return documents.uploadDocument(ctx);
  }

  // schema: false: the query and the body are one input, checked together by listing.ts (400 5005 naming the field)
  @Read({ access: [...PM], schema: false })
  listDocuments(ctx: Ctx) {
    return documents.listDocuments(ctx);
  }

  /** Active documents only; a 5-minute URL. */
  @Read({ access: [...PM], schema: 'documentRef' })
  downloadDocument(ctx: Ctx) {
    return documents.downloadDocument(ctx, false);
  }

  /** Archived (and active) documents; a permission of its own. */
  @Read({ access: [...PM], schema: 'documentRef' })
  downloadArchivedDocument(ctx: Ctx) {
    return documents.downloadDocument(ctx, true);
  }

  @Write({ access: [...PM], schema: 'documentRef' })
  archiveDocument(ctx: Ctx) {
    return documents.setDocumentStatus(ctx, 'archived');
  }

  @Write({ access: [...PM], schema: 'documentRef' })
  unarchiveDocument(ctx: Ctx) {
    return documents.setDocumentStatus(ctx, 'active');
  }
}
