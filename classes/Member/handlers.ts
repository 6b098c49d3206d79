/**
 * Bodies of Member's back-office and member operations (spec 4.5): parse,
 * call the pure rule, write state. The class file only declares them.
 */
import { randomUUID } from 'node:crypto';
import { ActorError, type Ctx } from '../../runtime';
import { actorFromIdentity } from '../_platform/actor';
import { logChange } from '../LogManager/log-client';
import { PatchConflictError, runWorkflow, applyApprovalCallback, approvalSummary, type ApprovalCallbackBody } from '../_platform/workflow';
import { getTier, type CompanyRecord, type TierRecord } from './clients';
import { listingInput } from '../_platform/paging';
import { fieldError, memberError } from './errors';
import { checkFamilyLimit, documentListing, documentTypeProblem, findDocument, freeFamilyMemberIds, moveDocument } from './family';
import { checkPhotoExtension, PHOTO_MIME, ALLOWED_PHOTO_EXTENSIONS } from './hr-contract';
import {
  invalidQuery,
  listMembersFilter,
  MEMBERS_COLLECTION,
  pageAnswer,
  parseDocumentListQuery,
  parseListMembersQuery,
  parseMembershipListQuery,
} from './listing';
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
import { filterMemberships, newMembership, refusalError, type AddMembershipInput } from './memberships';
import {
  checkMemberTypes,
  downloadLink,
  MEMBER_STATUS_EVENT,
  MEMBER_UPDATE_EVENT,
  requireCompany,
  storeMemberFileMeta,
  submitIdPhoto,
} from './operations';
import { nextMemberStatus } from './status-machine';
import type { DocumentStatus, FamilyMember, MemberDocument, MemberPrivateState, MemberProfile } from './types';

// ---------------------------------------------------------------- guards

/**
 * The member, after checking the caller may reach it: endusers only themselves.
 * Company users reach only their company's members: the platform's company
 * scope (tenancy in Member.class.ts) has checked that before the handler ran.
 */
export function reachable(ctx: Ctx): MemberProfile {
  const p = profileOf(ctx);
  if ((ctx.identity.type === 'enduser' || ctx.identity.type === 'member_otp') && ctx.identity.userId !== p.id) {
    throw memberError('NOT_YOUR_MEMBER', 'A member may only reach itself');
  }
  return p;
}

function refuseWhilePending(state: MemberPrivateState): void {
  if (state.pendingChange) {
    throw memberError('APPROVAL_PENDING', `Member ${state.profile.id} waits for approval ${state.pendingChange.approvalId} (${state.pendingChange.event})`, {
      approvalId: state.pendingChange.approvalId,
    });
  }
}

/** FileManager's unsupported-type refusal (13001): the declared type, not the content, is wrong */
const FILE_TYPE_REFUSED = 13001;

/** A FileManager refusal (4xx) as 400 5027 on the content field (or the type field); its own failure as 500 5030. */
function fileError(err: unknown, fields: { content: string; type: string }): ActorError {
  if (err instanceof ActorError && err.status < 500) {
    const field = err.code === FILE_TYPE_REFUSED ? fields.type : fields.content;
    return fieldError('INVALID_FILE', field, `The file was refused: ${err.message}`, { code: err.code, message: err.message });
  }
  const e = err as { code?: unknown; message?: unknown };
  return memberError('FILE_STORE_FAILED', 'The file could not be stored', { code: e?.code, message: String(e?.message ?? err) });
}


/**
 * A profile change through the workflow (member_update, member_status_update):
 * applied now when approved at once, otherwise kept waiting (no other change
 * until the approval is reviewed).
 */
