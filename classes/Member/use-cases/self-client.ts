/**
 * Member's calls to other members (a dependant's primary member, the member
 * an HR record names), typed from the handlers they reach:
 *
 *   const { familyMembers } = await members<Pick<typeof family, 'hrPrimaryFamily'>>(ctx).hrPrimaryFamily(primaryId);
 *
 * `H` names the use-case functions the class's methods of the same names
 * delegate to; Member.class.ts checks that its methods take and answer what
 * those functions do (SelfCallsMatch). The class itself cannot be named
 * here: Member.class.ts imports the use cases, and an import back would be a
 * cycle.
 */
import { client, type BaseCtx, type ClassClient } from '../../../runtime';

export function members<H extends object>(ctx: Pick<BaseCtx, 'call'>): ClassClient<abstract new () => H> {
  return client<abstract new () => H>(ctx, 'Member');
}
