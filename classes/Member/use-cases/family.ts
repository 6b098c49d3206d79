/**
 * Family members (spec 4.5): the primary member's list and the dependant
 * instances behind it, and linkFamilyMember, which the HR dependant upsert
 * and the seed use.
 *
 * What a family change does to the dependant (create it, change its fields,
 * detach it) is a committed effect of the primary member's change
 * (createFamilyMember, applyFamilyMemberUpdate, detachFamilyMember, INTERNAL
 * on the dependant): it is applied after the primary member's commit,
 * effectively once, and not at all when the primary member's handler fails
 * or its commit is refused. The primary member decides and answers without
 * waiting for it: the new dependant's id is chosen up front, and an update is
 * answered from the dependant as read before (familyMemberOf) with the
 * changes applied (applyFamilyChanges, the rule the dependant applies too).
 * The dependant exists, changed, when the caller is answered (the runtime
 * applies a change's effects before answering).
 */
import { randomUUID } from 'node:crypto';
import { ActorError, isUnknownInstance, RuntimeCodes, type DeepReadonly } from '../../../runtime';
import { actorFromIdentity, type Actor } from '../../_platform/actor';
import { isErased, type ErasureSettings } from '../erasure-rules';
import { fieldError, memberError, MemberErrors } from '../errors';
import { applyFamilyChanges, checkFamilyLimit, freeFamilyMemberIds, type FamilyChanges } from '../family';
import { memberDocument } from '../listing-rules';
import {
  clone,
  emailKey,
  erasedMemberError,
  logMemberChange,
  memberIdByLookup,
  memberState,
  profileOf,
  syncEmailLookup,
  type MemberCtx,
  type MemberReadCtx,
} from '../member-state';
import type { FamilyMember, MemberProfile } from '../types';
import { checkMemberTypes, now, reachable, requireCompany } from './common';
import { refuseErasedPerson } from './erased-person';
import { members } from './self-client';
import type {
  AddMemberFamilyMemberInput,
  RemoveMemberFamilyMemberInput,
  UpdateMemberFamilyMemberInput,
} from '../../../schemas/Member/inputs';

/** linkFamilyMember's body: the entry, and who made the change (the caller's actor when absent) */
export interface LinkFamilyBody {
  ref: FamilyMember;
  actor?: Actor;
}

/** createFamilyMember's body: the dependant as the primary member's change made it */
export interface CreateFamilyBody {
  profile: MemberProfile;
}

/** familyMemberOf's and detachFamilyMember's body: the primary member asking */
export interface FamilyOfBody {
  primaryMemberId: string;
}

/** applyFamilyMemberUpdate's body */
export interface FamilyUpdateBody extends FamilyOfBody {
  changes: FamilyChanges;
  /** the time of the change (the dependant's updatedAt, as the primary member answered it) */
  at: string;
}

/**
 * Adds or refreshes a family member entry on the primary member (no change → no write); a change is
 * audit-logged on the primary member, with the actor of the call that made it.
 */
