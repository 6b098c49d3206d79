/**
 * Handler bodies shared by several Member methods: ID photos (spec 4.1, 3.1),
 * member creation (member_create) and files in FileManager `member_<id>`.
 */
import { ActorError, UNKNOWN_INSTANCE_CODE, type Ctx } from '../../runtime';
import { actorFromIdentity, type Actor } from '../_platform/actor';
import { runWorkflow, type ApprovalCallbackBody } from '../_platform/workflow';
import { logChange } from '../LogManager/log-client';
import { getCompany, getMemberSubType, getMemberType, type CompanyRecord } from './clients';
import { fieldError, memberError } from './errors';
import {
  clone,
  emailKey,
  hasActiveMembership,
  logMemberChange,
  memberIdByLookup,
  memberState,
  profileOf,
  syncEmailLookup,
  syncStaffIdLookup,
} from './member-state';
import { nextMemberStatus } from './status-machine';
import type { FamilyMember, LoginMethod, MemberPermissions, MemberProfile, PendingPhoto } from './types';
import { recordCompany } from '../_platform/scope';

export const MEMBER_PHOTO_EVENT = 'MEMBER_ID_PHOTO_UPLOAD';
export const MEMBER_CREATE_EVENT = 'member_create';
export const MEMBER_UPDATE_EVENT = 'member_update';
export const MEMBER_STATUS_EVENT = 'member_status_update';

export interface StoredFile {
  id: string;
  filename: string;
  originalFilename?: string;
  mimeType: string;
  size: number;
}

export function fileInstanceOf(memberId: string): string {
  return `member_${memberId}`;
}

/** Stores a file of the member in FileManager; FileManager's errors are thrown as they are. */
export async function storeMemberFileMeta(
  ctx: Ctx,
  memberId: string,
  file: { content: string; mimeType: string; originalFilename: string },
): Promise<StoredFile> {
  const actor: Actor = actorFromIdentity(ctx.identity);
  // the files belong to the member's company (company scope of FileManager)
  const company = recordCompany(ctx);
  const res = await ctx.call('FileManager', 'uploadFile', fileInstanceOf(memberId), { ...file, actor, ...(company ? { companyId: company } : {}) });
  return (res.body as { file: StoredFile }).file;
}

export async function storeMemberFile(ctx: Ctx, memberId: string, file: { content: string; mimeType: string; originalFilename: string }): Promise<string> {
  return (await storeMemberFileMeta(ctx, memberId, file)).filename;
}

/** A 5-minute download link of one of the member's files. */
export async function downloadLink(ctx: Ctx, memberId: string, filename: string): Promise<{ token: string; url: string; expiresAt: string }> {
  const res = await ctx.call('FileManager', 'createDownloadToken', fileInstanceOf(memberId), { filename });
  return res.body as { token: string; url: string; expiresAt: string };
}

/**
 * A new ID photo (stored already) waits for approval: MEMBER_ID_PHOTO_UPLOAD.
 * The member keeps its current photo until the approval; a newer upload
 * replaces a photo still waiting (its approval is then ignored). When the
 * rules approve at once, the photo is applied now.
 */
