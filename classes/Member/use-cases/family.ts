/**
 * Family members (spec 4.5): the primary member's list and the dependant
 * instances behind it (created, updated and detached by INTERNAL calls), and
 * linkFamilyMember, which the HR dependant upsert and the seed use.
 */
import { randomUUID } from 'node:crypto';
import type { DeepReadonly } from '../../../runtime';
import { actorFromIdentity, type Actor } from '../../_platform/actor';
import type { CompanyRecord } from '../clients';
import { fieldError, memberError } from '../errors';
import { checkFamilyLimit, freeFamilyMemberIds } from '../family';
import { MEMBERS_COLLECTION } from '../listing';
import { clone, emailKey, logMemberChange, memberIdByLookup, memberState, profileOf, syncEmailLookup, type MemberCtx, type MemberReadCtx } from '../member-state';
import type { FamilyMember, MemberProfile } from '../types';
import { checkMemberTypes, now, reachable, requireCompany } from './common';
import { members } from './self-client';

/** linkFamilyMember's body: the entry, and who made the change (the caller's actor when absent) */
export interface LinkFamilyBody {
  ref: FamilyMember;
  actor?: Actor;
}

/** createFamilyMember's body: the dependant as the primary member's change made it */
export interface CreateFamilyBody {
  profile: MemberProfile;
}

/** detachFamilyMember's body: the primary member asking */
export interface FamilyOfBody {
  primaryMemberId: string;
}

/** the fields of a family member that updateMemberFamilyMember changes (on the dependant's own instance) */
const FAMILY_FIELDS = ['name', 'middleName', 'surname', 'email', 'phone', 'relation', 'memberSubType'] as const;
export type FamilyChanges = Partial<Pick<MemberProfile, (typeof FAMILY_FIELDS)[number]>>;

/** applyFamilyMemberUpdate's body */
export interface FamilyUpdateBody extends FamilyOfBody {
  changes: FamilyChanges;
}

/** addMemberFamilyMember's body (schemas/Member/addMemberFamilyMember.json) */
export interface AddFamilyBody extends FamilyChanges {
  name: string;
  surname: string;
  memberSubType: string;
}

/** updateMemberFamilyMember's body (schemas/Member/updateMemberFamilyMember.json) */
export interface UpdateFamilyBody extends FamilyChanges {
  familyMemberId: string;
}

/** removeMemberFamilyMember's body */
export interface RemoveFamilyBody {
  familyMemberId: string;
}

type FamilyCalls = {
  createFamilyMember: typeof createFamilyMember;
  applyFamilyMemberUpdate: typeof applyFamilyMemberUpdate;
  detachFamilyMember: typeof detachFamilyMember;
};

/**
 * Adds or refreshes a family member entry on the primary member (no change → no write); a change is
 * audit-logged on the primary member, with the actor of the call that made it.
 */