async function changeProfile(ctx: Ctx, requested: MemberProfile, event: string, additionalData: Record<string, unknown> = {}) {
  const state = memberState(ctx);
  refuseWhilePending(state);
  const before = state.profile;
  if (JSON.stringify({ ...before, updatedAt: '' }) === JSON.stringify({ ...requested, updatedAt: '' })) {
    return { member: before, updatedFields: [], approval: null, pendingApprovalId: null };
  }
  const updatedFields = (Object.keys(requested) as (keyof MemberProfile)[]).filter(
    (k) => k !== 'updatedAt' && JSON.stringify(before[k] ?? null) !== JSON.stringify(requested[k] ?? null),
  );
  const wf = await runWorkflow(ctx, {
    event,
    entityId: before.id,
    oldEntity: before,
    newEntity: requested,
    approveCallback: 'approveMember',
    rejectCallback: 'approveMember',
    additionalData: { ...additionalData, updatedFields },
  });
  if (wf.isApproved) {
    const after = wf.simulatedApprovedState;
    state.profile = after;
    syncStaffIdLookup(ctx, after);
    if ((await syncEmailLookup(ctx, after)) === 'taken') throw fieldError('EMAIL_TAKEN', 'email', `Email '${after.email}' belongs to another member`);
    await logMemberChange(ctx, before, after, { event, approvalId: wf.approvalRecord.id });
  } else {
    state.pendingChange = { approvalId: wf.approvalRecord.id, event, requestedAt: new Date().toISOString() };
  }
  return { member: state.profile, updatedFields, approval: approvalSummary(wf.approvalRecord), pendingApprovalId: state.pendingChange?.approvalId ?? null };
}

/** approveMember for member_update / member_status_update: apply the patch, or drop a change that no longer fits. */
export function applyApprovedChange(before: MemberProfile, body: ApprovalCallbackBody): { after: MemberProfile; conflict?: string[] } {
  try {
    return { after: applyApprovalCallback(before, body) };
  } catch (err) {
    if (err instanceof PatchConflictError) return { after: before, conflict: err.problems };
    throw err;
  }
}

/**
 * Lookup keys an approved change would take from another member: the staff id
 * or email it sets when another member holds it by now (a change waiting for
 * approval does not hold them). approveMember drops such a change as it drops
 * one that no longer fits; applying it could not commit.
 */
export async function lookupConflicts(ctx: Ctx, before: MemberProfile, after: MemberProfile): Promise<string[]> {
  const problems: string[] = [];
  if (after.staffId && after.staffId !== before.staffId) {
    const owner = await memberIdByLookup(ctx, 'staffId', after.staffId);
    if (owner && owner !== before.id) problems.push(`staffId '${after.staffId}' belongs to member ${owner}`);
  }
  if (after.email && emailKey(after.email) !== (before.email ? emailKey(before.email) : null)) {
    const owner = await memberIdByLookup(ctx, 'email', emailKey(after.email));
    if (owner && owner !== before.id) problems.push(`email '${after.email}' belongs to member ${owner}`);
  }
  return problems;
}

const now = () => new Date().toISOString();

// ---------------------------------------------------------------- personal, employment, contact

export async function getMemberPersonal(ctx: Ctx) {
  const p = reachable(ctx);
  const state = memberState(ctx);
  const photo = p.idPhoto ? { filename: p.idPhoto, ...(await downloadLink(ctx, p.id, p.idPhoto)) } : null;
  let pendingApproval = null;
  if (state.pendingPhoto) {
    const pp = state.pendingPhoto;
    pendingApproval = {
      approvalId: pp.approvalId,
      uploadedAt: pp.uploadedAt,
      oldPhoto: pp.previousIdPhoto ? { filename: pp.previousIdPhoto, ...(await downloadLink(ctx, p.id, pp.previousIdPhoto)) } : null,
      newPhoto: { filename: pp.idPhoto, ...(await downloadLink(ctx, p.id, pp.idPhoto)) },
    };
  }
  return {
    id: p.id,
    name: p.name,
    middleName: p.middleName,
    surname: p.surname,
    staffId: p.staffId,
    previousStaffIds: p.previousStaffIds ?? [],
    memberType: p.memberType,
    memberSubType: p.memberSubType,
    status: p.status,
    idPhoto: photo,
    pendingApproval,
    pendingChange: state.pendingChange ?? null,
  };
}

export async function updateMemberPersonal(ctx: Ctx) {
  const p = reachable(ctx);
  const body = ctx.request.body as Partial<Pick<MemberProfile, 'name' | 'middleName' | 'surname' | 'staffId' | 'memberType' | 'memberSubType'>>;
  const requested: MemberProfile = { ...p, ...body, updatedAt: now() };
  if (body.memberType !== undefined || body.memberSubType !== undefined) {
    const company = await requireCompany(ctx, p.company.id);
    await checkMemberTypes(
      ctx,
      company,
      body.memberType !== undefined && body.memberType !== p.memberType ? requested.memberType : null,
      body.memberSubType !== undefined && body.memberSubType !== p.memberSubType ? requested.memberSubType : null,
    );
  }
  if (body.staffId && body.staffId !== p.staffId) {
    const owner = await memberIdByLookup(ctx, 'staffId', body.staffId);
    if (owner && owner !== p.id) throw fieldError('STAFF_ID_TAKEN', 'staffId', `Staff id '${body.staffId}' belongs to another member`);
    requested.previousStaffIds = p.staffId && !(p.previousStaffIds ?? []).includes(p.staffId) ? [...(p.previousStaffIds ?? []), p.staffId] : p.previousStaffIds ?? [];
  }
  return changeProfile(ctx, requested, MEMBER_UPDATE_EVENT, { section: 'personal' });
}

