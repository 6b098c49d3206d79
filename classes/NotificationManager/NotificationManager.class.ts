/**
 * NotificationManager (spec 2.8, 3.3, 4.5, 6): one instance per notification
 * template (instance id = templateId), private state `template` (types.ts).
 * Templates are the catalogue's (builtins.ts), each created with its defaults
 * on first use. Changes go through the workflow (template_update,
 * channel_update, status_update; workflow-configs/NotificationManager.json)
 * and are settled by `approve`. Sends render each enabled channel and fan out
 * to mail, inboxes (UserNotification) and SMS as committed effects.
 *
 * This file declares the methods and delegates to use-cases/; README.md has
 * the operations, choices and error codes.
 */
import { ActorClass, Init, QueuedWrite, Read, Static, Write, type StaticCtx } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import type {
  GetNotificationTemplateInput,
  InitInput,
  ListNotificationTemplatesInput,
  PreviewTemplateInput,
  SendTestMessageInput,
  UpdateNotificationChannelInput,
  UpdateNotificationTemplateInput,
  UpdateNotificationTemplateStatusInput,
} from '../../schemas/NotificationManager/inputs';
import { invalidQuery, LIST_NOTIFICATION_TEMPLATES, TEMPLATES_COLLECTION, templateDocument } from './rules';
import type { Delivery, NotificationManagerClassState, SendNotificationInput } from './types';
import type { NMCtx, NMReadCtx } from './use-cases/common';
import { listTemplates } from './use-cases/listing';
import { previewTemplate, sendTestMessage } from './use-cases/preview';
import { DELIVERY_BUDGET_S, deliverNotification, sendNotification } from './use-cases/send';
import * as template from './use-cases/template';

const PM = 'program_management_user';

@ActorClass<NotificationManagerClassState>({
  id: 'NotificationManager',
  description: 'Notification templates and their channels; sends email, in-app and SMS notifications (spec 4.5)',
  // templates are the programme's: company users may read them, never change them
  tenancy: SHARED_DATA,
  stream: {
    collections: { [TEMPLATES_COLLECTION]: { listings: [LIST_NOTIFICATION_TEMPLATES] } },
    toDocuments: (state, id) => {
      const t = state.private.template;
      return t ? [{ collection: TEMPLATES_COLLECTION, id, doc: templateDocument(t, state.private.pendingChange) }] : [];
    },
  },
})
export class NotificationManager {
  /** A catalogue template with its defaults; the listing creates the ones never used. */
  @Init({ access: ['class:NotificationManager'] })
  init(ctx: NMCtx<InitInput>) {
    return template.initTemplate(ctx);
  }

  /**
   * Spec 4.5: {to, parameters} → 204. Sends only when the template is active;
   * renders each enabled channel and queues the fan-out (deliverNotification).
   * A WRITE so that callers commit it with their change (ctx.effect; client.ts
   * `notify`); upsert: a catalogue template is created on its first send.
   */
  @Write({ access: ['class'], upsert: true, timeoutSeconds: 30, bodyLimit: '4mb' })
  sendNotification(ctx: NMCtx<SendNotificationInput>) {
    return sendNotification(ctx);
  }

  /** The fan-out of one send, on a worker: mails, inbox items and SMS, committed with it. */
  @QueuedWrite({ access: ['class:NotificationManager'], upsert: true, timeoutSeconds: DELIVERY_BUDGET_S })
  deliverNotification(ctx: NMCtx<{ delivery: Delivery }>) {
    return deliverNotification(ctx);
  }

  /** {title?, description?} (event template_update). */
  @Write({ access: [PM], upsert: true })
  updateNotificationTemplate(ctx: NMCtx<UpdateNotificationTemplateInput>) {
    return template.updateTemplate(ctx);
  }

  /** {channel, content}: the fields given replace the channel's (event channel_update). */
  @Write({ access: [PM], upsert: true })
  updateNotificationChannel(ctx: NMCtx<UpdateNotificationChannelInput>) {
    return template.updateChannel(ctx);
  }

  /** {status: active|inactive} (event status_update). */
  @Write({ access: [PM], upsert: true })
  updateNotificationTemplateStatus(ctx: NMCtx<UpdateNotificationTemplateStatusInput>) {
    return template.updateStatus(ctx);
  }

  /** Approval callback (approve and reject) of the three events; queued by ApprovalManager. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  approve(ctx: NMCtx<ApprovalCallbackBody>) {
    return template.approve(ctx);
  }

  /** The template, the approval it waits for, the last review. */
  @Read({ access: [PM, 'class'], onValidationError: invalidQuery })
  getNotificationTemplate(ctx: NMReadCtx<GetNotificationTemplateInput>) {
    return template.getTemplate(ctx);
  }

  /** Every channel rendered with the given parameters and `[name]` for the others; sends nothing (a catalogue template never used: its defaults). */
  @Read({ access: [PM], emptyWhenMissing: true, onValidationError: invalidQuery })
  previewTemplate(ctx: NMReadCtx<PreviewTemplateInput>) {
    return previewTemplate(ctx);
  }

  /** The email channel's rendering, subject marked `[Test] `, mailed to the caller's own address only. */
  @Write({ access: [PM], upsert: true })
  sendTestMessage(ctx: NMCtx<SendTestMessageInput>) {
    return sendTestMessage(ctx);
  }

  /** {page?, limit? (1-100, default 10), status?, search?} from the document store; POST body or GET query (bad: 400 16008). */
  @Static({ access: [PM], onValidationError: invalidQuery })
  listNotificationTemplates(ctx: StaticCtx<ListNotificationTemplatesInput>) {
    return listTemplates(ctx);
  }
}