export async function linkFamilyMember(ctx: MemberCtx<LinkFamilyBody>) {
  const { ref, actor } = ctx.request.body;
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

export async function getMemberDependants(ctx: MemberReadCtx) {
  const p = reachable(ctx);
  const { items } = await ctx.documents.find(MEMBERS_COLLECTION, { primaryMemberId: p.id }, { sort: { createdAt: 1 } });
  const byId = new Map(items.map((d) => [String(d._id), d]));
  const dependants = (p.familyMembers ?? []).map((f) => {
    const doc = byId.get(f.id);
    const { _id, _v, _instance, _class, ...rest } = doc ?? {};
    return { ...f, ...rest, id: f.id };
  });
  return { dependants, totalCount: dependants.length };
}

function primaryOnly(p: DeepReadonly<MemberProfile>): void {
  if (p.primaryMemberId) throw memberError('NOT_A_PRIMARY_MEMBER', `Member ${p.id} is a dependant and has no family members of its own`);
}

export async function addMemberFamilyMember(ctx: MemberCtx<AddFamilyBody>) {
  const p = reachable(ctx);
  primaryOnly(p);
  const body = ctx.request.body;
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
    name: body.name,
    middleName: body.middleName ?? null,
    surname: body.surname,
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
  await members<FamilyCalls>(ctx).createFamilyMember(id, { profile: dependant });
  const before = clone(p);
  const ref: FamilyMember = { id, relation: dependant.relation, memberSubType: dependant.memberSubType, name: dependant.name, surname: dependant.surname, status: dependant.status, createdAt: t };
  p.familyMembers = [...(p.familyMembers ?? []), ref];
  p.updatedAt = t;
  await logMemberChange(ctx, before, p, { section: 'family', familyMemberId: id, action: 'add' });
  return { familyMember: dependant, isFree: freeFamilyMemberIds(company, p.familyMembers).includes(id) };
}

export async function updateMemberFamilyMember(ctx: MemberCtx<UpdateFamilyBody>) {
  const p = reachable(ctx);
  primaryOnly(p);
  const body = ctx.request.body;
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
  const updated = await members<FamilyCalls>(ctx).applyFamilyMemberUpdate(familyMemberId, { primaryMemberId: p.id, changes });
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

export async function removeMemberFamilyMember(ctx: MemberCtx<RemoveFamilyBody>) {
  const p = reachable(ctx);
  primaryOnly(p);
  const { familyMemberId } = ctx.request.body;
  if (!(p.familyMembers ?? []).some((f) => f.id === familyMemberId)) {
    throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${p.id} has no family member '${familyMemberId}'`);
  }
  await members<FamilyCalls>(ctx).detachFamilyMember(familyMemberId, { primaryMemberId: p.id });
  const before = clone(p);
  p.familyMembers = p.familyMembers.filter((f) => f.id !== familyMemberId);
  p.updatedAt = now();
  await logMemberChange(ctx, before, p, { section: 'family', familyMemberId, action: 'remove' });
  return { removed: familyMemberId };
}

/** INTERNAL on a new dependant instance (upsert): refuses an id in use. */
export async function createFamilyMember(ctx: MemberCtx<CreateFamilyBody>) {
  const state = memberState(ctx);
  if (ctx.version !== 0 || state.profile) throw memberError('MEMBER_NOT_FOUND', `Member id '${ctx.instanceId}' is already in use`);
  const { profile } = ctx.request.body;
  state.profile = { ...profile, id: ctx.instanceId! };
  state.documents = [];
  if ((await syncEmailLookup(ctx, state.profile)) === 'taken') throw memberError('EMAIL_TAKEN', `Email '${profile.email}' belongs to another member`);
  await logMemberChange(ctx, null, state.profile, { section: 'family', action: 'add' });
  return { id: ctx.instanceId };
}

function copyField<K extends keyof FamilyChanges>(to: FamilyChanges, from: FamilyChanges, k: K): void {
  to[k] = from[k];
}

/** INTERNAL on the dependant: the fields updateMemberFamilyMember changes. */
export async function applyFamilyMemberUpdate(ctx: MemberCtx<FamilyUpdateBody>) {
  const before = profileOf(ctx);
  const { primaryMemberId, changes } = ctx.request.body;
  if (before.primaryMemberId !== primaryMemberId) throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${before.id} is not a family member of ${primaryMemberId}`);
  const picked: FamilyChanges = {};
  const updatedFields: string[] = [];
  for (const f of FAMILY_FIELDS) {
    if (changes[f] === undefined || JSON.stringify(changes[f]) === JSON.stringify(before[f])) continue;
    copyField(picked, changes, f);
    updatedFields.push(f);
  }
  const after: MemberProfile = { ...before, ...picked };
  if (!updatedFields.length) return { profile: before, updatedFields };
  after.updatedAt = now();
  memberState(ctx).profile = after;
  if ((await syncEmailLookup(ctx, after)) === 'taken') throw fieldError('EMAIL_TAKEN', 'email', `Email '${after.email}' belongs to another member`);
  await logMemberChange(ctx, before, after, { section: 'family', action: 'update' });
  return { profile: after, updatedFields };
}

/** INTERNAL on the dependant removed from its family: it becomes inactive (its history stays). */
export async function detachFamilyMember(ctx: MemberCtx<FamilyOfBody>) {
  const before = profileOf(ctx);
  const { primaryMemberId } = ctx.request.body;
  if (before.primaryMemberId !== primaryMemberId) throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${before.id} is not a family member of ${primaryMemberId}`);
  const after: MemberProfile = { ...before, status: 'inactive', statusReason: 'removed_from_family', updatedAt: now() };
  memberState(ctx).profile = after;
  await logMemberChange(ctx, before, after, { section: 'family', action: 'remove' });
  return { id: before.id, status: after.status };
}

/** The primary member's family list (for a dependant's company-paid check). */
export function hrPrimaryFamily(ctx: MemberReadCtx) {
  return { familyMembers: profileOf(ctx).familyMembers ?? [] };
}
