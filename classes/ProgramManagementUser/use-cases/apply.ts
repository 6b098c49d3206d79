/**
 * Applying a change to a user's state: the record, the `email` lookup key
 * (held by every user but an inactive one, so an inactive user's address may
 * be given to someone else, and activating it again checks that nobody took
 * it), and the audit entry.
 */
import { EMAIL_LOOKUP, holdsEmail } from '../rules';
import type { ProgramManagementUserRecord } from '../types';
import { logUser, st, type UserCtx } from './common';

export async function applyUser(
  ctx: UserCtx<unknown>,
  before: ProgramManagementUserRecord,
  after: ProgramManagementUserRecord,
  additionalData: Record<string, unknown>,
): Promise<void> {
  const s = st(ctx);
  s.user = after;
  if (holdsEmail(after.status)) {
    if (!holdsEmail(before.status) || before.email !== after.email) ctx.lookup.set(EMAIL_LOOKUP, after.email);
  } else if (holdsEmail(before.status)) {
    ctx.lookup.remove(EMAIL_LOOKUP);
  }
  await logUser(ctx, before, after, additionalData);
}

/** Does applying `after` take an email the user does not hold yet (so another user might hold it)? */
export function takesEmail(before: ProgramManagementUserRecord, after: ProgramManagementUserRecord): boolean {
  return holdsEmail(after.status) && (!holdsEmail(before.status) || before.email !== after.email);
}