export function getMemberEmployment(ctx: Ctx) {
  const p = reachable(ctx);
  return {
    id: p.id,
    staffId: p.staffId,
    company: p.company,
    grade: p.grade,
    memberType: p.memberType,
    coreGrade: p.coreGrade ?? null,
    lastDayOfService: p.lastDayOfService ?? null,
    isCabinCrew: p.isCabinCrew ?? null,
  };
}

export async function updateMemberEmployment(ctx: Ctx) {
  const p = reachable(ctx);
  const body = ctx.request.body as { grade?: string | null; company?: { id: string } };
  if (body.company && body.company.id !== p.company.id) {
    throw fieldError('COMPANY_CHANGE_NOT_ALLOWED', 'company.id', "A member's company cannot be changed (only the HR system reassigns it)");
  }
  return changeProfile(ctx, { ...p, ...(body.grade !== undefined ? { grade: body.grade } : {}), updatedAt: now() }, MEMBER_UPDATE_EVENT, { section: 'employment' });
}

export function getMemberContact(ctx: Ctx) {
  const p = reachable(ctx);
  return { id: p.id, email: p.email, phone: p.phone, address: p.address, permissions: p.permissions };
}

export async function updateMemberContact(ctx: Ctx) {
  const p = reachable(ctx);
  const body = ctx.request.body as Partial<Pick<MemberProfile, 'phone' | 'address' | 'permissions'>>;
  const requested: MemberProfile = {
    ...p,
    ...(body.phone !== undefined ? { phone: body.phone } : {}),
    ...(body.address !== undefined ? { address: body.address } : {}),
    ...(body.permissions !== undefined ? { permissions: { ...p.permissions, ...body.permissions } } : {}),
    updatedAt: now(),
  };
  return changeProfile(ctx, requested, MEMBER_UPDATE_EVENT, { section: 'contact' });
}

// ---------------------------------------------------------------- status

export async function updateMemberStatus(ctx: Ctx) {
  const p = reachable(ctx);
  const { status, reason } = ctx.request.body as { status: string; reason?: string | null };
  const r = nextMemberStatus(p.status, { type: 'updateMemberStatus', target: status });
  if (!r.ok) throw fieldError(r.error, 'status', r.message, { status });
  const requested: MemberProfile = { ...p, status: r.to, statusReason: reason ?? null, updatedAt: now() };
  return changeProfile(ctx, requested, MEMBER_STATUS_EVENT, { requestedStatus: r.to });
}

// ---------------------------------------------------------------- photos

async function storePhoto(ctx: Ctx, p: MemberProfile, source: 'program_management_user' | 'enduser') {
  const { photo, fileExtension } = ctx.request.body as { photo: string; fileExtension: string };
  const ext = checkPhotoExtension(fileExtension);
  if (!ext) {
    throw fieldError('INVALID_FILE', 'fileExtension', `Invalid file extension '${fileExtension}'. Allowed extensions: ${ALLOWED_PHOTO_EXTENSIONS.join(', ')}`, {
      allowed: ALLOWED_PHOTO_EXTENSIONS,
    });
  }
  let file;
  try {
    file = await storeMemberFileMeta(ctx, p.id, { content: photo, mimeType: PHOTO_MIME[ext], originalFilename: `${p.staffId ?? p.id}-id-photo.${ext}` });
  } catch (err) {
    throw fileError(err, { content: 'photo', type: 'fileExtension' });
  }
  const submitted = await submitIdPhoto(ctx, file.filename, source);
  return { filename: file.filename, ...submitted };
}

