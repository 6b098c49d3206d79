/**
 * SystemEmail (spec 2.8, 3.3, 4.5, 6, 7.1 codes 11000-11099): one actor
 * instance per system email template (instance id = templateId); private
 * state holds `template` and the approval it waits for (types.ts). Template
 * changes and status changes go through the workflow
 * (workflow-configs/SystemEmail.json) with `approve` as their callback; every
 * applied change is audit-logged; templates stream to the
 * `systemEmailTemplates` collection, which the listing reads. sendSystemEmail
 * renders a template (classes/_platform/templates.ts) and sends it through
 * the mail port. Its state shape is versioned (state-migrations.ts).
 *
 * This file declares the methods and delegates: each body lives in
 * use-cases/<use case>.ts, its rules in rules.ts. README.md has the choices.
 */
import { ActorClass, Init, QueuedWrite, Read, Static, Write, type StaticCtx } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import type {
  CreateSystemEmailTemplateInput,
  GetSystemEmailTemplateFieldsInput,
  GetSystemEmailTemplateInput,
  ListSystemEmailTemplatesInput,
  PreviewTemplateInput,
  SendSystemEmailInput,
  SendTestMessageInput,
  UpdateSystemEmailTemplateInput,
  UpdateSystemEmailTemplateStatusInput,
} from '../../schemas/SystemEmail/inputs';
import { invalidQuery, LIST_SYSTEM_EMAIL_TEMPLATES, templateDocument, TEMPLATES_COLLECTION } from './rules';
import { SYSTEM_EMAIL_STATE_VERSIONS } from './state-migrations';
import type { SystemEmailClassState } from './types';
import { approve } from './use-cases/approval';
import { updateSystemEmailTemplate, updateSystemEmailTemplateStatus } from './use-cases/change';
import type { SystemEmailCtx, SystemEmailReadCtx } from './use-cases/common';
import { createSystemEmailTemplate, instanceIdOf } from './use-cases/create';
import { listSystemEmailTemplates } from './use-cases/listing';
import { previewTemplate, sendTestMessage } from './use-cases/preview';
import { getSystemEmailTemplate, getSystemEmailTemplateFields } from './use-cases/read';
import { sendSystemEmail } from './use-cases/send';

const PM = 'program_management_user';
/** html and json of a template are the largest bodies: well under the runtime's BODY_LIMIT */
const TEMPLATE_BODY_LIMIT = '2mb';

@ActorClass<SystemEmailClassState>({
  id: 'SystemEmail',
  description: 'System email templates and the mails rendered from them (spec 2.8, 4.5)',
  // templates are the programme's: company users may read them, never change or send them
  tenancy: SHARED_DATA,
  state: SYSTEM_EMAIL_STATE_VERSIONS,
  stream: {
    collections: {
      [TEMPLATES_COLLECTION]: { listings: [LIST_SYSTEM_EMAIL_TEMPLATES] },
    },
    toDocuments: (state, id) =>
      state.private.template
        ? [
            {
              collection: TEMPLATES_COLLECTION,
              id,
              doc: templateDocument(state.private.template, state.private.pendingApproval ?? null),
            },
          ]
        : [],
  },
})
export class SystemEmail {
  /** Creates template `templateId` (the instance id) with its type and status; applied at once (no creation event in spec 6). */
  @Init({ access: [PM], instanceId: instanceIdOf, bodyLimit: TEMPLATE_BODY_LIMIT })
  createSystemEmailTemplate(ctx: SystemEmailCtx<CreateSystemEmailTemplateInput>) {
    return createSystemEmailTemplate(ctx);
  }

  /** New title, subject, html, json (and `to` when given) through system_email_update. */
  @Write({ access: [PM], bodyLimit: TEMPLATE_BODY_LIMIT })
  updateSystemEmailTemplate(ctx: SystemEmailCtx<UpdateSystemEmailTemplateInput>) {
    return updateSystemEmailTemplate(ctx);
  }

  /** active or inactive through system_email_status_update. */
  @Write({ access: [PM] })
  updateSystemEmailTemplateStatus(ctx: SystemEmailCtx<UpdateSystemEmailTemplateStatusInput>) {
    return updateSystemEmailTemplateStatus(ctx);
  }

  @Read({ access: [PM, 'class'], onValidationError: invalidQuery })
  getSystemEmailTemplate(ctx: SystemEmailReadCtx<GetSystemEmailTemplateInput>) {
    return getSystemEmailTemplate(ctx);
  }

  /** The parameters the subject and html use (mustache's parser). */
  @Read({ access: [PM, 'class'], onValidationError: invalidQuery })
  getSystemEmailTemplateFields(ctx: SystemEmailReadCtx<GetSystemEmailTemplateFieldsInput>) {
    return getSystemEmailTemplateFields(ctx);
  }

  /** The template rendered with the given parameters and `[name]` for the others; sends nothing. */
  @Read({ access: [PM], onValidationError: invalidQuery })
  previewTemplate(ctx: SystemEmailReadCtx<PreviewTemplateInput>) {
    return previewTemplate(ctx);
  }

  /** The same rendering, subject marked `[Test] `, mailed to the caller's own address only. */
  @Write({ access: [PM] })
  sendTestMessage(ctx: SystemEmailCtx<SendTestMessageInput>) {
    return sendTestMessage(ctx);
  }

  /** From the document store: status, type, search; page 1.., limit 1-100 (default 10). */
  @Static({ access: [PM], onValidationError: invalidQuery })
  listSystemEmailTemplates(ctx: StaticCtx<ListSystemEmailTemplatesInput>) {
    return listSystemEmailTemplates(ctx);
  }

  /** Renders the template with `parameters` and mails it to `to` (else the template's `to`); active templates only. */
  @QueuedWrite({ access: ['class'], timeoutSeconds: 60 })
  sendSystemEmail(ctx: SystemEmailCtx<SendSystemEmailInput>) {
    return sendSystemEmail(ctx);
  }

  /** Approval callback (approve and reject) of system_email_update and system_email_status_update. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approve(ctx: SystemEmailCtx<ApprovalCallbackBody>) {
    return approve(ctx);
  }
}
