/** What UserNotification's use cases share: the inbox's owner from its id, and the ownership check (spec 5). */
import type { Ctx, ReadCtx } from '../../../runtime';
import { userNotificationError } from '../errors';
import { inboxOwner, mayReach } from '../rules';
import type { InboxOwner, UserNotificationClassState } from '../types';

/** a UserNotification handler's context: the inbox's state and the method's body `I` */
export type UNCtx<I = unknown> = Ctx<UserNotificationClassState, I>;
export type UNReadCtx<I = unknown> = ReadCtx<UserNotificationClassState, I>;

export function now(): string {
  return new Date().toISOString();
}

/** The owner the instance id names; 400 for an id that is no inbox id. */
export function ownerOf(ctx: UNReadCtx<unknown> | UNCtx<unknown>): InboxOwner {
  const owner = inboxOwner(ctx.instanceId ?? '');
  if (!owner) {
    throw userNotificationError('INVALID_INBOX_ID', `'${ctx.instanceId}' is no inbox id: members' inboxes are M<userId>, program management users' PM<userId>`, {
      errors: [{ field: 'instanceId', reason: 'must be M<userId> or PM<userId>' }],
    });
  }
  return owner;
}

/** Spec 5 "Ownership": 403 unless the caller may reach this inbox; answers its owner. */
export function reachable(ctx: UNReadCtx<unknown> | UNCtx<unknown>): InboxOwner {
  const owner = ownerOf(ctx);
  if (!mayReach({ type: ctx.identity.type, userId: ctx.identity.userId }, owner)) {
    throw userNotificationError('NOT_YOUR_INBOX', `Inbox ${ctx.instanceId} is not yours: ${ctx.identity.type === 'enduser' ? 'a member reaches only M<its id>' : 'a program management user reaches only PM<its id>'}`);
  }
  return owner;
}