export async function uploadMemberIdPhoto(ctx: Ctx) {
  const p = reachable(ctx);
  const r = await storePhoto(ctx, p, 'program_management_user');
  return { idPhoto: r.filename, approvalId: r.approvalId, approved: r.approved, member: memberState(ctx).profile };
}

export async function uploadMyIdPhoto(ctx: Ctx) {
  const p = reachable(ctx);
  if (p.status !== 'active' && p.status !== 'pending_id_photo') {
    throw memberError('PHOTO_UPLOAD_NOT_ALLOWED', `A member in status '${p.status}' cannot upload an ID photo (only active or pending_id_photo)`);
  }
  const r = await storePhoto(ctx, p, 'enduser');
  return {
    approvalId: r.approvalId,
    approved: r.approved,
    status: memberState(ctx).profile.status,
    photo: { filename: r.filename, ...(await downloadLink(ctx, p.id, r.filename)) },
  };
}

// ---------------------------------------------------------------- the member's own profile

export async function getMemberProfile(ctx: Ctx) {
  const p = reachable(ctx);
  const state = memberState(ctx);
  const pp = state.pendingPhoto;
  return {
    id: p.id,
    name: p.name,
    middleName: p.middleName,
    surname: p.surname,
    email: p.email,
    phone: p.phone,
    company: p.company,
    status: p.status,
    idPhoto: p.idPhoto ? { filename: p.idPhoto, ...(await downloadLink(ctx, p.id, p.idPhoto)) } : null,
    hasWaitingApproval: Boolean(pp || state.pendingChange),
    approval: pp
      ? {
          approvalId: pp.approvalId,
          uploadedAt: pp.uploadedAt,
          newPhoto: { filename: pp.idPhoto, ...(await downloadLink(ctx, p.id, pp.idPhoto)) },
          oldPhoto: pp.previousIdPhoto ? { filename: pp.previousIdPhoto, ...(await downloadLink(ctx, p.id, pp.previousIdPhoto)) } : null,
        }
      : null,
  };
}

// ---------------------------------------------------------------- memberships

export async function addMembership(ctx: Ctx) {
  const p = reachable(ctx);
  const state = memberState(ctx);
  refuseWhilePending(state);
  const input = ctx.request.body as AddMembershipInput;
  const company = await requireCompany(ctx, p.company.id);
  const tier = await getTier(ctx, input.tierId);
  let dependantIsFree = false;
  if (p.primaryMemberId && input.paymentType === 'company_paid') {
    const family = ((await ctx.call('Member', 'hrPrimaryFamily', p.primaryMemberId, {})).body as { familyMembers: FamilyMember[] }).familyMembers;
    dependantIsFree = freeFamilyMemberIds(company, family).includes(p.id);
  }
  const r = newMembership({ profile: p, company, tier, input, dependantIsFree, actor: actorFromIdentity(ctx.identity), now: now(), id: randomUUID() });
  if (!r.ok) throw refusalError(r);
  const requested: MemberProfile = { ...p, memberships: [...(p.memberships ?? []), r.membership], updatedAt: now() };
  const moved = nextMemberStatus(p.status, { type: 'membershipAdded' });
  if (moved.ok) requested.status = moved.to;
  const out = await changeProfile(ctx, requested, MEMBER_UPDATE_EVENT, { section: 'memberships', membershipId: r.membership.id });
  return { membership: r.membership, ...out };
}

export async function listMemberships(ctx: Ctx) {
  const p = reachable(ctx);
  const parsed = parseMembershipListQuery(listingInput(ctx));
  if (!parsed.ok) throw invalidQuery(parsed.errors);
  const page = parsed.query;
  const all = filterMemberships(p.memberships ?? [], { tierId: page.tierId, tierGroup: page.tierGroup, status: page.status });
  const slice = all.slice(page.skip, page.skip + page.limit);
  const tiers = new Map<string, TierRecord | null>();
  for (const id of new Set(slice.map((m) => m.tierId))) tiers.set(id, await getTier(ctx, id));
  const memberships = slice.map((m) => {
    const t = tiers.get(m.tierId);
    return { ...m, tierName: t?.name ?? null, tierType: t?.tierType ?? null, fee: t?.fee ?? null };
  });
  return pageAnswer('memberships', memberships, all.length, page);
}

// ---------------------------------------------------------------- family members