export async function linkFamilyMember(ctx: MemberCtx<LinkFamilyBody>) {
  const { ref, actor } = ctx.request.body;
  const before = profileOf(ctx);
  const list = before.familyMembers ?? [];
  const i = list.findIndex((f) => f.id === ref.id);
  const merged = i >= 0 ? { ...list[i], ...ref, createdAt: list[i].createdAt } : ref;
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

/**
 * The primary member's family list, each entry with its dependant as listed
 * (memberDocument), read from the dependant's own instance (familyMemberOf,
 * which also checks it is this member's): never from the `members` listing,
 * which an api process without a projector or MongoDB does not have. An entry
 * whose dependant cannot be read as this member's (not created yet, moved, or
 * outside the caller's company) is answered as the list holds it.
 */
export async function getMemberDependants(ctx: MemberReadCtx) {
  const p = reachable(ctx);
  const family = members<{ familyMemberOf: typeof familyMemberOf }>(ctx);
  const dependants = await Promise.all(
    (p.familyMembers ?? []).map(async (f) => {
      let listed: Record<string, unknown> = {};
      try {
        listed = (await family.familyMemberOf(f.id, { primaryMemberId: p.id })).listed;
      } catch (err) {
        if (!notHisDependant(err)) throw err;
      }
      return { ...f, ...listed, id: f.id };
    }),
  );
  return { dependants, totalCount: dependants.length };
}

/** familyMemberOf's answers for a dependant that is not (or not yet, or not to this caller) the primary member's */
function notHisDependant(err: unknown): boolean {
  if (isUnknownInstance(err)) return true;
  const code = err instanceof ActorError ? err.code : undefined;
  return code === MemberErrors.FAMILY_MEMBER_NOT_FOUND.code || code === RuntimeCodes.OUT_OF_SCOPE.code;
}

function primaryOnly(p: DeepReadonly<MemberProfile>): void {
  if (p.primaryMemberId)
    throw memberError('NOT_A_PRIMARY_MEMBER', `Member ${p.id} is a dependant and has no family members of its own`);
}

function notAFamilyMember(p: DeepReadonly<MemberProfile>, primaryMemberId: string) {
  return memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${p.id} is not a family member of ${primaryMemberId}`);
}

/**
 * The dependant as it is now (a read of its instance): 404 (5011) when it is
 * not a family member of `primary`; `erased` when it was erased at its request.
 */
async function familyMember(
  ctx: MemberCtx<unknown>,
  primary: MemberProfile,
  familyMemberId: string,
): Promise<{ profile: DeepReadonly<MemberProfile>; erased: boolean }> {
  const read = await members<{ familyMemberOf: typeof familyMemberOf }>(ctx).familyMemberOf(familyMemberId, {
    primaryMemberId: primary.id,
  });
  return { profile: read.profile, erased: read.erased === true };
}

export async function addMemberFamilyMember(ctx: MemberCtx<AddMemberFamilyMemberInput>, erasure: ErasureSettings) {
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
    await refuseErasedPerson(ctx, erasure, { emails: [body.email] });
  }
  // chosen now, so the change can name the dependant it creates and answer with it
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
  await ctx.effect({
    classId: 'Member',
    method: 'createFamilyMember',
    instanceId: id,
    body: { profile: dependant } satisfies CreateFamilyBody,
  });
  const before = clone(p);
  const ref: FamilyMember = {
    id,
    relation: dependant.relation,
    memberSubType: dependant.memberSubType,
    name: dependant.name,
    surname: dependant.surname,
    status: dependant.status,
    createdAt: t,
  };
  p.familyMembers = [...(p.familyMembers ?? []), ref];
  p.updatedAt = t;
  await logMemberChange(ctx, before, p, { section: 'family', familyMemberId: id, action: 'add' });
  return { familyMember: dependant, isFree: freeFamilyMemberIds(company, p.familyMembers).includes(id) };
}

export async function updateMemberFamilyMember(ctx: MemberCtx<UpdateMemberFamilyMemberInput>) {
  const p = reachable(ctx);
  primaryOnly(p);
  const body = ctx.request.body;
  const i = (p.familyMembers ?? []).findIndex((f) => f.id === body.familyMemberId);
  if (i < 0)
    throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${p.id} has no family member '${body.familyMemberId}'`);
  if (body.memberSubType && body.memberSubType !== p.familyMembers[i].memberSubType) {
    const company = await requireCompany(ctx, p.company.id);
    await checkMemberTypes(ctx, company, null, body.memberSubType);
    const limit = checkFamilyLimit(company, p.familyMembers, body.memberSubType, body.familyMemberId);
    if (!limit.ok) throw fieldError(limit.error, 'memberSubType', limit.message, limit.details);
  }
  const { familyMemberId, ...changes } = body;
  const { profile: current, erased } = await familyMember(ctx, p, familyMemberId);
  // an erased dependant's record is not written again, nor are its values copied back into the link
  if (erased) throw erasedMemberError(familyMemberId);
  const at = now();
  const { after: dep, updatedFields } = applyFamilyChanges(current, changes, at);
  if (updatedFields.includes('email') && dep.email) {
    const owner = await memberIdByLookup(ctx, 'email', emailKey(dep.email));
    if (owner && owner !== familyMemberId)
      throw fieldError('EMAIL_TAKEN', 'email', `Email '${dep.email}' belongs to another member`);
  }
  if (updatedFields.length) {
    await ctx.effect({
      classId: 'Member',
      method: 'applyFamilyMemberUpdate',
      instanceId: familyMemberId,
      body: { primaryMemberId: p.id, changes, at } satisfies FamilyUpdateBody,
    });
  }
  const ref: FamilyMember = {
    ...p.familyMembers[i],
    relation: dep.relation,
    memberSubType: dep.memberSubType,
    name: dep.name,
    surname: dep.surname,
    status: dep.status,
  };
  if (JSON.stringify(ref) !== JSON.stringify(p.familyMembers[i])) {
    const before = clone(p);
    p.familyMembers = p.familyMembers.map((f, j) => (j === i ? ref : f));
    p.updatedAt = now();
    await logMemberChange(ctx, before, p, { section: 'family', familyMemberId, action: 'update' });
  }
  return { familyMember: dep, updatedFields };
}

