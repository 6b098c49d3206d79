/**
 * HR 4.3: the HR system pushes the full dependant record (hrUpsertDependant,
 * STATIC), upserted on the dependant (hrApplyDependant) and listed on its
 * primary member (linkFamilyMember).
 */
import { isUnknownInstance, type DeepReadonly } from '../../../runtime';
import { actorFromIdentity, type Actor } from '../../_platform/actor';
import { findMemberSubTypeByHrmsMapping } from '../clients';
import { identifiers, type ErasureSettings } from '../erasure-rules';
import { hrError } from '../errors';
import {
  dependantSemanticErrors,
  HR_MESSAGES,
  hrTimestampOf,
  isStalePush,
  newerPush,
  normalizeDependant,
  validationError,
  type NormalizedDependant,
} from '../hr-contract';
import { applyDependantRecord, newDependantProfile, unmappedTypeWarning } from '../hr-sync';
import {
  logMemberChange,
  memberState,
  profileOf,
  rawMemberState,
  syncEmailLookup,
  type MemberCtx,
  type MemberReadCtx,
  type MemberStaticCtx,
} from '../member-state';
import type { FamilyMember, MemberProfile } from '../types';
import type { QuarantineSettings } from '../hr-quarantine';
import { hrGuard } from './common';
import { erasedPersonOf, takeBackErased } from './erased-person';
import { heldAnswer, holdIfQuarantined } from './hr-hold';
import type { LinkFamilyBody } from './family';
import { members } from './self-client';
import type { HrUpsertDependantInput } from '../../../schemas/Member/inputs';

export interface PrimaryInfo {
  id: string;
  company: { id: string };
  memberType: string | null;
  loginMethod: MemberProfile['loginMethod'];
}

/** hrApplyDependant's body (from hrUpsertDependant and registerFromHr) */
export interface ApplyDependantBody {
  record: NormalizedDependant;
  memberSubTypeId: string | null;
  primary: PrimaryInfo;
  /** who pushed the record; absent from older queued calls and the registration flow (then the caller's identity) */
  actor?: Actor;
  /** when HR produced the record (X-HR-Timestamp), if it said */
  recordedAt?: string;
}

/** Spec 4.3: the HR system pushes the full dependant record (upsert). */
export async function hrUpsertDependant(ctx: MemberStaticCtx<HrUpsertDependantInput>) {
  return hrGuard(ctx, async () => {
    const raw = ctx.request.body;
    const recordedAt = hrTimestampOf(ctx.request.headers);
    const errors = dependantSemanticErrors(raw);
    if (Object.keys(errors).length) throw validationError(errors);
    const rec = normalizeDependant(raw);

    const member = members<{
      hrPrimaryInfo: typeof hrPrimaryInfo;
      hrApplyDependant: (ctx: MemberCtx<ApplyDependantBody>) => ReturnType<typeof hrApplyDependant>;
    }>(ctx);
    let primary;
    try {
      // the primary member by its staff id: its own facts and its family list (one read, the lookup resolved by the call)
      primary = await member.hrPrimaryInfo(`staffId!${rec.employeeId}`);
    } catch (err) {
      if (isUnknownInstance(err)) throw hrError('PRIMARY_MEMBER_NOT_FOUND', HR_MESSAGES.primaryNotFound);
      throw err;
    }
    if (primary.id === rec.id) throw hrError('DEPENDANT_FORBIDDEN', HR_MESSAGES.dependantIdTaken);

    const subType = await findMemberSubTypeByHrmsMapping(ctx, rec.type);
    const memberSubTypeId = subType && subType.status === 'active' ? subType.id : null;
    const warnings = memberSubTypeId ? [] : [unmappedTypeWarning(rec.type)];

    const { familyMembers: _family, ...primaryInfo } = primary;
    const applied = await member.hrApplyDependant(rec.id, {
      record: rec,
      memberSubTypeId,
      primary: primaryInfo,
      actor: actorFromIdentity(ctx.identity),
      ...(recordedAt ? { recordedAt } : {}),
    });
    // the primary member lists the dependant as it is now (also repairs a link an earlier failed call left out):
    // an effect, applied when this handler has returned without failing, before the HR system is answered
    const listed = primary.familyMembers.find((f) => f.id === rec.id);
    if (!listed || !sameRef(listed, applied.ref)) {
      await ctx.effect({
        classId: 'Member',
        method: 'linkFamilyMember',
        instanceId: primary.id,
        body: { ref: applied.ref, actor: actorFromIdentity(ctx.identity) } satisfies LinkFamilyBody,
      });
    }
    warnings.push(...applied.warnings);
    if (applied.heldApprovalId) {
      return heldAnswer(
        ctx,
        HR_MESSAGES.dependantHeld,
        {
          dependantId: rec.id,
          primaryMemberId: primary.id,
          updatedFields: [],
          ...(warnings.length ? { warnings } : {}),
        },
        applied.heldApprovalId,
      );
    }

    ctx.response.status = applied.created ? 201 : 200;
    return {
      success: true,
      message: applied.created
        ? HR_MESSAGES.dependantAdded
        : applied.stale
          ? HR_MESSAGES.dependantStale
          : HR_MESSAGES.dependantUpdated,
      body: {
        dependantId: rec.id,
        primaryMemberId: primary.id,
        updatedFields: applied.updatedFields,
        ...(warnings.length ? { warnings } : {}),
      },
    };
  });
}

