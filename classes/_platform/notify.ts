/**
 * For other classes: a notification that belongs to a change.
 *
 *   await notify(ctx, 'OTP_MEMBER_LOGIN', { to: [`M${member.id}`, member.email], parameters: { otp } });
 *
 * The send is committed with the calling handler's change as an effect on
 * NotificationManager.sendNotification (runtime/actor/effects.ts): it happens
 * only if the change commits, effectively once. The body's shape is checked
 * now (sendNotification's schema); what the template checks later (missing
 * parameters, an unknown template) is dead-lettered with its answer, so a
 * caller that must know at once calls sendNotification itself
 * (`client<typeof NotificationManager>(ctx, 'NotificationManager').sendNotification(templateId, input)`).
 *
 * `to` holds email addresses, phone numbers (+ and 6 to 15 digits) and inbox
 * ids (`M<member id>`, `PM<program management user id>`); see README.md.
 */
import type { StaticCtx } from '../../runtime';

/** sendNotification's input (spec 4.5): the contract of every class that sends a notification. */
export interface SendNotificationInput {
  /** recipients: email addresses, phone numbers (+digits) and inbox ids (M<userId>, PM<userId>) */
  to?: string[];
  /** every value a string (spec 4.5 "All parameters must be strings") */
  parameters?: Record<string, unknown>;
}

export function notify(
  ctx: Pick<StaticCtx, 'effect'>,
  templateId: string,
  input: SendNotificationInput,
): Promise<string> {
  return ctx.effect({
    classId: 'NotificationManager',
    method: 'sendNotification',
    instanceId: templateId,
    body: input,
  });
}

/** The inbox id of a member (`M<id>`) or a program management user (`PM<id>`). */
export function inboxOf(kind: 'member' | 'program_management_user', userId: string): string {
  return `${kind === 'member' ? 'M' : 'PM'}${userId}`;
}
