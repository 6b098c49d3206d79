/**
 * updateSystemEmailTemplate (system_email_update) and
 * updateSystemEmailTemplateStatus (system_email_status_update), each an
 * approval-gated change: refused while the template waits for an approval,
 * applied now when the workflow approves it at once (and audit-logged),
 * otherwise held until `approve` settles it.
 */
import { requestGatedChange } from '../../_platform/gated-change';
import { systemEmailError } from '../errors';
import { applyUpdate, sameContent, statusMove, templateProblems } from '../rules';
import { SYSTEM_EMAIL_EVENTS, type SystemEmailEvent, type SystemEmailTemplate, type TemplateStatus } from '../types';
import type {
  UpdateSystemEmailTemplateInput,
  UpdateSystemEmailTemplateStatusInput,
} from '../../../schemas/SystemEmail/inputs';
import { APPROVAL_CALLBACK, changeAnswer, logTemplate, now, whilePending, type SystemEmailCtx } from './common';
import { problemsText } from '../../_platform/paging';

async function change(
  ctx: SystemEmailCtx<unknown>,
  event: SystemEmailEvent,
  requested: SystemEmailTemplate,
  additionalData: Record<string, unknown> = {},
) {
  const s = ctx.state.private;
  const old = s.template;
  const gated = await requestGatedChange(ctx, {
    event,
    entityId: old.templateId,
    oldEntity: old,
    newEntity: requested,
    pendingApprovalId: s.pendingApproval?.id,
    whilePending: whilePending(old.templateId),
    approveCallback: APPROVAL_CALLBACK,
    rejectCallback: APPROVAL_CALLBACK,
    additionalData,
  });
  if (gated.applied) {
    s.template = gated.entity;
    await logTemplate(ctx, old, gated.entity, { event, approvalId: gated.approvalRecord.id, ...additionalData });
    return changeAnswer(ctx, gated.approval);
  }
  s.pendingApproval = {
    id: gated.approvalId,
    event,
    requestedStatus: (gated.newStatus ?? old.status) as TemplateStatus,
  };
  return changeAnswer(ctx, gated.approval, gated.workflow.simulatedApprovedState);
}

export async function updateSystemEmailTemplate(ctx: SystemEmailCtx<UpdateSystemEmailTemplateInput>) {
  const body = ctx.request.body;
  const s = ctx.state.private;
  whilePendingCheck(ctx);
  const problems = templateProblems(body);
  if (problems.length)
    throw systemEmailError('SYSTEM_EMAIL_INVALID_TEMPLATE', `Invalid template: ${problemsText(problems)}`, {
      errors: problems,
    });
  const requested = applyUpdate(s.template, body, now());
  if (sameContent(requested, s.template))
    throw systemEmailError(
      'SYSTEM_EMAIL_NO_CHANGES',
      `The update changes nothing on template ${s.template.templateId}`,
    );
  return change(ctx, SYSTEM_EMAIL_EVENTS.update, requested);
}

export async function updateSystemEmailTemplateStatus(ctx: SystemEmailCtx<UpdateSystemEmailTemplateStatusInput>) {
  const { status } = ctx.request.body;
  const s = ctx.state.private;
  whilePendingCheck(ctx);
  const move = statusMove(s.template.status, status);
  if (!move.ok)
    throw systemEmailError('SYSTEM_EMAIL_STATUS_UNCHANGED', `Template ${s.template.templateId}: ${move.reason}`, {
      status,
    });
  const requested: SystemEmailTemplate = { ...s.template, status: move.to, updatedAt: now() };
  return change(ctx, SYSTEM_EMAIL_EVENTS.status, requested, { fromStatus: s.template.status, toStatus: move.to });
}

/** A waiting template answers 409 before the request is checked further (requestGatedChange checks again). */
function whilePendingCheck(ctx: SystemEmailCtx<unknown>): void {
  const pending = ctx.state.private.pendingApproval;
  if (pending) throw whilePending(ctx.state.private.template.templateId)(pending.id);
}