export async function getMemberDependants(ctx: Ctx) {
  const p = reachable(ctx);
  const { items } = await ctx.documents.find(MEMBERS_COLLECTION, { primaryMemberId: p.id }, { sort: { createdAt: 1 } });
  const byId = new Map(items.map((d) => [String(d._id), d]));
  const dependants = (p.familyMembers ?? []).map((f) => {
    const doc = byId.get(f.id);
    const { _id, _v, _instance, _class, ...rest } = (doc ?? {}) as Record<string, unknown>;
    return { ...f, ...rest, id: f.id };
  });
  return { dependants, totalCount: dependants.length };
}

interface FamilyBody {
  familyMemberId?: string;
  name?: string;
  middleName?: string | null;
  surname?: string;
  email?: string | null;
  phone?: string | null;
  relation?: string | null;
  memberSubType?: string;
}

function primaryOnly(p: MemberProfile): void {
  if (p.primaryMemberId) throw memberError('NOT_A_PRIMARY_MEMBER', `Member ${p.id} is a dependant and has no family members of its own`);
}

export async function addMemberFamilyMember(ctx: Ctx) {
  const p = reachable(ctx);
  primaryOnly(p);
  const body = ctx.request.body as FamilyBody & { memberSubType: string };
  const company = await requireCompany(ctx, p.company.id);
  await checkMemberTypes(ctx, company, null, body.memberSubType);
  const limit = checkFamilyLimit(company, p.familyMembers ?? [], body.memberSubType);
  if (!limit.ok) throw fieldError(limit.error, 'memberSubType', limit.message, limit.details);
  if (body.email) {
    const owner = await memberIdByLookup(ctx, 'email', emailKey(body.email));
    if (owner) throw fieldError('EMAIL_TAKEN', 'email', `Email '${body.email}' belongs to another member`);
  }
  const id = randomUUID();
  const t = now();
  const dependant: MemberProfile = {
    id,
    status: 'pending_id_photo',
    name: body.name!,
    middleName: body.middleName ?? null,
    surname: body.surname!,
    staffId: null,
    email: body.email ?? null,
    phone: body.phone ?? null,
    company: { id: p.company.id },
    grade: null,
    idPhoto: null,
    loginMethod: p.loginMethod,
    address: p.address,
    memberType: p.memberType,
    memberSubType: body.memberSubType,
    memberships: [],
    primaryMemberId: p.id,
    relation: body.relation ?? null,
    familyMembers: [],
    createdBy: actorFromIdentity(ctx.identity),
    note: null,
    permissions: { sms: false, email: false },
    previousStaffIds: [],
    statusReason: null,
    createdAt: t,
    updatedAt: t,
  };
  await ctx.call('Member', 'createFamilyMember', id, { profile: dependant });
  const before = clone(p);
  const ref: FamilyMember = { id, relation: dependant.relation, memberSubType: dependant.memberSubType, name: dependant.name, surname: dependant.surname, status: dependant.status, createdAt: t };
  p.familyMembers = [...(p.familyMembers ?? []), ref];
  p.updatedAt = t;
  await logMemberChange(ctx, before, p, { section: 'family', familyMemberId: id, action: 'add' });
  return { familyMember: dependant, isFree: freeFamilyMemberIds(company, p.familyMembers).includes(id) };
}