export async function submitIdPhoto(ctx: Ctx, filename: string, source: PendingPhoto['source']): Promise<{ approvalId: string; approved: boolean }> {
  const state = memberState(ctx);
  const profile = profileOf(ctx);
  const statusOnApproval = nextMemberStatus(profile.status, { type: 'idPhotoUploaded', hasActiveMembership: hasActiveMembership(profile) });
  const newEntity: MemberProfile = { ...profile, idPhoto: filename, status: statusOnApproval.ok ? statusOnApproval.to : profile.status };
  const wf = await runWorkflow(ctx, {
    event: MEMBER_PHOTO_EVENT,
    entityId: profile.id,
    oldEntity: profile,
    newEntity,
    approveCallback: 'approveMemberIdPhoto',
    rejectCallback: 'approveMemberIdPhoto',
    additionalData: { source, previousIdPhoto: profile.idPhoto ?? null, newIdPhoto: filename },
  });
  const pending: PendingPhoto = {
    approvalId: wf.approvalRecord.id,
    idPhoto: filename,
    previousIdPhoto: profile.idPhoto ?? null,
    statusOnApproval: newEntity.status,
    source,
    uploadedBy: actorFromIdentity(ctx.identity),
    uploadedAt: new Date().toISOString(),
  };
  if (wf.isApproved) {
    state.pendingPhoto = pending;
    await applyPhoto(ctx, pending, wf.approvalRecord.id, 'approve');
    return { approvalId: wf.approvalRecord.id, approved: true };
  }
  const supersededApprovalId = state.pendingPhoto?.approvalId ?? null;
  state.pendingPhoto = pending;
  // the submission is an audit entry of its own (spec 4.1 rule 5); the photo itself changes on approval
  await logChange(ctx, {
    entityType: 'member',
    entityId: profile.id,
    before: { pendingIdPhoto: null },
    after: { pendingIdPhoto: filename },
    additionalData: { event: MEMBER_PHOTO_EVENT, approvalId: wf.approvalRecord.id, source, supersededApprovalId },
  });
  return { approvalId: wf.approvalRecord.id, approved: false };
}

async function applyPhoto(ctx: Ctx, pending: PendingPhoto, approvalId: string, action: 'approve' | 'reject') {
  const state = memberState(ctx);
  const before = clone(profileOf(ctx));
  let after = before;
  if (action === 'approve') {
    // the status move of 3.1 is decided now, with the memberships the member has now
    const r = nextMemberStatus(before.status, { type: 'idPhotoUploaded', hasActiveMembership: hasActiveMembership(before) });
    after = { ...before, idPhoto: pending.idPhoto, status: r.ok ? r.to : before.status, updatedAt: new Date().toISOString() };
    state.previousIdPhoto = before.idPhoto ?? null;
  }
  state.profile = after;
  state.pendingPhoto = null;
  state.lastApprovalId = approvalId;
  if (action === 'approve') await logMemberChange(ctx, before, after, { event: MEMBER_PHOTO_EVENT, approvalId, source: pending.source });
  return { member: after, action };
}

/** approveMemberIdPhoto: the approval outcome of a photo (a superseded approval changes nothing). */
export async function settleIdPhoto(ctx: Ctx, body: ApprovalCallbackBody) {
  const state = memberState(ctx);
  const pending = state.pendingPhoto;
  if (!pending || pending.approvalId !== body.approvalId) {
    return { ignored: true, reason: 'superseded or already settled', approvalId: body.approvalId };
  }
  return applyPhoto(ctx, pending, body.approvalId, body.action === 'approve' ? 'approve' : 'reject');
}

export interface CreateMemberBody {
  name: string;
  middleName?: string | null;
  surname: string;
  staffId?: string | null;
  email?: string | null;
  phone?: string | null;
  company: { id: string };
  grade?: string | null;
  loginMethod?: LoginMethod;
  address?: { country: string; address: string } | null;
  memberType: string;
  memberSubType?: string | null;
  note?: string | null;
  permissions?: MemberPermissions;
  /** HR fields kept with the member */
  isCabinCrew?: boolean | null;
  /** class:Member only: created from the HR system (no approval) */
  source?: 'hr_registration';
}

/** Member type and sub type must be active and eligible for the company (spec 4.5 updateMemberPersonal). */
export async function checkMemberTypes(ctx: Ctx, company: CompanyRecord, memberType: string | null, memberSubType: string | null): Promise<void> {
  if (memberType) {
    const mt = await getMemberType(ctx, memberType);
    if (!mt || mt.status !== 'active') throw fieldError('INVALID_MEMBER_TYPE', 'memberType', `Member type '${memberType}' does not exist or is not active`);
    const eligible = company.eligibleMemberTypes ?? [];
    if (eligible.length && !eligible.includes(memberType)) {
      throw fieldError('NOT_ELIGIBLE_FOR_COMPANY', 'memberType', `Member type '${memberType}' is not eligible for company '${company.id}'`);
    }
  }
  if (memberSubType) {
    const st = await getMemberSubType(ctx, memberSubType);
    if (!st || st.status !== 'active') throw fieldError('INVALID_MEMBER_SUB_TYPE', 'memberSubType', `Member sub type '${memberSubType}' does not exist or is not active`);
    const allowed = (company.memberSubTypes ?? []).map((s) => s.memberSubTypeId);
    if (allowed.length && !allowed.includes(memberSubType)) {
      throw fieldError('NOT_ELIGIBLE_FOR_COMPANY', 'memberSubType', `Member sub type '${memberSubType}' is not eligible for company '${company.id}'`);
    }
  }
}

