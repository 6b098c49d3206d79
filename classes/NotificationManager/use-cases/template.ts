/**
 * The template's own operations: creation from the catalogue, reading, and the
 * three changes of spec 6 (template_update, channel_update, status_update),
 * each an approval-gated change settled by `approve`.
 */
import type {
  GetNotificationTemplateInput,
  InitInput,
  UpdateNotificationChannelInput,
  UpdateNotificationTemplateInput,
  UpdateNotificationTemplateStatusInput,
} from '../../../schemas/NotificationManager/inputs';
import { settleGatedChange } from '../../_platform/gated-change';
import type { ApprovalCallbackBody } from '../../_platform/workflow';
import { notificationError } from '../errors';
import { applyChannelUpdate, applyTemplateUpdate, channelProblems } from '../rules';
import type { NotificationTemplate, TemplateEvent } from '../types';
import {
  applyChange,
  changeAnswer,
  ensureTemplate,
  now,
  requestChange,
  templateOf,
  type NMCtx,
  type NMReadCtx,
} from './common';
import { problemsText } from '../../_platform/paging';

/** INIT: a catalogue template with its defaults (used by the listing for templates not used yet). */
export async function initTemplate(ctx: NMCtx<InitInput>) {
  const { template } = await ensureTemplate(ctx);
  ctx.response.status = 201;
  return { template };
}

/** getNotificationTemplate: the template, the approval it waits for and the last review. */
export function getTemplate(ctx: NMReadCtx<GetNotificationTemplateInput>) {
  const s = ctx.state.private;
  return { template: templateOf(ctx), pendingApproval: s.pendingChange ?? null, lastReview: s.lastReview ?? null };
}

/** updateNotificationTemplate {title?, description?} (template_update). */
export async function updateTemplate(ctx: NMCtx<UpdateNotificationTemplateInput>) {
  const { template } = await ensureTemplate(ctx);
  const body = ctx.request.body;
  if (body.title === undefined && body.description === undefined) {
    throw notificationError('NOTIFICATION_NO_CHANGES', 'Give title or description', {
      errors: [{ field: 'title', reason: 'title or description is required' }],
    });
  }
  const requested = applyTemplateUpdate(template, body, now());
  if (!requested)
    throw notificationError('NOTIFICATION_NO_CHANGES', `The update changes nothing on template ${template.templateId}`);
  const change = await requestChange(ctx, 'template_update', template, requested, { fields: Object.keys(body) });
  return changeAnswer(ctx, change);
}

/** updateNotificationChannel {channel, content} (channel_update): the fields given replace the channel's. */
export async function updateChannel(ctx: NMCtx<UpdateNotificationChannelInput>) {
  const { template } = await ensureTemplate(ctx);
  const { channel, content } = ctx.request.body;
  const r = applyChannelUpdate(template, channel, content, now());
  if (r.ok === false)
    throw notificationError(
      'NOTIFICATION_INVALID_CHANNEL_CONTENT',
      `Invalid ${channel} channel: ${problemsText(r.problems)}`,
      { errors: r.problems },
    );
  if (r.ok === 'unchanged')
    throw notificationError(
      'NOTIFICATION_NO_CHANGES',
      `The update changes nothing on the ${channel} channel of ${template.templateId}`,
    );
  const problems = channelProblems(r.template.channels, channel);
  if (problems.length)
    throw notificationError('NOTIFICATION_INVALID_TEMPLATE', `Invalid template: ${problemsText(problems)}`, {
      errors: problems,
    });
  const change = await requestChange(ctx, 'channel_update', template, r.template, {
    channel,
    fields: Object.keys(content),
  });
  return changeAnswer(ctx, change);
}

/** updateNotificationTemplateStatus {status} (status_update): active or inactive. */
export async function updateStatus(ctx: NMCtx<UpdateNotificationTemplateStatusInput>) {
  const { template } = await ensureTemplate(ctx);
  const { status } = ctx.request.body;
  if (status === template.status) {
    throw notificationError('NOTIFICATION_STATUS_UNCHANGED', `Template ${template.templateId} is ${status} already`, {
      errors: [{ field: 'status', reason: `is the current status (${status})` }],
    });
  }
  const requested: NotificationTemplate = { ...template, status, updatedAt: now() };
  const change = await requestChange(ctx, 'status_update', template, requested, {
    fromStatus: template.status,
    toStatus: status,
  });
  return changeAnswer(ctx, change);
}

/**
 * Approval callback (approve and reject) of the three events: approve applies
 * the patch, reject keeps the template, a patch that no longer fits is dropped
 * (conflict), a redelivered callback changes nothing.
 */
export async function approve(ctx: NMCtx<ApprovalCallbackBody>) {
  const body = ctx.request.body;
  const s = ctx.state.private;
  const before = templateOf(ctx);
  const pending = s.pendingChange;
  const outcome = settleGatedChange(before, body, {
    pendingApprovalId: pending?.approvalId,
    lastSettledApprovalId: s.lastSettledApprovalId,
    mismatch: (waiting) =>
      notificationError(
        'NOTIFICATION_APPROVAL_MISMATCH',
        `Template ${before.templateId} does not wait for approval ${body.approvalId}`,
        { pendingApprovalId: waiting },
      ),
  });
  if (outcome.kind === 'settled') return { template: before, settled: true };
  const event = (pending?.event ?? body.event) as TemplateEvent;
  s.pendingChange = null;
  s.lastSettledApprovalId = body.approvalId;
  if (outcome.kind === 'approved') {
    await applyChange(ctx, before, outcome.entity, { event, approvalId: body.approvalId, action: body.action });
  } else if (outcome.kind === 'conflict') {
    ctx.log.warn(
      { approvalId: body.approvalId, problems: outcome.problems },
      'approved template change no longer applies',
    );
  }
  s.lastReview = {
    approvalId: body.approvalId,
    event,
    outcome: outcome.kind,
    at: now(),
    ...(outcome.kind === 'conflict' ? { problems: outcome.problems } : {}),
  };
  return { template: s.template, lastReview: s.lastReview };
}
