/**
 * previewTemplate (READ) and sendTestMessage (WRITE), for back-office users
 * editing a template: the template rendered with the caller's parameters and
 * a sample value (`[name]`) for each one left out, whatever the template's
 * status (a template is tried before it is activated).
 *
 *  - previewTemplate sends nothing: it answers the rendered subject and html.
 *  - sendTestMessage mails that rendering, its subject marked `[Test] `, to
 *    the caller's own address only (their ProgramManagementUser record's
 *    email; none: 409 11011). The template does not change; the mail is a
 *    committed effect of the call, so a failed call sends none.
 */
import { testSubject } from '../../_platform/template-preview';
import { callerAddress } from '../../_platform/test-message';
import { systemEmailError } from '../errors';
import { previewMail } from '../preview-rules';
import type { PreviewTemplateInput, SendTestMessageInput } from '../../../schemas/SystemEmail/inputs';
import type { SystemEmailCtx, SystemEmailReadCtx } from './common';

export function previewTemplate(ctx: SystemEmailReadCtx<PreviewTemplateInput>) {
  const t = ctx.state.private.template;
  const preview = previewMail(t, ctx.request.body.parameters);
  return { templateId: t.templateId, status: t.status, ...preview };
}

export async function sendTestMessage(ctx: SystemEmailCtx<SendTestMessageInput>) {
  const t = ctx.state.private.template;
  const to = await callerAddress(ctx, (message, details) =>
    systemEmailError('SYSTEM_EMAIL_NO_CALLER_ADDRESS', message, details),
  );
  const preview = previewMail(t, ctx.request.body.parameters);
  const messageId = await ctx.mail.send({ to: [to], subject: testSubject(preview.subject), html: preview.html });
  return { templateId: t.templateId, messageId, to: [to], sampled: preview.sampled };
}
