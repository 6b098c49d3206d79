/**
 * previewTemplate (READ) and sendTestMessage (WRITE), for back-office users
 * editing a template: every channel rendered with the caller's parameters and
 * a sample value (`[name]`) for each one left out, enabled or not, whatever
 * the template's status.
 *
 *  - previewTemplate sends nothing. A catalogue template never used yet is
 *    previewed with its defaults (nothing is created by a read).
 *  - sendTestMessage mails the email channel's rendering, its subject marked
 *    `[Test] `, to the caller's own address only (their ProgramManagementUser
 *    record's email; none: 409 16012). Nothing goes to the template's
 *    recipients, inboxes or phones. The mail is a committed effect of the
 *    call; like the other writes, the call creates a catalogue template on
 *    its first use.
 */
import { testSubject } from '../../_platform/template-preview';
import { callerAddress } from '../../_platform/test-message';
import { defaultTemplate } from '../builtins';
import { notificationError } from '../errors';
import { previewChannels } from '../preview-rules';
import type { NotificationTemplate } from '../types';
import type { PreviewTemplateInput, SendTestMessageInput } from '../../../schemas/NotificationManager/inputs';
import { ensureTemplate, now, type NMCtx, type NMReadCtx } from './common';

export function previewTemplate(ctx: NMReadCtx<PreviewTemplateInput>) {
  const id = ctx.instanceId ?? '';
  const template = (ctx.state.private.template as NotificationTemplate | undefined) ?? defaultTemplate(id, now());
  if (!template)
    throw notificationError('NOTIFICATION_TEMPLATE_NOT_FOUND', `There is no notification template '${id}'`, {
      templateId: id,
    });
  return {
    templateId: template.templateId,
    status: template.status,
    ...previewChannels(template, ctx.request.body.parameters),
  };
}

export async function sendTestMessage(ctx: NMCtx<SendTestMessageInput>) {
  const to = await callerAddress(ctx, (message, details) =>
    notificationError('NOTIFICATION_NO_CALLER_ADDRESS', message, details),
  );
  const { template } = await ensureTemplate(ctx);
  const preview = previewChannels(template, ctx.request.body.parameters);
  const email = preview.channels.email;
  const messageId = await ctx.mail.send({ to: [to], subject: testSubject(email.subject), html: email.html });
  return { templateId: template.templateId, messageId, to: [to], sampled: preview.sampled };
}