export async function requireCompany(ctx: Ctx, companyId: string): Promise<CompanyRecord> {
  const company = await getCompany(ctx, companyId);
  if (!company) throw fieldError('COMPANY_NOT_FOUND', 'company.id', `Company '${companyId}' does not exist`);
  return company;
}

/** Pure: a company takes new members (or members moved to it) only while it is active. */
export function companyTakesMembers(company: Pick<CompanyRecord, 'status'>): boolean {
  return company.status === 'active';
}

/** The company a member is created in: it must exist and be active. */
export async function requireActiveCompany(ctx: Ctx, companyId: string): Promise<CompanyRecord> {
  const company = await requireCompany(ctx, companyId);
  if (!companyTakesMembers(company)) {
    throw fieldError('COMPANY_NOT_ACTIVE', 'company.id', `Company '${companyId}' is ${company.status}: members are created in active companies only`);
  }
  return company;
}

/** The checks and the new profile shared by createMember and seedMember (status `pending_approval`). */
async function prepareNewMember(ctx: Ctx, body: CreateMemberBody): Promise<MemberProfile> {
  const company = await requireActiveCompany(ctx, body.company.id);
  await checkMemberTypes(ctx, company, body.memberType, body.memberSubType ?? null);
  if (body.staffId) {
    const owner = await memberIdByLookup(ctx, 'staffId', body.staffId);
    if (owner) throw fieldError('STAFF_ID_TAKEN', 'staffId', `Staff id '${body.staffId}' belongs to another member`);
  }
  if (body.email) {
    const owner = await memberIdByLookup(ctx, 'email', emailKey(body.email));
    if (owner) throw fieldError('EMAIL_TAKEN', 'email', `Email '${body.email}' belongs to another member`);
  }
  const now = new Date().toISOString();
  return {
    id: ctx.instanceId!,
    status: 'pending_approval',
    name: body.name,
    middleName: body.middleName ?? null,
    surname: body.surname,
    staffId: body.staffId ?? null,
    email: body.email ?? null,
    phone: body.phone ?? null,
    company: { id: company.id },
    grade: body.grade ?? null,
    idPhoto: null,
    loginMethod: body.loginMethod ?? 'email_password',
    address: body.address ?? null,
    memberType: body.memberType,
    memberSubType: body.memberSubType ?? null,
    memberships: [],
    primaryMemberId: null,
    relation: null,
    familyMembers: [],
    createdBy: actorFromIdentity(ctx.identity),
    note: body.note ?? null,
    permissions: body.permissions ?? { sms: false, email: false },
    previousStaffIds: [],
    statusReason: null,
    ...(body.isCabinCrew !== undefined ? { isCabinCrew: body.isCabinCrew } : {}),
    createdAt: now,
    updatedAt: now,
  };
}

async function storeNewMember(ctx: Ctx, profile: MemberProfile, additionalData: Record<string, unknown>) {
  const state = memberState(ctx);
  state.profile = profile;
  state.documents = [];
  syncStaffIdLookup(ctx, profile);
  if ((await syncEmailLookup(ctx, profile)) === 'taken') throw fieldError('EMAIL_TAKEN', 'email', `Email '${profile.email}' belongs to another member`);
  await logMemberChange(ctx, null, profile, additionalData);
}