export async function removeMemberFamilyMember(ctx: MemberCtx<RemoveMemberFamilyMemberInput>) {
  const p = reachable(ctx);
  primaryOnly(p);
  const { familyMemberId } = ctx.request.body;
  if (!(p.familyMembers ?? []).some((f) => f.id === familyMemberId)) {
    throw memberError('FAMILY_MEMBER_NOT_FOUND', `Member ${p.id} has no family member '${familyMemberId}'`);
  }
  // the dependant must be this member's (404 otherwise), as detachFamilyMember checks again when it applies
  const { erased } = await familyMember(ctx, p, familyMemberId);
  // an erased dependant is inactive already and its record is written no more: only the link goes
  if (!erased) {
    await ctx.effect({
      classId: 'Member',
      method: 'detachFamilyMember',
      instanceId: familyMemberId,
      body: { primaryMemberId: p.id } satisfies FamilyOfBody,
    });
  }
  const before = clone(p);
  p.familyMembers = p.familyMembers.filter((f) => f.id !== familyMemberId);
  p.updatedAt = now();
  await logMemberChange(ctx, before, p, { section: 'family', familyMemberId, action: 'remove' });
  return { removed: familyMemberId };
}

/** READ on a dependant, for its primary member: its profile and its listed view; 404 (5011) when it is not a family member of `primaryMemberId`. */
export function familyMemberOf(ctx: MemberReadCtx<FamilyOfBody>) {
  const p = profileOf(ctx);
  if (p.primaryMemberId !== ctx.request.body.primaryMemberId)
    throw notAFamilyMember(p, ctx.request.body.primaryMemberId);
  const state = memberState(ctx);
  // memberDocument only reads the profile and state it is given
  return {
    profile: p,
    listed: memberDocument(p, state),
    ...(isErased(state) ? { erased: true as const } : {}),
  };
}

/**
 * INTERNAL on a new dependant instance (upsert), the effect of
 * addMemberFamilyMember: refuses an id in use. The primary member checked the
 * email; when another member has taken it since, the dependant keeps it
 * without the lookup (it cannot sign in with it), as an HR dependant does:
 * refusing now would leave the primary member listing a dependant that does
 * not exist.
 */
export async function createFamilyMember(ctx: MemberCtx<CreateFamilyBody>) {
  const state = memberState(ctx);
  if (ctx.version !== 0 || state.profile)
    throw memberError('MEMBER_NOT_FOUND', `Member id '${ctx.instanceId}' is already in use`);
  const { profile } = ctx.request.body;
  state.profile = { ...profile, id: ctx.instanceId! };
  state.documents = [];
  if ((await syncEmailLookup(ctx, state.profile)) === 'taken') {
    ctx.log.warn(
      { memberId: ctx.instanceId },
      'family member created without its email lookup: another member took the email meanwhile',
    );
  }
  await logMemberChange(ctx, null, state.profile, { section: 'family', action: 'add' });
  return { id: ctx.instanceId };
}

/**
 * INTERNAL on the dependant, the effect of updateMemberFamilyMember: the
 * fields it changes. An email another member has taken since the primary
 * member checked it is left as it was (the other fields apply).
 */
export async function applyFamilyMemberUpdate(ctx: MemberCtx<FamilyUpdateBody>) {
  const before = profileOf(ctx);
  const { primaryMemberId, changes, at } = ctx.request.body;
  if (before.primaryMemberId !== primaryMemberId) throw notAFamilyMember(before, primaryMemberId);
  let result = applyFamilyChanges(before, changes, at);
  if ((await syncEmailLookup(ctx, result.after)) === 'taken') {
    ctx.log.warn({ memberId: before.id }, 'family member email not changed: another member took it meanwhile');
    const { email: _taken, ...others } = changes;
    result = applyFamilyChanges(before, others, at);
  }
  if (!result.updatedFields.length) return { profile: before, updatedFields: result.updatedFields };
  memberState(ctx).profile = result.after;
  await logMemberChange(ctx, before, result.after, { section: 'family', action: 'update' });
  return { profile: result.after, updatedFields: result.updatedFields };
}

/** INTERNAL on the dependant removed from its family (the effect of removeMemberFamilyMember): it becomes inactive (its history stays). */
export async function detachFamilyMember(ctx: MemberCtx<FamilyOfBody>) {
  const before = profileOf(ctx);
  const { primaryMemberId } = ctx.request.body;
  if (before.primaryMemberId !== primaryMemberId) throw notAFamilyMember(before, primaryMemberId);
  const after: MemberProfile = { ...before, status: 'inactive', statusReason: 'removed_from_family', updatedAt: now() };
  memberState(ctx).profile = after;
  await logMemberChange(ctx, before, after, { section: 'family', action: 'remove' });
  return { id: before.id, status: after.status };
}

/** The primary member's family list (for a dependant's company-paid check). */
export function hrPrimaryFamily(ctx: MemberReadCtx) {
  return { familyMembers: profileOf(ctx).familyMembers ?? [] };
}
