/**
 * sendNotification and its delivery (spec 4.5).
 *
 *  1. sendNotification (WRITE on the template, upsert: a catalogue template is
 *     created with its defaults on first use) answers 204. An inactive
 *     template sends nothing. Otherwise the call is checked and rendered now
 *     (parameters, recipients, lengths: a bad call is the caller's 400) and
 *     the rendered delivery is queued as deliverNotification, committed with
 *     this write (ctx.enqueue): nothing is sent unless it commits.
 *  2. deliverNotification (QUEUED_WRITE on the same template, on a worker,
 *     budget DELIVERY_BUDGET_S) fans out: one mail per email recipient
 *     (ctx.mail.send; one each, so no recipient sees another), one item per
 *     inbox (a committed effect on
 *     UserNotification.addNotification, which creates the inbox on its first
 *     item), one SMS per phone number (ctx.sms.send). All of them are
 *     committed with the job's commit and delivered after it, effectively
 *     once; a job retried after a failure commits them once.
 */
import { notificationError } from '../errors';
import { deliveryCounts, planDelivery } from '../rules';
import type { Delivery, SendNotificationInput } from '../types';
import { ensureTemplate, type NMCtx } from './common';
import { problemsText } from '../../_platform/paging';

/** deliverNotification's budget: 10,000 recipients per channel take a few seconds; the rest is headroom */
export const DELIVERY_BUDGET_S = 600;

export async function sendNotification(ctx: NMCtx<SendNotificationInput>) {
  const { template } = await ensureTemplate(ctx);
  ctx.response.status = 204;
  if (template.status !== 'active') {
    ctx.log.info(
      { templateId: template.templateId, status: template.status },
      'notification not sent: the template is not active',
    );
    return null;
  }
  const plan = planDelivery(template, ctx.request.body);
  if (!plan.ok) {
    const summary = problemsText(plan.problems);
    switch (plan.error) {
      case 'missing_parameters':
        throw notificationError('NOTIFICATION_MISSING_PARAMETERS', `Missing parameters: ${plan.missing!.join(', ')}`, {
          missing: plan.missing,
          errors: plan.problems,
        });
      case 'invalid_parameters':
        throw notificationError('NOTIFICATION_INVALID_PARAMETERS', `Invalid parameters: ${summary}`, {
          errors: plan.problems,
        });
      case 'invalid_recipients':
        throw notificationError('NOTIFICATION_INVALID_RECIPIENT', `Invalid recipients: ${summary}`, {
          errors: plan.problems,
        });
      case 'message_too_long':
        throw notificationError('NOTIFICATION_MESSAGE_TOO_LONG', `The rendered message does not fit: ${summary}`, {
          errors: plan.problems,
        });
    }
  }
  const counts = deliveryCounts(plan.delivery);
  if (counts.email + counts.inApp + counts.sms === 0) {
    ctx.log.info({ templateId: template.templateId }, 'notification not sent: no recipient for any enabled channel');
    return null;
  }
  await ctx.enqueue(ctx.classId, 'deliverNotification', ctx.instanceId!, { delivery: plan.delivery });
  return null;
}

/** The fan-out of one rendered send; answers what it committed. */
export async function deliverNotification(ctx: NMCtx<{ delivery: Delivery }>) {
  const d = ctx.request.body.delivery;
  const sent = { email: 0, inApp: 0, sms: 0 };
  // mails first: they are handed to the delivery queue as they come, and its workers send them while the inbox items are written
  if (d.email) {
    for (const to of d.email.to) {
      await ctx.mail.send({ to: [to], subject: d.email.subject, html: d.email.html });
      sent.email += 1;
    }
  }
  if (d.inApp) {
    for (const inbox of d.inApp.inboxes) {
      await ctx.effect({
        classId: 'UserNotification',
        method: 'addNotification',
        instanceId: inbox,
        body: d.inApp.item,
      });
      sent.inApp += 1;
    }
  }
  if (d.sms) {
    for (const to of d.sms.to) {
      await ctx.sms.send({ to: [to], text: d.sms.text });
      sent.sms += 1;
    }
  }
  return { templateId: d.templateId, sent };
}
