/**
 * What PartnerUser's use cases share: the handlers' context types, the state
 * of a user's instance, the refusal while a user waits for an approval, the
 * email check, the audit entry of a change and applying one.
 */
import type { Ctx, ReadCtx, StaticCtx } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { logChange } from '../../_platform/audit-log';
import { partnerUserError } from '../errors';
import { EMAIL_LOOKUP, holdsEmail } from '../rules';
import { isErased } from '../subject-data-rules';
import type { PartnerUserClassState, PartnerUserRecord, PartnerUserState } from '../types';

/** a PartnerUser write's context: one user's state, and the method's body `I` */
export type PartnerUserCtx<I = Record<string, never>> = Ctx<PartnerUserClassState, I>;
/** a PartnerUser READ's context */
export type PartnerUserReadCtx<I = Record<string, never>> = ReadCtx<PartnerUserClassState, I>;
/** a PartnerUser STATIC's context */
export type PartnerUserStaticCtx<I = Record<string, never>> = StaticCtx<I>;

/** the approval callback of every event (approve and reject) */
export const CALLBACK = 'approveUser';
/** entity type of the audit entries */
export const ENTITY_TYPE = 'partnerUser';

/** spec 2.6 keeps times as numbers: epoch milliseconds */
export const now = (): number => Date.now();

/** the id of the caller, as createdBy and updatedBy keep it (spec 2.6: a string) */
export function actorId(ctx: Pick<Ctx, 'identity'>): string {
  return actorFromIdentity(ctx.identity).id;
}

/**
 * The user's state to change. Every write of a user reaches its state through
 * here, so an erased user (DataSubject) is refused them all in one place:
 * 410 17111, whatever the write (a change, its venues, an approval callback).
 * Only the erasure itself reads the state without it.
 */
export function st(ctx: PartnerUserCtx<unknown>): PartnerUserState {
  const s = ctx.state.private;
  if (isErased(s.user)) {
    throw partnerUserError(
      'PARTNER_USER_ERASED',
      `Partner user ${s.user.id} was erased (erasure ${s.user.erasureId ?? 'unknown'}): it takes no change any more`,
      { id: s.user.id, erasureId: s.user.erasureId ?? null },
    );
  }
  return s;
}

/** 409 17103: the user waits for an approval. */
export function whilePending(id: string) {
  return (approvalId: string) =>
    partnerUserError(
      'PARTNER_USER_APPROVAL_PENDING',
      `Partner user ${id} waits for approval ${approvalId}; it takes no other change until then`,
      { id, approvalId },
    );
}

/** 409 17101 when another partner user that is not inactive holds the email (the commit's unique lookup key stands behind it). */
export async function checkEmailFree(ctx: Pick<Ctx, 'lookup'>, email: string, selfId: string): Promise<void> {
  const holder = await ctx.lookup.resolve(EMAIL_LOOKUP, email);
  if (holder && holder !== selfId) {
    throw partnerUserError('PARTNER_USER_EMAIL_TAKEN', 'Another partner user has this email', {
      errors: [{ field: 'email', reason: 'belongs to another partner user' }],
    });
  }
}

/** The audit entry of a change; the name and email are personal data, masked. */
export async function logUser(
  ctx: PartnerUserCtx<unknown>,
  before: PartnerUserRecord | null,
  after: PartnerUserRecord,
  additionalData: Record<string, unknown>,
): Promise<void> {
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: after.id,
    before,
    after,
    sensitiveFields: ['email', 'fullName'],
    ignore: ['updatedAt'],
    additionalData,
  });
}

/**
 * Applies a change to the user's state: the record, the `email` lookup key
 * (held by every user but an inactive one, so an inactive user's address may
 * be given to someone else), and the audit entry.
 */
export async function applyUser(
  ctx: PartnerUserCtx<unknown>,
  before: PartnerUserRecord | null,
  after: PartnerUserRecord,
  additionalData: Record<string, unknown>,
): Promise<void> {
  const s = st(ctx);
  s.user = after;
  const heldBefore = before !== null && holdsEmail(before.status);
  if (holdsEmail(after.status)) {
    if (!heldBefore || before.email !== after.email) ctx.lookup.set(EMAIL_LOOKUP, after.email);
  } else if (heldBefore) {
    ctx.lookup.remove(EMAIL_LOOKUP);
  }
  await logUser(ctx, before, after, additionalData);
}
