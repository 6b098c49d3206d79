/**
 * What NotificationManager's use cases share: the template of the instance
 * (created from the catalogue on first use), the approval-gated change of a
 * template (classes/_platform/gated-change.ts) and its audit entry.
 */
import type { Ctx, ReadCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { requestGatedChange, type GatedChange } from '../../_platform/gated-change';
import { defaultTemplate } from '../builtins';
import { notificationError } from '../errors';
import type { NotificationManagerClassState, NotificationTemplate, TemplateEvent } from '../types';

/** a NotificationManager handler's context: the template's state and the method's body `I` */
export type NMCtx<I = unknown> = Ctx<NotificationManagerClassState, I>;
export type NMReadCtx<I = unknown> = ReadCtx<NotificationManagerClassState, I>;

export const APPROVE = 'approve';
export const ENTITY_TYPE = 'notification_template';

export function now(): string {
  return new Date().toISOString();
}

function notFound(templateId: string) {
  return notificationError('NOTIFICATION_TEMPLATE_NOT_FOUND', `There is no notification template '${templateId}'`, {
    templateId,
  });
}

/** The stored template (an instance exists only with one). */
export function templateOf(ctx: NMReadCtx<unknown> | NMCtx<unknown>): NotificationTemplate {
  const t = ctx.state.private.template;
  if (!t) throw notFound(ctx.instanceId ?? '');
  return t as NotificationTemplate;
}

/**
 * The template of a write that may be the template's first use (an upsert
 * method): the stored one, or the catalogue's defaults stored now (and
 * audit-logged as a creation); 404 for an id the catalogue does not have, and
 * nothing is created then.
 */
export async function ensureTemplate(
  ctx: NMCtx<unknown>,
): Promise<{ template: NotificationTemplate; created: boolean }> {
  const s = ctx.state.private;
  if (s.template) return { template: s.template, created: false };
  const id = ctx.instanceId!;
  const template = defaultTemplate(id, now());
  if (!template) throw notFound(id);
  s.template = template;
  s.pendingChange = null;
  s.lastSettledApprovalId = null;
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: id,
    before: null,
    after: template,
    additionalData: { event: 'template_create', builtIn: true },
  });
  return { template, created: true };
}

/** The answer of every change: the template now, the approval, and what it becomes once approved when it waits. */
export function changeAnswer(ctx: NMCtx<unknown>, change: GatedChange<NotificationTemplate>) {
  const s = ctx.state.private;
  return {
    template: s.template,
    pendingApproval: s.pendingChange ?? null,
    approval: change.approval,
    ...(change.applied ? {} : { requestedTemplate: change.workflow.simulatedApprovedState }),
  };
}

/** Stores an applied change and logs it. */
export async function applyChange(
  ctx: NMCtx<unknown>,
  before: NotificationTemplate,
  after: NotificationTemplate,
  additionalData: Record<string, unknown>,
): Promise<void> {
  const s = ctx.state.private;
  s.template = after;
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: after.templateId,
    before,
    after,
    ignore: ['updatedAt'],
    additionalData,
  });
}

/** A change through the workflow (spec 6): applied now when approved at once, else held until `approve`. */
export async function requestChange(
  ctx: NMCtx<unknown>,
  event: TemplateEvent,
  before: NotificationTemplate,
  requested: NotificationTemplate,
  additionalData: Record<string, unknown> = {},
): Promise<GatedChange<NotificationTemplate>> {
  const s = ctx.state.private;
  const change = await requestGatedChange(ctx, {
    event,
    entityId: before.templateId,
    oldEntity: before,
    newEntity: requested,
    pendingApprovalId: s.pendingChange?.approvalId,
    whilePending: (approvalId) =>
      notificationError(
        'NOTIFICATION_APPROVAL_PENDING',
        `Template ${before.templateId} waits for approval ${approvalId} (${s.pendingChange?.event})`,
        {
          approvalId,
          event: s.pendingChange?.event,
        },
      ),
    approveCallback: APPROVE,
    rejectCallback: APPROVE,
    additionalData,
  });
  if (change.applied) {
    await applyChange(ctx, before, change.entity, { event, approvalId: change.approvalRecord.id, ...additionalData });
  } else {
    s.pendingChange = { approvalId: change.approvalId, event, requestedAt: now() };
  }
  return change;
}