export async function updateMemberFamilyMember(ctx: Ctx) {
  const p = reachable(ctx);
  primaryOnly(p);
  const body = ctx.request.body as FamilyBody & { familyMemberId: string };
  const i = (p.familyMembers ?? []).findIndex((f) => f.id === body.familyMemberId);
  if (i < 0) throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${p.id} has no family member '${body.familyMemberId}'`);
  let company: CompanyRecord | null = null;
  if (body.memberSubType && body.memberSubType !== p.familyMembers[i]!.memberSubType) {
    company = await requireCompany(ctx, p.company.id);
    await checkMemberTypes(ctx, company, null, body.memberSubType);
    const limit = checkFamilyLimit(company, p.familyMembers, body.memberSubType, body.familyMemberId);
    if (!limit.ok) throw fieldError(limit.error, 'memberSubType', limit.message, limit.details);
  }
  const { familyMemberId, ...changes } = body;
  const res = await ctx.call('Member', 'applyFamilyMemberUpdate', familyMemberId, { primaryMemberId: p.id, changes });
  const updated = (res.body as { profile: MemberProfile; updatedFields: string[] });
  const dep = updated.profile;
  const ref: FamilyMember = { ...p.familyMembers[i]!, relation: dep.relation, memberSubType: dep.memberSubType, name: dep.name, surname: dep.surname, status: dep.status };
  if (JSON.stringify(ref) !== JSON.stringify(p.familyMembers[i])) {
    const before = clone(p);
    p.familyMembers = p.familyMembers.map((f, j) => (j === i ? ref : f));
    p.updatedAt = now();
    await logMemberChange(ctx, before, p, { section: 'family', familyMemberId, action: 'update' });
  }
  return { familyMember: dep, updatedFields: updated.updatedFields };
}

export async function removeMemberFamilyMember(ctx: Ctx) {
  const p = reachable(ctx);
  primaryOnly(p);
  const { familyMemberId } = ctx.request.body as { familyMemberId: string };
  if (!(p.familyMembers ?? []).some((f) => f.id === familyMemberId)) {
    throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${p.id} has no family member '${familyMemberId}'`);
  }
  await ctx.call('Member', 'detachFamilyMember', familyMemberId, { primaryMemberId: p.id });
  const before = clone(p);
  p.familyMembers = p.familyMembers.filter((f) => f.id !== familyMemberId);
  p.updatedAt = now();
  await logMemberChange(ctx, before, p, { section: 'family', familyMemberId, action: 'remove' });
  return { removed: familyMemberId };
}

/** INTERNAL on a new dependant instance (upsert): refuses an id in use. */
export async function createFamilyMember(ctx: Ctx) {
  const state = memberState(ctx);
  if (ctx.version !== 0 || state.profile) throw memberError('MEMBER_NOT_FOUND', `Member id '${ctx.instanceId}' is already in use`);
  const { profile } = ctx.request.body as { profile: MemberProfile };
  state.profile = { ...profile, id: ctx.instanceId! };
  state.documents = [];
  if ((await syncEmailLookup(ctx, state.profile)) === 'taken') throw memberError('EMAIL_TAKEN', `Email '${profile.email}' belongs to another member`);
  await logMemberChange(ctx, null, state.profile, { section: 'family', action: 'add' });
  return { id: ctx.instanceId };
}

const FAMILY_FIELDS = ['name', 'middleName', 'surname', 'email', 'phone', 'relation', 'memberSubType'] as const;

/** INTERNAL on the dependant: the fields updateMemberFamilyMember changes. */
export async function applyFamilyMemberUpdate(ctx: Ctx) {
  const before = profileOf(ctx);
  const { primaryMemberId, changes } = ctx.request.body as { primaryMemberId: string; changes: FamilyBody };
  if (before.primaryMemberId !== primaryMemberId) throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${before.id} is not a family member of ${primaryMemberId}`);
  const after: MemberProfile = { ...before };
  const updatedFields: string[] = [];
  for (const f of FAMILY_FIELDS) {
    if (changes[f] === undefined || JSON.stringify(changes[f]) === JSON.stringify(before[f])) continue;
    (after as unknown as Record<string, unknown>)[f] = changes[f];
    updatedFields.push(f);
  }
  if (!updatedFields.length) return { profile: before, updatedFields };
  after.updatedAt = now();
  memberState(ctx).profile = after;
  if ((await syncEmailLookup(ctx, after)) === 'taken') throw fieldError('EMAIL_TAKEN', 'email', `Email '${after.email}' belongs to another member`);
  await logMemberChange(ctx, before, after, { section: 'family', action: 'update' });
  return { profile: after, updatedFields };
}

/** INTERNAL on the dependant removed from its family: it becomes inactive (its history stays). */
export async function detachFamilyMember(ctx: Ctx) {
  const before = profileOf(ctx);
  const { primaryMemberId } = ctx.request.body as { primaryMemberId: string };
  if (before.primaryMemberId !== primaryMemberId) throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${before.id} is not a family member of ${primaryMemberId}`);
  const after: MemberProfile = { ...before, status: 'inactive', statusReason: 'removed_from_family', updatedAt: now() };
  memberState(ctx).profile = after;
  await logMemberChange(ctx, before, after, { section: 'family', action: 'remove' });
  return { id: before.id, status: after.status };
}

// ---------------------------------------------------------------- documents

