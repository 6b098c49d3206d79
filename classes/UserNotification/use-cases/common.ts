/** What UserNotification's use cases share: the inbox's owner from its id, and the ownership check (spec 5). */
import type { Ctx, Identity, ReadCtx } from '../../../runtime';
import { userNotificationError } from '../errors';
import { inboxOwner, mayReach } from '../rules';
import type { InboxOwner, UserNotificationClassState } from '../types';

/** a UserNotification handler's context: the inbox's state and the method's body `I` */
export type UNCtx<I = unknown> = Ctx<UserNotificationClassState, I>;
export type UNReadCtx<I = unknown> = ReadCtx<UserNotificationClassState, I>;

export function now(): string {
  return new Date().toISOString();
}

/** The owner an inbox id names; 400 for an id that is no inbox id. */
function ownerOfId(instanceId: string | undefined): InboxOwner {
  const owner = inboxOwner(instanceId ?? '');
  if (!owner) {
    throw userNotificationError(
      'INVALID_INBOX_ID',
      `'${instanceId}' is no inbox id: members' inboxes are M<userId>, program management users' PM<userId>`,
      {
        errors: [{ field: 'instanceId', reason: 'must be M<userId> or PM<userId>' }],
      },
    );
  }
  return owner;
}

/** The owner the instance id names; 400 for an id that is no inbox id. */
export function ownerOf(ctx: UNReadCtx<unknown> | UNCtx<unknown>): InboxOwner {
  return ownerOfId(ctx.instanceId);
}

/**
 * Spec 5 "Ownership", as the methods' guard: 403 unless the caller may reach
 * the inbox the id names. Judged from the id alone, before the runtime looks
 * the inbox up, so whether another user's inbox exists is never told.
 */
export function inboxGuard(caller: { identity: Identity; instanceId: string | undefined }): void {
  const owner = ownerOfId(caller.instanceId);
  const { identity } = caller;
  if (!mayReach({ type: identity.type, userId: identity.userId }, owner)) {
    throw userNotificationError(
      'NOT_YOUR_INBOX',
      `Inbox ${caller.instanceId} is not yours: ${identity.type === 'enduser' ? 'a member reaches only M<its id>' : 'a program management user reaches only PM<its id>'}`,
    );
  }
}
