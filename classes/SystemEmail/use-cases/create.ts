/**
 * createSystemEmailTemplate (INIT): a template of the given id, type and
 * status. Spec 6 names no creation event for SystemEmail, so a creation is
 * applied at once (and audit-logged); later changes go through the workflow.
 */
import { actorFromIdentity } from '../../_platform/actor';
import { systemEmailError } from '../errors';
import { buildTemplate, templateProblems } from '../rules';
import type { CreateSystemEmailTemplateInput } from '../../../schemas/SystemEmail/inputs';
import { logTemplate, now, type SystemEmailCtx } from './common';
import { problemsText } from '../../_platform/paging';

/**
 * The new instance's id (InitOptions.instanceId): the path's, when the call
 * names one, else the body's templateId. The handler then refuses a body
 * whose templateId is not that id.
 */
export function instanceIdOf(req: { body?: unknown; path?: { instanceId?: string } }): string | undefined {
  if (req.path?.instanceId) return req.path.instanceId;
  const id = (req.body as { templateId?: unknown } | undefined)?.templateId;
  return typeof id === 'string' ? id : undefined;
}

export async function createSystemEmailTemplate(ctx: SystemEmailCtx<CreateSystemEmailTemplateInput>) {
  const body = ctx.request.body;
  if (ctx.instanceId !== body.templateId) {
    throw systemEmailError(
      'SYSTEM_EMAIL_TEMPLATE_ID_MISMATCH',
      `The path names template ${ctx.instanceId}, the body ${body.templateId}`,
      {
        errors: [{ field: 'templateId', reason: `must be the instance id of the path (${ctx.instanceId})` }],
      },
    );
  }
  const problems = templateProblems(body);
  if (problems.length)
    throw systemEmailError('SYSTEM_EMAIL_INVALID_TEMPLATE', `Invalid template: ${problemsText(problems)}`, {
      errors: problems,
    });
  const actor = actorFromIdentity(ctx.identity);
  const template = buildTemplate(
    body,
    { id: actor.id, type: actor.type, ...(actor.name ? { name: actor.name } : {}) },
    now(),
  );
  const s = ctx.state.private;
  s.template = template;
  s.pendingApproval = null;
  s.lastReview = null;
  await logTemplate(ctx, null, template, { event: 'system_email_create' });
  ctx.response.status = 201;
  return { template, pendingApproval: null };
}
