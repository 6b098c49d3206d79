/** getSystemEmailTemplate and getSystemEmailTemplateFields (READ). */
import { fieldsOfTemplate } from '../rules';
import type {
  GetSystemEmailTemplateFieldsInput,
  GetSystemEmailTemplateInput,
} from '../../../schemas/SystemEmail/inputs';
import type { SystemEmailReadCtx } from './common';

export function getSystemEmailTemplate(ctx: SystemEmailReadCtx<GetSystemEmailTemplateInput>) {
  const s = ctx.state.private;
  return { template: s.template, pendingApproval: s.pendingApproval ?? null };
}

/** The parameters the template uses (mustache's parser): a send must give each of them as a string. */
export function getSystemEmailTemplateFields(ctx: SystemEmailReadCtx<GetSystemEmailTemplateFieldsInput>) {
  const t = ctx.state.private.template;
  return { templateId: t.templateId, ...fieldsOfTemplate(t) };
}
