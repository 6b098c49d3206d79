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
 * See README.md in this folder for the operations, choices and error codes.
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, ActorError, Init, Internal, isUnknownInstance, QueuedWrite, Read, Static, Write, type Ctx } from '../../runtime';
import { actorFromIdentity, type Actor } from '../_platform/actor';
import { type ApprovalCallbackBody } from '../_platform/workflow';
import {
  findMemberSubTypeByHrmsMapping,
  findMemberTypeBySystemIdentifier,
  getCompany,
  getCompanyByBgId,
  getCompanyGroup,
} from './clients';
import { hrError, memberError } from './errors';
import {
  checkPhotoExtension,
  dependantSemanticErrors,
  employeeSemanticErrors,
  HR_MESSAGES,
  hrErrorShape,
  invalidExtensionError,
  normalizeDependant,
  PHOTO_MIME,
  photoErrorShape,
  photoUploadFailed,
  validationError,
  type DependantRecord,
  type EmployeeRecord,
  type NormalizedDependant,
} from './hr-contract';
import { applyDependantRecord, applyEmployeeRecord, newDependantProfile, unmappedTypeWarning } from './hr-sync';
import { MEMBER_INDEXES, MEMBERS_COLLECTION, memberDocument } from './listing';
import {
  clone,
  hasActiveMembership,
  logMemberChange,
  memberIdByLookup,
  memberState,
  profileOf,
  syncEmailLookup,
  syncStaffIdLookup,
} from './member-state';
import { nextMemberStatus } from './status-machine';
import type { FamilyMember, MemberPrivateState, MemberProfile } from './types';
import * as ops from './operations';
import { ownedByCompany } from '../_platform/scope';
import { companyTakesMembers } from './operations';
import * as h from './handlers';
import { HrClient, hrClientConfig } from './hr-client';
import { hrUnavailable, REGISTER_FROM_HR_TIMEOUT_SECONDS, registerFromHr } from './registration';


const PM = ['program_management_user'] as const;

/** Runs an HR entry point: anything that is not already a contract error becomes 500 10000. */
async function hrGuard<T>(ctx: Ctx, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ActorError && err.body) throw err;
    ctx.log.error({ err }, 'HR integration call failed');
    if (err instanceof ActorError && err.status === 503) throw hrError('INTERNAL', HR_MESSAGES.unavailable, undefined, 503);
    throw hrError('INTERNAL', HR_MESSAGES.internal);
  }
}

interface ApplyEmployeeBody {
  record: EmployeeRecord;
  memberTypeId: string;
  company: { id: string; companyGroupId: string; status: string };
  /** the staff id the member was found by (the lookup may have moved since) */
  foundBy: string;
  migrated: boolean;
  /** who pushed the record (the API key's actor): named by the audit entry, not this class */
  actor: Actor;
}

/** linkFamilyMember's body: the entry, and who made the change (the caller's actor when absent) */
export interface LinkFamilyBody {
  ref: FamilyMember;
  actor?: Actor;
}

interface PrimaryInfo {
  id: string;
  company: { id: string };
  memberType: string | null;
  loginMethod: MemberProfile['loginMethod'];
}