/** createMember (INIT): validates, then member_create (approval unless the rules or the actor approve at once). */
export async function createMember(ctx: Ctx) {
  const body = ctx.request.body as CreateMemberBody;
  const state = memberState(ctx);
  const fromHr = body.source === 'hr_registration' && ctx.identity.type === 'class' && ctx.identity.classId === 'Member';
  const profile = await prepareNewMember(ctx, body);
  let approvalId: string | null = null;
  let approved = fromHr;
  if (!fromHr) {
    const wf = await runWorkflow(ctx, {
      event: MEMBER_CREATE_EVENT,
      entityId: profile.id,
      oldEntity: null,
      newEntity: profile,
      approveCallback: 'approveMember',
      rejectCallback: 'approveMember',
    });
    approvalId = wf.approvalRecord.id;
    approved = wf.isApproved;
  }
  if (approved) {
    const r = nextMemberStatus(null, { type: 'creationApproved', loginMethod: profile.loginMethod, hasIdPhoto: false, hasActiveMembership: false });
    if (r.ok) profile.status = r.to;
    state.pendingChange = null;
  } else {
    state.pendingChange = { approvalId: approvalId!, event: MEMBER_CREATE_EVENT, requestedAt: profile.createdAt };
  }
  await storeNewMember(ctx, profile, { event: MEMBER_CREATE_EVENT, approvalId, source: fromHr ? 'hr_registration' : 'back_office' });
  return { member: profile, pendingApprovalId: state.pendingChange?.approvalId ?? null };
}

export interface SeedMemberBody extends CreateMemberBody {
  status?: MemberProfile['status'];
  primaryMemberId?: string | null;
  relation?: string | null;
}

/**
 * seedMember (INTERNAL, upsert; `npm run cli -- seed`): a member as the seed
 * file gives it, created at once (no approval), in the given status or the
 * status creation approval gives. 409 (5026) when the id is taken, so a seed
 * can run again. A dependant (`primaryMemberId`) is listed in its primary
 * member's family (the seed creates primary members first); an unknown
 * primary member is refused (404 5000).
 */
export async function seedMember(ctx: Ctx) {
  if (ctx.version !== 0 || memberState(ctx).profile) throw memberError('ALREADY_REGISTERED', `Member '${ctx.instanceId}' exists already`);
  const body = ctx.request.body as SeedMemberBody;
  const profile = await prepareNewMember(ctx, body);
  const r = nextMemberStatus(null, { type: 'creationApproved', loginMethod: profile.loginMethod, hasIdPhoto: false, hasActiveMembership: false });
  profile.status = body.status ?? (r.ok ? r.to : 'pending_invite');
  profile.primaryMemberId = body.primaryMemberId ?? null;
  profile.relation = body.relation ?? null;
  if (profile.primaryMemberId) await checkSeedPrimary(ctx, profile.primaryMemberId);
  await storeNewMember(ctx, profile, { source: 'seed' });
  if (profile.primaryMemberId) {
    // last, so that nothing of this member can still fail once the primary member lists it
    const ref: FamilyMember = {
      id: profile.id,
      relation: profile.relation,
      memberSubType: profile.memberSubType,
      name: profile.name,
      surname: profile.surname,
      status: profile.status,
      createdAt: profile.createdAt,
    };
    await ctx.call('Member', 'linkFamilyMember', profile.primaryMemberId, { ref, actor: actorFromIdentity(ctx.identity) });
  }
  return { member: profile };
}

/** The primary member of a seeded dependant exists (404 5000 on primaryMemberId otherwise). */
async function checkSeedPrimary(ctx: Ctx, primaryMemberId: string): Promise<void> {
  if (primaryMemberId === ctx.instanceId) throw fieldError('NOT_A_PRIMARY_MEMBER', 'primaryMemberId', 'A member cannot be its own primary member');
  try {
    await ctx.call('Member', 'resolveMemberId', primaryMemberId, {});
  } catch (err) {
    if (isNotFound(err)) throw fieldError('MEMBER_NOT_FOUND', 'primaryMemberId', `Primary member '${primaryMemberId}' does not exist`);
    throw err;
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ActorError && (err.status === 404 || err.code === UNKNOWN_INSTANCE_CODE);
}
