/**
 * What SystemEmail's use cases share: the handlers' context types, the
 * approval callback's name, the refusal while a template waits for an
 * approval, and the audit entry of a change.
 */
import type { Ctx, ReadCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { systemEmailError } from '../errors';
import type { SystemEmailClassState, SystemEmailTemplate } from '../types';

/** a SystemEmail write's context: the template's state, and the method's body `I` */
export type SystemEmailCtx<I = Record<string, never>> = Ctx<SystemEmailClassState, I>;
/** a SystemEmail READ's context */
export type SystemEmailReadCtx<I = Record<string, never>> = ReadCtx<SystemEmailClassState, I>;

/** the approval callback (approve and reject) of every SystemEmail event */
export const APPROVAL_CALLBACK = 'approve';

/** entity type of the audit entries */
export const ENTITY_TYPE = 'systemEmailTemplate';

export const now = () => new Date().toISOString();

/** The refusal of a change asked while the template waits for approval `approvalId` (409 11002). */
export function whilePending(templateId: string) {
  return (approvalId: string) =>
    systemEmailError(
      'SYSTEM_EMAIL_APPROVAL_PENDING',
      `Template ${templateId} waits for approval ${approvalId}; it takes no other change until then`,
      { approvalId },
    );
}

/**
 * The audit entry of a change. Default recipients are email addresses
 * (personal data): masked in the entry.
 */
export async function logTemplate(
  ctx: SystemEmailCtx<unknown>,
  before: SystemEmailTemplate | null,
  after: SystemEmailTemplate,
  additionalData: Record<string, unknown>,
) {
  await logChange(ctx, {
    entityType: ENTITY_TYPE,
    entityId: after.templateId,
    before,
    after,
    sensitiveFields: ['to'],
    ignore: ['updatedAt'],
    additionalData,
  });
}

/** Every change answers the template as it is now, the approval it waits for, and the approval the change made. */
export function changeAnswer(ctx: SystemEmailCtx<unknown>, approval: unknown, requested?: SystemEmailTemplate) {
  const s = ctx.state.private;
  return {
    template: s.template,
    pendingApproval: s.pendingApproval,
    approval,
    ...(requested ? { requestedTemplate: requested } : {}),
  };
}