interface ApplyDependantBody {
  record: NormalizedDependant;
  memberSubTypeId: string | null;
  primary: PrimaryInfo;
  /** who pushed the record; absent from older queued calls and the registration flow (then the caller's identity) */
  actor?: Actor;
}

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
    return hrGuard(ctx, async () => {
      const rec = ctx.request.body as EmployeeRecord;
      const errors = employeeSemanticErrors(rec);
      // both reads at once: one Redis round trip instead of two
      const [memberType, company] = await Promise.all([findMemberTypeBySystemIdentifier(ctx, rec.employmentType), getCompanyByBgId(ctx, rec.companyId)]);
      if (!memberType || memberType.status !== 'active') {
        errors.employmentType = [`'${rec.employmentType}' does not match an active member type`];
      }
      if (Object.keys(errors).length) throw validationError(errors);

      if (!company) throw hrError('COMPANY_NOT_MAPPED', HR_MESSAGES.companyNotMapped);

      // the member by its staff id, else (migration) by the old one: the lookup is resolved by the call itself
      const apply = (foundBy: string, migrated: boolean) =>
        ctx.call('Member', 'hrApplyEmployee', `staffId!${foundBy}`, {
          record: rec,
          memberTypeId: memberType!.id,
          company: { id: company.id, companyGroupId: company.companyGroupId, status: company.status },
          foundBy,
          migrated,
          actor: actorFromIdentity(ctx.identity),
        } satisfies ApplyEmployeeBody);
      const unknown = (err: unknown) => isUnknownInstance(err);
      let res;
      try {
        res = await apply(rec.employeeId, false);
      } catch (err) {
        if (!unknown(err) || !rec.oldStaffId || rec.oldStaffId === rec.employeeId) {
          throw unknown(err) ? hrError('EMPLOYEE_NOT_FOUND', HR_MESSAGES.employeeNotFound) : err;
        }
        try {
          res = await apply(rec.oldStaffId, true);
        } catch (err2) {
          throw unknown(err2) ? hrError('EMPLOYEE_NOT_FOUND', HR_MESSAGES.employeeNotFound) : err2;
        }
      }
      const out = res.body as { memberId: string; staffId: string; updatedFields: string[]; staffIdMigrated: boolean };
      return {
        success: true,
        message: out.updatedFields.length ? HR_MESSAGES.employeeUpdated : HR_MESSAGES.employeeUnchanged,
        body: {
          memberId: out.memberId,
          staffId: out.staffId,
          updatedFields: out.updatedFields,
          ...(out.staffIdMigrated ? { staffIdMigrated: true } : {}),
        },
      };
    });
  }

  @Internal({ access: ['class:Member'], schema: false })
  async hrApplyEmployee(ctx: Ctx) {
    const input = ctx.request.body as ApplyEmployeeBody;
    const before = profileOf(ctx);
    if (before.staffId !== input.foundBy) throw hrError('EMPLOYEE_NOT_FOUND', HR_MESSAGES.employeeNotFound);

    if (before.company?.id !== input.company.id) {
      // a member moves to active companies only; to HR a pending or inactive company maps to no service company (11016)
      if (!companyTakesMembers(input.company)) throw hrError('COMPANY_NOT_MAPPED', HR_MESSAGES.companyNotMapped);
      // spec 4.2/7.2: reassignment only within the same company group type (internal vs external)
      const current = before.company?.id ? await getCompany(ctx, before.company.id) : null;
      if (current) {
        const [from, to] = await Promise.all([getCompanyGroup(ctx, current.companyGroupId), getCompanyGroup(ctx, input.company.companyGroupId)]);
        if ((from?.type ?? null) !== (to?.type ?? null)) {
          throw hrError('COMPANY_GROUP_MISMATCH', HR_MESSAGES.companyGroupMismatch);
        }
      }
    }

    const result = applyEmployeeRecord(
      before,
      { record: input.record, memberTypeId: input.memberTypeId, companyId: input.company.id, migrated: input.migrated },
      new Date().toISOString(),
    );
    const staffIdMigrated = result.updatedFields.includes('staffId');
    if (result.updatedFields.length) {
      const state = memberState(ctx);
      state.profile = result.profile;
      syncStaffIdLookup(ctx, result.profile);
      if ((await syncEmailLookup(ctx, result.profile)) === 'taken') {
        throw validationError({ email: ['is already used by another member'] });
      }
      await logMemberChange(ctx, before, result.profile, { source: 'hr_employee_update', updatedFields: result.updatedFields }, input.actor);
    }
    return { memberId: ctx.instanceId, staffId: result.profile.staffId, updatedFields: result.updatedFields, staffIdMigrated };
  }

  // ---------------------------------------------------------------- HR 4.3

  /** Spec 4.3: the HR system pushes the full dependant record (upsert). */
  @Static({ access: ['integration_user'], errorShape: hrErrorShape('dependant'), timeoutSeconds: 30, bodyLimit: '64kb' })
  async hrUpsertDependant(ctx: Ctx) {
    return hrGuard(ctx, async () => {
      const raw = ctx.request.body as DependantRecord;
      const errors = dependantSemanticErrors(raw);
      if (Object.keys(errors).length) throw validationError(errors);
      const rec = normalizeDependant(raw);

      let primary: PrimaryInfo & { familyMembers: FamilyMember[] };
      try {
        primary = (await ctx.call('Member', 'hrPrimaryInfo', `staffId!${rec.employeeId}`, {})).body as PrimaryInfo & { familyMembers: FamilyMember[] };
      } catch (err) {
        if (isUnknownInstance(err)) throw hrError('PRIMARY_MEMBER_NOT_FOUND', HR_MESSAGES.primaryNotFound);
        throw err;
      }
      if (primary.id === rec.id) throw hrError('DEPENDANT_FORBIDDEN', HR_MESSAGES.dependantIdTaken);

      const subType = await findMemberSubTypeByHrmsMapping(ctx, rec.type);
      const memberSubTypeId = subType && subType.status === 'active' ? subType.id : null;
      const warnings = memberSubTypeId ? [] : [unmappedTypeWarning(rec.type)];

      const { familyMembers: _family, ...primaryInfo } = primary;
      const applied = (await ctx.call('Member', 'hrApplyDependant', rec.id, { record: rec, memberSubTypeId, primary: primaryInfo, actor: actorFromIdentity(ctx.identity) } satisfies ApplyDependantBody))
        .body as { created: boolean; updatedFields: string[]; ref: FamilyMember; warnings: string[] };
      // the primary member lists the dependant as it is now (also repairs a link an earlier failed call left out)
      const listed = primary.familyMembers.find((f) => f.id === rec.id);
      if (!listed || !sameRef(listed, applied.ref)) {
        await ctx.call('Member', 'linkFamilyMember', primary.id, { ref: applied.ref, actor: actorFromIdentity(ctx.identity) } satisfies LinkFamilyBody);
      }
      warnings.push(...applied.warnings);

      ctx.response.status = applied.created ? 201 : 200;
      return {
        success: true,
        message: applied.created ? HR_MESSAGES.dependantAdded : HR_MESSAGES.dependantUpdated,
        body: {
          dependantId: rec.id,
          primaryMemberId: primary.id,
          updatedFields: applied.updatedFields,
          ...(warnings.length ? { warnings } : {}),
        },
      };
    });
  }

  @Read({ access: ['class:Member'], schema: false })
  hrPrimaryInfo(ctx: Ctx): PrimaryInfo & { familyMembers: FamilyMember[] } {
    const p = profileOf(ctx);
    return { id: p.id, company: p.company, memberType: p.memberType, loginMethod: p.loginMethod, familyMembers: p.familyMembers ?? [] };
  }

  @Internal({ access: ['class:Member'], schema: false, upsert: true })
  async hrApplyDependant(ctx: Ctx) {
    const input = ctx.request.body as ApplyDependantBody;
    const state = memberState(ctx);
    const now = new Date().toISOString();
    const warnings: string[] = [];
    const actor = input.actor ?? actorFromIdentity(ctx.identity);
    const emailWarning = 'The email is already used by another member; it was saved but cannot be used to sign in';

    if (ctx.version === 0 || !state.profile) {
      const profile = newDependantProfile(
        { record: input.record, memberSubTypeId: input.memberSubTypeId, primary: input.primary, actor },
        now,
      );
      state.profile = profile;
      state.documents = [];
      if ((await syncEmailLookup(ctx, profile)) === 'taken') warnings.push(emailWarning);
      await logMemberChange(ctx, null, profile, { source: 'hr_dependant_upsert' }, actor);
      return { created: true, updatedFields: [], ref: familyRef(profile), warnings };
    }

    const before = state.profile;
    if (before.primaryMemberId !== input.primary.id) {
      throw hrError(
        'DEPENDANT_FORBIDDEN',
        before.primaryMemberId ? HR_MESSAGES.dependantOfOtherEmployee : HR_MESSAGES.dependantIdTaken,
      );
    }
    const result = applyDependantRecord(before, { record: input.record, memberSubTypeId: input.memberSubTypeId }, now);
    if (!result.updatedFields.length) return { created: false, updatedFields: [], ref: familyRef(before), warnings };
    state.profile = result.profile;
    if (result.updatedFields.includes('email') && (await syncEmailLookup(ctx, result.profile)) === 'taken') warnings.push(emailWarning);
    await logMemberChange(ctx, before, result.profile, { source: 'hr_dependant_upsert', updatedFields: result.updatedFields }, actor);
    return { created: false, updatedFields: result.updatedFields, ref: familyRef(result.profile), warnings };
  }

  /**
   * Adds or refreshes a family member entry on the primary member (no change → no write); a change is
   * audit-logged on the primary member, with the actor of the call that made it.
   */
  @Internal({ access: ['class:Member'], schema: false })
  async linkFamilyMember(ctx: Ctx) {
    const { ref, actor } = ctx.request.body as LinkFamilyBody;
    const before = profileOf(ctx);
    const list = before.familyMembers ?? [];
    const i = list.findIndex((f) => f.id === ref.id);
    const merged = i >= 0 ? { ...list[i], ...ref, createdAt: list[i]!.createdAt } : ref;
    if (i >= 0 && JSON.stringify(list[i]) === JSON.stringify(merged)) return { changed: false };
    const after: MemberProfile = {
      ...before,
      familyMembers: i >= 0 ? list.map((f, j) => (j === i ? merged : f)) : [...list, merged],
      updatedAt: new Date().toISOString(),
    };
    memberState(ctx).profile = after;
    await logMemberChange(ctx, before, after, { source: 'family_member_link', familyMemberId: ref.id }, actor);
    return { changed: true };
  }

  /** The id of the member behind a lookup (`staffId!x`, `email!x`); used by Member itself. */
  @Read({ access: ['class:Member'], schema: false })
  resolveMemberId(ctx: Ctx) {
    return { id: ctx.instanceId };
  }

  // ---------------------------------------------------------------- HR 4.1

  /** Spec 4.1: the HR system sends a new ID photo; it waits for approval (MEMBER_ID_PHOTO_UPLOAD). */
  @Write({ access: ['integration_user'], errorShape: photoErrorShape, timeoutSeconds: 30 })
  async updateEmployeePhoto(ctx: Ctx) {
    const { photo, fileExtension } = ctx.request.body as { photo: string; fileExtension: string };
    const ext = checkPhotoExtension(fileExtension);
    if (!ext) throw invalidExtensionError(fileExtension);
    const profile = profileOf(ctx);
    let filename: string;
    try {
      filename = await ops.storeMemberFile(ctx, profile.id, {
        content: photo,
        mimeType: PHOTO_MIME[ext],
        originalFilename: `${profile.staffId ?? profile.id}-id-photo.${ext}`,
      });
    } catch (err) {
      ctx.log.warn({ err }, 'employee photo upload failed');
      throw photoUploadFailed(err);
    }
    await ops.submitIdPhoto(ctx, filename, 'hr');
    return { success: true };
  }

  /** Approval callback of MEMBER_ID_PHOTO_UPLOAD (approve or reject). */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: false })
  async approveMemberIdPhoto(ctx: Ctx) {
    return ops.settleIdPhoto(ctx, ctx.request.body as ApprovalCallbackBody);
  }

  // ---------------------------------------------------------------- HR 4.4 registration

  /** Registers an employee from the HR system by email (see registration.ts). */
  @Static({ access: ['program_management_user'], timeoutSeconds: REGISTER_FROM_HR_TIMEOUT_SECONDS })
  async registerFromHr(ctx: Ctx) {
    return registerFromHr(ctx, this.hr);
  }

  /** Background retry of the HR member-id update (queued by registerFromHr when it failed). */
  @QueuedWrite({ access: ['class:Member'], schema: false, attempts: 8, timeoutSeconds: 120 })
  async recordHrMemberId(ctx: Ctx) {
    const { employeeId } = ctx.request.body as { employeeId: string };
    const state = memberState(ctx) as MemberPrivateState & { hrMemberIdRecordedAt?: string };
    if (state.hrMemberIdRecordedAt) return { recorded: true, at: state.hrMemberIdRecordedAt };
    try {
      await this.hr.recordMemberId(employeeId, ctx.instanceId!, ctx.signal);
    } catch (err) {
      const e = hrUnavailable(err);
      throw new ActorError(e.status, e.code, e.message, { details: e.details, retryable: true });
    }
    state.hrMemberIdRecordedAt = new Date().toISOString();
    return { recorded: true, at: state.hrMemberIdRecordedAt };
  }

  // ---------------------------------------------------------------- creation, approvals, status

  /** Creates a member (program management); runs member_create. */
  @Init({ access: ['program_management_user', 'class:Member'], instanceId: () => randomUUID(), timeoutSeconds: 30 })
  async createMember(ctx: Ctx) {
    return ops.createMember(ctx);
  }

  /** A member from a seed file (`npm run cli -- seed`, as the system); id from the call path. */
  @Internal({ access: ['class:Member'], upsert: true, timeoutSeconds: 30 })
  async seedMember(ctx: Ctx) {
    return ops.seedMember(ctx);
  }

  /** Approval callback of member_create / member_update / member_status_update. */
  @QueuedWrite({ access: ['class:ApprovalManager'], schema: false })
  async approveMember(ctx: Ctx) {
    const body = ctx.request.body as ApprovalCallbackBody;
    const state = memberState(ctx);
    const pending = state.pendingChange;
    if (!pending || pending.approvalId !== body.approvalId) {
      // a redelivered or stale callback changes nothing
      if (state.lastApprovalId === body.approvalId) return { ignored: true, approvalId: body.approvalId };
      throw memberError('APPROVAL_MISMATCH', `Member ${ctx.instanceId} does not wait for approval ${body.approvalId}`);
    }
    const before = clone(profileOf(ctx));
    let after: MemberProfile;
    if (pending.event === 'member_create') {
      // the creation patch is the whole entity: only the status moves on approval (HR may have updated the member meanwhile)
      if (body.action === 'approve') {
        const r = nextMemberStatus(before.status, {
          type: 'creationApproved',
          loginMethod: before.loginMethod,
          hasIdPhoto: Boolean(before.idPhoto),
          hasActiveMembership: hasActiveMembership(before),
        });
        after = { ...before, status: r.ok ? r.to : before.status };
      } else {
        after = { ...before, status: 'rejected' };
      }
    } else {
      const applied = h.applyApprovedChange(before, body);
      // a staff id or email another member took while the change waited: it cannot apply either
      if (!applied.conflict && body.action === 'approve') {
        const taken = await h.lookupConflicts(ctx, before, applied.after);
        if (taken.length) applied.conflict = taken;
      }
      if (applied.conflict) {
        // the member changed meanwhile (e.g. by the HR system): the approved change no longer fits and is dropped
        state.pendingChange = null;
        state.lastApprovalId = body.approvalId;
        ctx.log.warn({ approvalId: body.approvalId, problems: applied.conflict }, 'approved member change no longer applies');
        return { member: before, conflict: applied.conflict };
      }
      after = applied.after;
    }
    if (JSON.stringify(after) !== JSON.stringify(before)) after.updatedAt = new Date().toISOString();
    state.profile = after;
    state.pendingChange = null;
    state.lastApprovalId = body.approvalId;
    syncStaffIdLookup(ctx, after);
    await syncEmailLookup(ctx, after);
    await logMemberChange(ctx, before, after, { approvalId: body.approvalId, action: body.action, event: pending.event });
    return { member: after };
  }

  // ---------------------------------------------------------------- personal, employment, contact (spec 4.5)

  @Read({ access: [...PM] })
  getMemberPersonal(ctx: Ctx) {
    return h.getMemberPersonal(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberPersonal(ctx: Ctx) {
    return h.updateMemberPersonal(ctx);
  }

  @Read({ access: [...PM] })
  getMemberEmployment(ctx: Ctx) {
    return h.getMemberEmployment(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberEmployment(ctx: Ctx) {
    return h.updateMemberEmployment(ctx);
  }

  @Read({ access: [...PM] })
  getMemberContact(ctx: Ctx) {
    return h.getMemberContact(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberContact(ctx: Ctx) {
    return h.updateMemberContact(ctx);
  }

  // ---------------------------------------------------------------- status, listing, streaming

  /** Spec 3.1 "any → requested status" (not the four system-only ones); member_status_update. */
  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberStatus(ctx: Ctx) {
    return h.updateMemberStatus(ctx);
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
    return h.listMembers(ctx);
  }

  /** Manual stream to the document database (the commit re-projects the member). */
  @Write({ access: [...PM] })
  streamMember(ctx: Ctx) {
    return h.streamMember(ctx);
  }

  /** The signed-in member's own profile (enduser only). */
  @Read({ access: ['enduser'] })
  getMemberProfile(ctx: Ctx) {
    return h.getMemberProfile(ctx);
  }

  // ---------------------------------------------------------------- memberships

  @Write({ access: [...PM], timeoutSeconds: 30 })
  addMembership(ctx: Ctx) {
    return h.addMembership(ctx);
  }

  // schema: false: the query and the body are one input, checked together by listing.ts (400 5005 naming the field)
  @Read({ access: [...PM], timeoutSeconds: 30, schema: false })
  listMemberships(ctx: Ctx) {
    return h.listMemberships(ctx);
  }

  // ---------------------------------------------------------------- family members

  @Read({ access: [...PM] })
  getMemberDependants(ctx: Ctx) {
    return h.getMemberDependants(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  addMemberFamilyMember(ctx: Ctx) {
    return h.addMemberFamilyMember(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  updateMemberFamilyMember(ctx: Ctx) {
    return h.updateMemberFamilyMember(ctx);
  }

  @Write({ access: [...PM], timeoutSeconds: 30 })
  removeMemberFamilyMember(ctx: Ctx) {
    return h.removeMemberFamilyMember(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false, upsert: true })
  createFamilyMember(ctx: Ctx) {
    return h.createFamilyMember(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false })
  applyFamilyMemberUpdate(ctx: Ctx) {
    return h.applyFamilyMemberUpdate(ctx);
  }

  @Internal({ access: ['class:Member'], schema: false })
  detachFamilyMember(ctx: Ctx) {
    return h.detachFamilyMember(ctx);
  }

  /** The primary member's family list (for a dependant's company-paid check). */
  @Read({ access: ['class:Member'], schema: false })
  hrPrimaryFamily(ctx: Ctx) {
    return { familyMembers: profileOf(ctx).familyMembers ?? [] };
  }

  // ---------------------------------------------------------------- ID photos

  @Write({ access: [...PM], schema: 'idPhoto', timeoutSeconds: 30 })
  uploadMemberIdPhoto(ctx: Ctx) {
    return h.uploadMemberIdPhoto(ctx);
  }

  /** The member's own photo: only when `active` or `pending_id_photo` (spec 3.1). */
  @Write({ access: ['enduser'], schema: 'idPhoto', timeoutSeconds: 30 })
  uploadMyIdPhoto(ctx: Ctx) {
    return h.uploadMyIdPhoto(ctx);
  }

  // ---------------------------------------------------------------- documents

  @Write({ access: [...PM], timeoutSeconds: 30 })
  uploadDocument(ctx: Ctx) {
    return h.uploadDocument(ctx);
  }

  // schema: false: the query and the body are one input, checked together by listing.ts (400 5005 naming the field)
  @Read({ access: [...PM], schema: false })
  listDocuments(ctx: Ctx) {
    return h.listDocuments(ctx);
  }

  /** Active documents only; a 5-minute URL. */
  @Read({ access: [...PM], schema: 'documentRef' })
  downloadDocument(ctx: Ctx) {
    return h.downloadDocument(ctx, false);
  }

  /** Archived (and active) documents; a permission of its own. */
  @Read({ access: [...PM], schema: 'documentRef' })
  downloadArchivedDocument(ctx: Ctx) {
    return h.downloadDocument(ctx, true);
  }

  @Write({ access: [...PM], schema: 'documentRef' })
  archiveDocument(ctx: Ctx) {
    return h.setDocumentStatus(ctx, 'archived');
  }

  @Write({ access: [...PM], schema: 'documentRef' })
  unarchiveDocument(ctx: Ctx) {
    return h.setDocumentStatus(ctx, 'active');
  }
}

/** the same family entry (createdAt aside: linkFamilyMember keeps the first one) */
function sameRef(a: FamilyMember, b: FamilyMember): boolean {
  return JSON.stringify({ ...a, createdAt: '' }) === JSON.stringify({ ...b, createdAt: '' });
}

function familyRef(p: MemberProfile): FamilyMember {
  return {
    id: p.id,
    relation: p.relation,
    memberSubType: p.memberSubType,
    name: p.name,
    surname: p.surname,
    status: p.status,
    createdAt: p.createdAt,
  };
}
