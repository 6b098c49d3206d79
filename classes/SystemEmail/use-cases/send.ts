/**
 * sendSystemEmail (QUEUED_WRITE, for classes): renders the template with the
 * call's parameters and sends the mail through the mail port. Only an active
 * template sends (409 11005 otherwise). Recipients are the call's `to`, else
 * the template's `to` (none: 400 11006). Every parameter must be a string
 * (400 11007 naming it) and every name the subject or html uses must be given
 * (400 11008 listing them). The mail belongs to this call's commit
 * (ctx.mail.send): a refused or failed send leaves none, and a redelivered
 * job does not send twice. The template itself does not change.
 */
import { systemEmailError } from '../errors';
import { recipientsFor, renderMail } from '../rules';
import type { SendSystemEmailInput } from '../../../schemas/SystemEmail/inputs';
import type { SystemEmailCtx } from './common';

export async function sendSystemEmail(ctx: SystemEmailCtx<SendSystemEmailInput>) {
  const body = ctx.request.body;
  const t = ctx.state.private.template;
  if (t.status !== 'active') {
    throw systemEmailError(
      'SYSTEM_EMAIL_TEMPLATE_INACTIVE',
      `Template ${t.templateId} is ${t.status}; only active templates send`,
      { templateId: t.templateId, status: t.status },
    );
  }
  const to = recipientsFor(body.to, t.to);
  if (!to) {
    throw systemEmailError(
      'SYSTEM_EMAIL_NO_RECIPIENTS',
      `Neither the call nor template ${t.templateId} names a recipient`,
      {
        errors: [{ field: 'to', reason: 'is required: the template has no default recipients' }],
      },
    );
  }
  const r = renderMail(t, body.parameters);
  if (!r.ok && r.reason === 'not_string') {
    throw systemEmailError(
      'SYSTEM_EMAIL_INVALID_PARAMETERS',
      `Parameters must be strings: ${r.errors.map((e) => e.field).join(', ')}`,
      { errors: r.errors },
    );
  }
  if (!r.ok) {
    throw systemEmailError(
      'SYSTEM_EMAIL_MISSING_PARAMETERS',
      `Template ${t.templateId} uses parameters the call lacks: ${r.missing.join(', ')}`,
      { missing: r.missing, errors: r.errors },
    );
  }
  const messageId = await ctx.mail.send({ to, subject: r.rendered.subject, html: r.rendered.html });
  return { templateId: t.templateId, messageId, to };
}
