/**
 * Where a template's test message goes: to the caller's own address only, the
 * email of their ProgramManagementUser record, so trying a template never
 * reaches its real recipients. Each class refuses a caller without one with
 * its own error code.
 */
import type { BaseCtx } from '../../runtime';
import { isAbsentRecord } from './calls';

/**
 * The caller's own address. For a caller that is not a back-office user, or
 * whose record is absent or has no email, throws what `refuse` makes of the
 * message and details.
 */
export async function callerAddress(
  ctx: Pick<BaseCtx, 'identity' | 'call'>,
  refuse: (message: string, details: { userId: string | undefined }) => Error,
): Promise<string> {
  const userId = ctx.identity.userId;
  const none = () => refuse('A test message goes to your own address, and your user has none', { userId });
  if (ctx.identity.type !== 'program_management_user' || !userId) throw none();
  let email: unknown;
  try {
    // _platform may not import the class's type: the answer is read as the unknown it is
    const { body } = await ctx.call('ProgramManagementUser', 'getUser', userId, {});
    const user: unknown = body && typeof body === 'object' && 'user' in body ? body.user : undefined;
    email = user && typeof user === 'object' && 'email' in user ? user.email : undefined;
  } catch (err) {
    if (isAbsentRecord(err)) throw none();
    throw err;
  }
  if (typeof email !== 'string' || !email) throw none();
  return email;
}
