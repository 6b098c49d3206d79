/**
 * Member creation: createMember (INIT, member_create) and seedMember (the
 * seed file, no approval).
 */
import { ActorError, UNKNOWN_INSTANCE_CODE } from '../../../runtime';
import { actorFromIdentity, bounded, type Actor } from '../../_platform/actor';
import { runWorkflow } from '../../_platform/workflow';
import type { ErasureSettings } from '../erasure-rules';
import { fieldError, memberError } from '../errors';
import {
  emailKey,
  logMemberChange,
  memberIdByLookup,
  memberState,
  syncEmailLookup,
  syncStaffIdLookup,
  type MemberCtx,
} from '../member-state';
import { nextMemberStatus, type StatusEffect } from '../status-machine';
import type { FamilyMember, MemberProfile } from '../types';
import { checkMemberTypes, MEMBER_CREATE_EVENT, requireActiveCompany, type resolveMemberId } from './common';
import type { LinkFamilyBody } from './family';
import { refuseErasedPerson } from './erased-person';
import { members } from './self-client';
import { welcomeIfDue } from './welcome';
import type { CreateMemberInput, SeedMemberInput } from '../../../schemas/Member/inputs';

/** The checks and the new profile shared by createMember and seedMember (status `pending_approval`). */
async function prepareNewMember(
  ctx: MemberCtx<unknown>,
  body: CreateMemberInput,
  erasure: ErasureSettings,
  actor: Actor = actorFromIdentity(ctx.identity),
): Promise<MemberProfile> {
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
  // a person erased at their request is not created again unless ERASED_MEMBERS_RETURN allows it
  await refuseErasedPerson(ctx, erasure, { staffIds: [body.staffId], emails: [body.email] });
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
    createdBy: actor,
    note: body.note ?? null,
    permissions: body.permissions ?? { sms: false, email: false },
    previousStaffIds: [],
    statusReason: null,
    ...(body.isCabinCrew !== undefined ? { isCabinCrew: body.isCabinCrew } : {}),
    createdAt: now,
    updatedAt: now,
  };
}

async function storeNewMember(
  ctx: MemberCtx<unknown>,
  profile: MemberProfile,
  additionalData: Record<string, unknown>,
  actor?: Actor,
) {
  const state = memberState(ctx);
  state.profile = profile;
  state.documents = [];
  syncStaffIdLookup(ctx, profile);
  if ((await syncEmailLookup(ctx, profile)) === 'taken')
    throw fieldError('EMAIL_TAKEN', 'email', `Email '${profile.email}' belongs to another member`);
  await logMemberChange(ctx, null, profile, additionalData, actor);
}

/** createMember (INIT): validates, then member_create (approval unless the rules or the actor approve at once). */
export async function createMember(ctx: MemberCtx<CreateMemberInput>, appUrl: string, erasure: ErasureSettings) {
  const body = ctx.request.body;
  const state = memberState(ctx);
  const fromHr = body.source !== undefined && ctx.identity.type === 'class' && ctx.identity.classId === 'Member';
  const selfRegistered = fromHr && body.source === 'self_registration';
  // the registration's caller, as registerFromHr names it; anyone else is credited as themselves
  const actor = fromHr && body.actor ? bounded(body.actor) : actorFromIdentity(ctx.identity);
  const profile = await prepareNewMember(ctx, body, erasure, actor);
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
      // the member's state is not written yet, so its company is named: that company's approvers see the record
      companyId: profile.company.id,
    });
    approvalId = wf.approvalRecord.id;
    approved = wf.isApproved;
  }
  let welcome: readonly StatusEffect[] = [];
  if (approved) {
    const r = selfRegistered
      ? nextMemberStatus(null, { type: 'selfRegistered', hasIdPhoto: false, hasActiveMembership: false })
      : nextMemberStatus(null, {
          type: 'creationApproved',
          loginMethod: profile.loginMethod,
          hasIdPhoto: false,
          hasActiveMembership: false,
        });
    if (r.ok) {
      profile.status = r.to;
      welcome = r.effects;
    }
    state.pendingChange = null;
  } else {
    state.pendingChange = { approvalId: approvalId!, event: MEMBER_CREATE_EVENT, requestedAt: profile.createdAt };
  }
  // a registration stopped half-way is finished by running it again, for this member only (registration-rules.ts)
  if (fromHr) state.creationSource = body.source;
  await storeNewMember(
    ctx,
    profile,
    { event: MEMBER_CREATE_EVENT, approvalId, source: fromHr ? body.source : 'back_office' },
    actor,
  );
  await welcomeIfDue(ctx, profile, welcome, appUrl);
  return { member: profile, pendingApprovalId: state.pendingChange?.approvalId ?? null };
}

/**
 * seedMember (INTERNAL, upsert; `npm run cli -- seed`): a member as the seed
 * file gives it, created at once (no approval), in the given status or the
 * status creation approval gives. 409 (5026) when the id is taken, so a seed
 * can run again. A dependant (`primaryMemberId`) is listed in its primary
 * member's family (the seed creates primary members first); an unknown
 * primary member is refused (404 5000).
 */
export async function seedMember(ctx: MemberCtx<SeedMemberInput>, erasure: ErasureSettings) {
  if (ctx.version !== 0 || memberState(ctx).profile)
    throw memberError('ALREADY_REGISTERED', `Member '${ctx.instanceId}' exists already`);
  const body = ctx.request.body;
  const profile = await prepareNewMember(ctx, body, erasure);
  const r = nextMemberStatus(null, {
    type: 'creationApproved',
    loginMethod: profile.loginMethod,
    hasIdPhoto: false,
    hasActiveMembership: false,
  });
  profile.status = body.status ?? (r.ok ? r.to : 'pending_invite');
  profile.primaryMemberId = body.primaryMemberId ?? null;
  profile.relation = body.relation ?? null;
  if (profile.primaryMemberId) await checkSeedPrimary(ctx, profile.primaryMemberId);
  await storeNewMember(ctx, profile, { source: 'seed' });
  if (profile.primaryMemberId) {
    // committed with this member: the primary member lists it once it exists, never without it
    const ref: FamilyMember = {
      id: profile.id,
      relation: profile.relation,
      memberSubType: profile.memberSubType,
      name: profile.name,
      surname: profile.surname,
      status: profile.status,
      createdAt: profile.createdAt,
    };
    await ctx.effect({
      classId: 'Member',
      method: 'linkFamilyMember',
      instanceId: profile.primaryMemberId,
      body: { ref, actor: actorFromIdentity(ctx.identity) } satisfies LinkFamilyBody,
    });
  }
  return { member: profile };
}

/** The primary member of a seeded dependant exists (404 5000 on primaryMemberId otherwise). */
async function checkSeedPrimary(ctx: MemberCtx<unknown>, primaryMemberId: string): Promise<void> {
  if (primaryMemberId === ctx.instanceId)
    throw fieldError('NOT_A_PRIMARY_MEMBER', 'primaryMemberId', 'A member cannot be its own primary member');
  try {
    await members<{ resolveMemberId: typeof resolveMemberId }>(ctx).resolveMemberId(primaryMemberId);
  } catch (err) {
    if (isNotFound(err))
      throw fieldError('MEMBER_NOT_FOUND', 'primaryMemberId', `Primary member '${primaryMemberId}' does not exist`);
    throw err;
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ActorError && (err.status === 404 || err.code === UNKNOWN_INSTANCE_CODE);
}
