/**
 * eraseSubjectData (STATIC, DataSubject only): Member's part of an approved
 * erasure of a person (classes/_platform/personal-data.ts; README "Erasure").
 *
 * A STATIC holds no instance, so the member's own INTERNAL, eraseMember,
 * writes the tombstone in one commit: the personal values of the profile
 * erased (erasure-rules.ts), what the record kept besides (documents' list,
 * waiting photo and changes, held HR push, password, registration marks)
 * dropped, the `email` and `staffId` lookup keys released, a suppression
 * marker set per identifier the person had, the member `inactive`, its
 * sessions ended. Its listed document is re-projected by that commit. A
 * dependant's link on its primary member keeps its id and loses the values
 * copied into it (forgetFamilyMember, on the primary member).
 *
 * Effectively once at any point: the member's commit is all or nothing, and
 * an erased member answers zeros but still names its primary member, so a
 * retry after a failure between the two steps finishes the link.
 *
 * Whether a person about to be created again was erased is erased-person.ts.
 */
import { client, isUnknownInstance } from '../../../runtime';
import type { Otp } from '../../Otp/Otp.class';
import { actorFromIdentity, type Actor } from '../../_platform/actor';
import { logChange } from '../../_platform/audit-log';
import type { SubjectErasure } from '../../_platform/personal-data';
import type { EraseSubjectDataInput } from '../../../schemas/Member/inputs';
import {
  erasedFamilyRef,
  erasedRecordCount,
  erasedState,
  familyRefHoldsValues,
  identifiersOf,
  MARKER_VALUE,
  markerName,
  type ErasureSettings,
  type PersonIdentifier,
} from '../erasure-rules';
import { emailKey, rawMemberState, type MemberCtx, type MemberStaticCtx } from '../member-state';
import { SIGN_IN_THROTTLE, throttleCounter, type ThrottledOperation } from '../sign-in-rules';
import { mayBeMemberId } from '../subject-data-rules';
import type { MemberPrivateState } from '../types';
import { REGISTRATION_LOCK } from './registration';
import { COMPLETE_LOCK, registrationOtpInstance } from './self-registration';
import { replaceState } from './erased-person';
import { members } from './self-client';

/** eraseMember's body: the erasure, and who asked (DataSubject, on whose behalf Member's STATIC calls) */
export interface EraseMemberBody {
  erasureId: string;
  actor: Actor;
}

/** what eraseMember did: records anonymised or removed, and the primary member whose link to finish */
export interface MemberErased {
  records: number;
  primaryMemberId: string | null;
}

/** forgetFamilyMember's body */
export interface ForgetFamilyMemberBody {
  familyMemberId: string;
}

const NOTHING: SubjectErasure = { records: 0, files: 0 };

export async function eraseSubjectData(ctx: MemberStaticCtx<EraseSubjectDataInput>): Promise<SubjectErasure> {
  const { subject, erasureId } = ctx.request.body;
  // another subject type keeps nothing here; a lookup (`staffId!E1`) is no member id
  if (subject.type !== 'member' || !mayBeMemberId(subject.id)) return NOTHING;
  const self = members<{
    eraseMember: (ctx: MemberCtx<EraseMemberBody>) => ReturnType<typeof eraseMember>;
    forgetFamilyMember: typeof forgetFamilyMember;
  }>(ctx);
  let erased: MemberErased;
  try {
    erased = await self.eraseMember(subject.id, { erasureId, actor: actorFromIdentity(ctx.identity) });
  } catch (err) {
    // no such member: nothing is kept about it (a dependant removed meanwhile, a retry of a finished erasure)
    if (isUnknownInstance(err)) return NOTHING;
    throw err;
  }
  let records = erased.records;
  if (erased.primaryMemberId) {
    try {
      const link = await self.forgetFamilyMember(erased.primaryMemberId, { familyMemberId: subject.id });
      if (link.changed) records += 1;
    } catch (err) {
      if (!isUnknownInstance(err)) throw err;
    }
  }
  return { records, files: 0 };
}

/**
 * INTERNAL on the member: the tombstone, in one commit. An erased member
 * answers zeros (and still names its primary member, for a retry's second
 * step).
 */