export function hrPrimaryInfo(ctx: MemberReadCtx): PrimaryInfo & { familyMembers: DeepReadonly<FamilyMember[]> } {
  const p = profileOf(ctx);
  return {
    id: p.id,
    company: p.company,
    memberType: p.memberType,
    loginMethod: p.loginMethod,
    familyMembers: p.familyMembers ?? [],
  };
}

export interface AppliedDependant {
  created: boolean;
  updatedFields: string[];
  ref: FamilyMember;
  warnings: string[];
  stale: boolean;
  /** the quarantine holds the push (nothing applied): the approval that releases or discards it */
  heldApprovalId?: string;
}

export async function hrApplyDependant(
  ctx: MemberCtx<ApplyDependantBody>,
  quarantine: QuarantineSettings,
  erasure: ErasureSettings,
): Promise<AppliedDependant> {
  return applyDependant(ctx, ctx.request.body, quarantine, erasure);
}

/** 4.3's refusal of a dependant erased at their request (ERASED_MEMBERS_RETURN=refuse): 409 10077, beyond spec 7.2. */
function erasedDependant() {
  return hrError('ERASED_PERSON', HR_MESSAGES.erasedPerson);
}

/**
 * Upserts a dependant record; `quarantine` null: a held push released by its
 * approval, or the HR registration (which creates, never deactivates).
 * `erasure`: whether a dependant erased at their request is taken back
 * (ERASED_MEMBERS_RETURN); null for a held push's release, which never creates.
 */
export async function applyDependant(
  ctx: MemberCtx<unknown>,
  input: ApplyDependantBody,
  quarantine: QuarantineSettings | null,
  erasure: ErasureSettings | null = null,
): Promise<AppliedDependant> {
  // HR's dependant id is the member id: a push under an erased dependant's id lands on its tombstone (an erased
  // employee's id is no dependant's, as any employee's is not)
  if (erasure) {
    const tombstone = rawMemberState(ctx);
    if (tombstone.erasure && !tombstone.profile.primaryMemberId)
      throw hrError('DEPENDANT_FORBIDDEN', HR_MESSAGES.dependantIdTaken);
    takeBackErased(ctx, erasure, erasedDependant);
  }
  const state = memberState(ctx);
  const now = new Date().toISOString();
  const warnings: string[] = [];
  const actor = input.actor ?? actorFromIdentity(ctx.identity);
  const emailWarning = 'The email is already used by another member; it was saved but cannot be used to sign in';

  if (ctx.version === 0 || !state.profile) {
    if (erasure?.returnPolicy === 'refuse' && input.record.email) {
      const ids = identifiers({ emails: [input.record.email] });
      if (await erasedPersonOf(ctx, erasure, ids)) throw erasedDependant();
    }
    const profile = newDependantProfile(
      { record: input.record, memberSubTypeId: input.memberSubTypeId, primary: input.primary, actor },
      now,
    );
    state.profile = profile;
    state.documents = [];
    if (input.recordedAt) state.hrRecordedAt = input.recordedAt;
    if ((await syncEmailLookup(ctx, profile)) === 'taken') warnings.push(emailWarning);
    await logMemberChange(ctx, null, profile, { source: 'hr_dependant_upsert' }, actor);
    return { created: true, updatedFields: [], ref: familyRef(profile), warnings, stale: false };
  }

  const before = state.profile;
  if (before.primaryMemberId !== input.primary.id) {
    throw hrError(
      'DEPENDANT_FORBIDDEN',
      before.primaryMemberId ? HR_MESSAGES.dependantOfOtherEmployee : HR_MESSAGES.dependantIdTaken,
    );
  }
  // a record older than one already applied: answered, not applied (pushes delivered out of order)
  if (isStalePush(state.hrRecordedAt, input.recordedAt))
    return { created: false, updatedFields: [] as string[], ref: familyRef(before), warnings, stale: true };
  const recordedAt = newerPush(state.hrRecordedAt, input.recordedAt);
  if (recordedAt !== state.hrRecordedAt) state.hrRecordedAt = recordedAt;
  const result = applyDependantRecord(before, { record: input.record, memberSubTypeId: input.memberSubTypeId }, now);
  if (quarantine) {
    const hold = await holdIfQuarantined(ctx, quarantine, {
      kind: 'dependant',
      before,
      after: result.profile,
      companyId: input.primary.company.id,
      body: input as unknown as Record<string, unknown>,
      actor,
    });
    if (hold.held)
      return {
        created: false,
        updatedFields: [],
        ref: familyRef(before),
        warnings,
        stale: false,
        heldApprovalId: hold.approvalId,
      };
  }
  if (!result.updatedFields.length)
    return { created: false, updatedFields: [], ref: familyRef(before), warnings, stale: false };
  state.profile = result.profile;
  if (result.updatedFields.includes('email') && (await syncEmailLookup(ctx, result.profile)) === 'taken')
    warnings.push(emailWarning);
  await logMemberChange(
    ctx,
    before,
    result.profile,
    { source: 'hr_dependant_upsert', updatedFields: result.updatedFields },
    actor,
  );
  return {
    created: false,
    updatedFields: result.updatedFields,
    ref: familyRef(result.profile),
    warnings,
    stale: false,
  };
}

/** the same family entry (createdAt aside: linkFamilyMember keeps the first one) */
function sameRef(a: DeepReadonly<FamilyMember>, b: DeepReadonly<FamilyMember>): boolean {
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