export async function uploadDocument(ctx: Ctx) {
  const p = reachable(ctx);
  const body = ctx.request.body as { content: string; mimeType: string; originalFilename: string; label?: string | null };
  const typeProblem = documentTypeProblem(body.mimeType);
  if (typeProblem) throw fieldError('INVALID_FILE', 'mimeType', typeProblem);
  let file;
  try {
    file = await storeMemberFileMeta(ctx, p.id, { content: body.content, mimeType: body.mimeType, originalFilename: body.originalFilename });
  } catch (err) {
    throw fileError(err, { content: 'content', type: 'mimeType' });
  }
  const t = now();
  const doc: MemberDocument = {
    id: randomUUID(),
    fileId: file.id,
    filename: file.filename,
    originalFilename: body.originalFilename,
    label: body.label ?? null,
    mimeType: file.mimeType,
    size: file.size,
    status: 'active',
    uploadedBy: actorFromIdentity(ctx.identity),
    uploadedAt: t,
    updatedAt: t,
  };
  const state = memberState(ctx);
  state.documents = [...(state.documents ?? []), doc];
  await logDocuments(ctx, null, doc);
  return { documentId: doc.id, document: doc, download: await downloadLink(ctx, p.id, doc.filename) };
}

async function logDocuments(ctx: Ctx, before: MemberDocument | null, after: MemberDocument) {
  await logChange(ctx, {
    entityType: 'member_document',
    entityId: after.id,
    before: before as unknown as Record<string, unknown> | null,
    after: after as unknown as Record<string, unknown>,
    additionalData: { memberId: ctx.instanceId },
  });
}

export function listDocuments(ctx: Ctx) {
  reachable(ctx);
  const parsed = parseDocumentListQuery(listingInput(ctx));
  if (!parsed.ok) throw invalidQuery(parsed.errors);
  const page = parsed.query;
  const all = documentListing(memberState(ctx).documents, page.status);
  return pageAnswer('documents', all.slice(page.skip, page.skip + page.limit), all.length, page);
}

/** The document named by `documentId` (body, or query for GET): 400 (5028) without one, 404 (5018) when there is none. */
function documentOf(ctx: Ctx): MemberDocument {
  const { documentId } = listingInput(ctx);
  if (typeof documentId !== 'string' || !documentId) {
    throw fieldError('INVALID_INPUT', 'documentId', 'documentId is required (a string, in the body or the query)');
  }
  const r = findDocument(memberState(ctx).documents, documentId);
  if (!r.ok) throw memberError(r.error, r.message);
  return r.doc;
}

export async function downloadDocument(ctx: Ctx, archivedToo: boolean) {
  const p = reachable(ctx);
  const doc = documentOf(ctx);
  if (!archivedToo && doc.status === 'archived') {
    throw memberError('DOCUMENT_ARCHIVED', `Document '${doc.id}' is archived; downloadArchivedDocument downloads archived documents`);
  }
  return { documentId: doc.id, status: doc.status, ...(await downloadLink(ctx, p.id, doc.filename)) };
}

export async function setDocumentStatus(ctx: Ctx, to: DocumentStatus) {
  reachable(ctx);
  const doc = documentOf(ctx);
  const r = moveDocument(doc, to, now());
  if (!r.ok) throw memberError(r.error, r.message);
  const state = memberState(ctx);
  state.documents = (state.documents ?? []).map((d) => (d.id === doc.id ? r.doc : d));
  await logDocuments(ctx, doc, r.doc);
  return { documentId: doc.id, status: to };
}

// ---------------------------------------------------------------- listing

export async function listMembers(ctx: Ctx) {
  const parsed = parseListMembersQuery(listingInput(ctx));
  if (!parsed.ok) throw invalidQuery(parsed.errors);
  const q = parsed.query;
  // a company user's listing is limited to its company by the platform (the collection's tenantField)
  const filter = listMembersFilter(q);
  const { items, total } = await ctx.documents.find(MEMBERS_COLLECTION, filter, { sort: { createdAt: -1, _id: 1 }, skip: q.skip, limit: q.limit });
  const members = items.map(({ _id, _v, _instance, _class, emailLower, ...doc }) => doc);
  return pageAnswer('members', members, total, q);
}

export function streamMember(ctx: Ctx) {
  const p = reachable(ctx);
  const state = memberState(ctx) as MemberPrivateState & { streamedAt?: string };
  state.streamedAt = now();
  return { streamed: true, id: p.id, collection: MEMBERS_COLLECTION };
}

export { hasActiveMembership };