export async function eraseMember(ctx: MemberCtx<EraseMemberBody>, settings: ErasureSettings): Promise<MemberErased> {
  const state = rawMemberState(ctx);
  const profile = state.profile;
  if (!profile) return { records: 0, primaryMemberId: null };
  if (state.erasure) return { records: 0, primaryMemberId: profile.primaryMemberId ?? null };
  const { erasureId, actor } = ctx.request.body;
  const at = new Date().toISOString();
  const markers = await placeMarkers(ctx, settings, identifiersOf(profile));
  // the keys by which the member was found go with it (a lookup key holds the value itself)
  ctx.lookup.remove('email');
  ctx.lookup.remove('staffId');
  await forgetSessions(ctx, state);
  const records = erasedRecordCount(state) + (profile.email ? await clearRegistrationCodes(ctx, profile.email) : 0);
  const before = { status: profile.status, erased: false };
  replaceState(state, erasedState(state, { erasureId, erasedAt: at, markers }, at));
  // the member's own audit trail says it became inactive by an erasure, with no personal value in the entry
  await logChange(ctx, {
    entityType: 'member',
    entityId: profile.id,
    before,
    after: { status: 'inactive', erased: true },
    additionalData: { source: 'subject_erasure', erasureId },
    actor,
  });
  return { records, primaryMemberId: profile.primaryMemberId ?? null };
}

/**
 * INTERNAL on a primary member: its link to an erased dependant keeps the id
 * and sub type and loses the names copied into it; the dependant is listed
 * inactive. Run for DataSubject's erasure also when the primary member itself
 * was erased before (its tombstone's list is erased already: only the status
 * may change). No audit entry: it would carry the names the link held.
 */
export function forgetFamilyMember(ctx: MemberCtx<ForgetFamilyMemberBody>): { changed: boolean } {
  const state = rawMemberState(ctx);
  const list = state.profile?.familyMembers ?? [];
  const i = list.findIndex((f) => f.id === ctx.request.body.familyMemberId);
  if (i < 0) return { changed: false };
  const entry = list[i];
  if (!familyRefHoldsValues(entry) && entry.status === 'inactive') return { changed: false };
  list[i] = erasedFamilyRef(entry, 'inactive');
  state.profile.updatedAt = new Date().toISOString();
  return { changed: true };
}

/**
 * A marker per identifier, each a lookup key of this member named by the
 * identifier's keyed hash. One another erased member holds already (the same
 * person erased twice, taken back between) stays there: that marker says the
 * same thing, and a lookup key is one member's.
 */
async function placeMarkers(
  ctx: MemberCtx<unknown>,
  settings: ErasureSettings,
  ids: PersonIdentifier[],
): Promise<string[]> {
  const placed: string[] = [];
  for (const id of ids) {
    const name = markerName(settings.markerKey, id);
    const owner = await ctx.lookup.resolve(name, MARKER_VALUE);
    if (owner && owner !== ctx.instanceId) continue;
    ctx.lookup.set(name, MARKER_VALUE);
    placed.push(name);
  }
  return placed;
}

/**
 * The codes a self-registration mailed to the member's email are kept by Otp
 * under a digest of the email, which only Member can name: cleared before the
 * email goes (a retry of a commit that failed clears them again; none ever
 * issued is no error). Answers how many records went.
 */
async function clearRegistrationCodes(ctx: MemberCtx<unknown>, email: string): Promise<number> {
  try {
    return (await client<typeof Otp>(ctx, 'Otp').clearRecords(registrationOtpInstance(email), {})).removed;
  } catch (err) {
    if (isUnknownInstance(err)) return 0;
    throw err;
  }
}

/**
 * The member's sessions end (its refresh tokens revoked, the identity cache
 * forgotten; its access tokens are refused anyway once it is inactive), and
 * the counters Member keeps per account in Redis (sign-in throttles by email
 * or member id, the registration locks by staff id and email) are dropped:
 * their keys are digests of those values.
 */
async function forgetSessions(ctx: MemberCtx<unknown>, state: MemberPrivateState): Promise<void> {
  const p = state.profile;
  await ctx.tokens.revokeAll(p.id, 'enduser');
  const accounts = [p.id, ...(p.email ? [emailKey(p.email)] : [])];
  const resets: [string, string][] = [];
  for (const op of Object.keys(SIGN_IN_THROTTLE) as ThrottledOperation[]) {
    const counter = throttleCounter(op, 'account');
    if (counter) for (const account of accounts) resets.push([counter.name, account]);
  }
  if (p.email) resets.push([COMPLETE_LOCK, emailKey(p.email)]);
  for (const staffId of [p.staffId, ...(p.previousStaffIds ?? [])])
    if (staffId) resets.push([REGISTRATION_LOCK, staffId]);
  await Promise.all(resets.map(([name, key]) => ctx.limits.reset(name, key)));
}
