/**
 * Small helpers the Member handlers share: handler contexts, state access,
 * lookup keys (`staffId`, `email`), audit logging of profile changes.
 */
import type { Ctx, DeepReadonly, ReadCtx, StaticCtx } from '../../runtime';
import { logChange } from '../_platform/audit-log';
import type { Actor } from '../_platform/actor';
import { memberError } from './errors';
import type { MemberClassState, MemberPrivateState, MemberProfile } from './types';

/** the body of a method that takes none */
export type NoBody = Record<string, never>;
/** an INIT, WRITE, QUEUED_WRITE or INTERNAL handler's context: the member's state, and the method's body `I` */
export type MemberCtx<I = NoBody> = Ctx<MemberClassState, I>;
/** a READ handler's context: the member's committed state, read-only */
export type MemberReadCtx<I = NoBody> = ReadCtx<MemberClassState, I>;
/** a STATIC handler's context */
export type MemberStaticCtx<I = NoBody> = StaticCtx<I>;

/** personal data masked in audit logs (spec 6) */
export const MEMBER_SENSITIVE_FIELDS = ['email', 'phone', 'address', 'gender', 'maritalStatus', 'birthdate'];
/** top-level member fields that hold no personal data although their keys share personal names (consent flags) */
export const MEMBER_PLAIN_FIELDS = ['permissions'];

/**
 * The member's private state: the draft of a write, the committed state
 * (read-only) of a READ. Every handler reaches the state through here, so this
 * is where an erased member's record is kept from being written: a write of
 * any kind (INIT, WRITE, QUEUED_WRITE, INTERNAL) on it is 410 MEMBER_ERASED,
 * while a READ answers the tombstone. Only the erasure's own steps and the
 * creation paths that may take an erased person back (ERASED_MEMBERS_RETURN)
 * read it through rawMemberState.
 */
export function memberState(ctx: MemberCtx<unknown>): MemberPrivateState;
export function memberState(ctx: MemberReadCtx<unknown>): DeepReadonly<MemberPrivateState>;
export function memberState(ctx: MemberReadCtx<unknown>): DeepReadonly<MemberPrivateState> {
  const state = ctx.state.private;
  if (state.erasure && ctx.kind !== 'READ' && ctx.kind !== 'STATIC') throw erasedMemberError(ctx.instanceId);
  return state;
}

/** The private state whether or not the member was erased: for the erasure itself and the paths that judge a tombstone. */
export function rawMemberState(ctx: MemberCtx<unknown>): MemberPrivateState {
  return ctx.state.private;
}

/** 410 MEMBER_ERASED: a write of a member erased at its request. */
export function erasedMemberError(memberId: string | undefined) {
  return memberError(
    'MEMBER_ERASED',
    `Member '${memberId}' was erased at its request: its record is kept without personal data and is not changed any more`,
  );
}

/** The member profile; 404 (5000) when the instance holds none. */
export function profileOf(ctx: MemberCtx<unknown>): MemberProfile;
export function profileOf(ctx: MemberReadCtx<unknown>): DeepReadonly<MemberProfile>;
export function profileOf(ctx: MemberReadCtx<unknown>): DeepReadonly<MemberProfile> {
  const p = memberState(ctx).profile;
  if (!p) throw memberError('MEMBER_NOT_FOUND', `Member '${ctx.instanceId}' does not exist`);
  return p;
}

/** The lookup value of an email: trimmed, lower case. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The member holding lookup `name!value`, or null: one read of the committed
 * lookup key (ctx.lookup.resolve), so it also works from a write of another
 * member, and it sees a member of any company (a key is unique across them).
 */
export async function memberIdByLookup(
  ctx: Pick<ReadCtx, 'lookup'>,
  name: 'staffId' | 'email',
  value: string,
): Promise<string | null> {
  if (!value) return null;
  return (await ctx.lookup.resolve(name, value, 'Member')) ?? null;
}

/** Keeps the `staffId` lookup on the current staff id (a migration moves it). */
export function syncStaffIdLookup(ctx: MemberCtx<unknown>, profile: MemberProfile): void {
  if (profile.staffId) {
    if (ctx.lookup.get('staffId') !== profile.staffId) ctx.lookup.set('staffId', profile.staffId);
  } else if (ctx.lookup.get('staffId') !== undefined) {
    ctx.lookup.remove('staffId');
  }
}

/**
 * Keeps the `email` lookup on the member's email. Answers 'taken' (and leaves
 * the lookup as it was) when another member holds that email.
 */
export async function syncEmailLookup(ctx: MemberCtx<unknown>, profile: MemberProfile): Promise<'ok' | 'taken'> {
  const want = profile.email ? emailKey(profile.email) : undefined;
  const have = ctx.lookup.get('email');
  if (want === have) return 'ok';
  if (!want) {
    ctx.lookup.remove('email');
    return 'ok';
  }
  const owner = await memberIdByLookup(ctx, 'email', want);
  if (owner && owner !== ctx.instanceId) return 'taken';
  ctx.lookup.set('email', want);
  return 'ok';
}

/** Audit log entry of a profile change (nothing when nothing changed). */
export async function logMemberChange(
  ctx: MemberCtx<unknown>,
  before: MemberProfile | null,
  after: MemberProfile | null,
  additionalData?: Record<string, unknown>,
  /** who made the change when it is not the caller (an INTERNAL step on behalf of an API key) */
  actor?: Actor,
): Promise<void> {
  await logChange(ctx, {
    entityType: 'member',
    entityId: (after ?? before)!.id,
    before,
    after,
    sensitiveFields: MEMBER_SENSITIVE_FIELDS,
    // consent flags (permissions.sms, permissions.email) are no personal data: readable in the audit log
    plainFields: MEMBER_PLAIN_FIELDS,
    ignore: ['updatedAt'],
    ...(additionalData ? { additionalData } : {}),
    ...(actor ? { actor } : {}),
  });
}

export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

export function hasActiveMembership(profile: DeepReadonly<MemberProfile>): boolean {
  return (profile.memberships ?? []).some((m) => m.status === 'active');
}
