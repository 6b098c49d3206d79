/**
 * SystemEmail's records (spec 2.8 "System email template"): one actor
 * instance per template (instance id = templateId); private state holds
 * `template` and the approval it waits for.
 */
import type { StateOf } from '../../runtime';

export const TEMPLATE_TYPES = ['member', 'program_management', 'system'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export const TEMPLATE_STATUSES = ['active', 'inactive'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** the workflow events of the class (spec 6) */
export const SYSTEM_EMAIL_EVENTS = { update: 'system_email_update', status: 'system_email_status_update' } as const;
export type SystemEmailEvent = (typeof SYSTEM_EMAIL_EVENTS)[keyof typeof SYSTEM_EMAIL_EVENTS];

/** who created the template (spec 2.8 Actor, without roles) */
export interface TemplateCreator {
  id: string;
  type: string;
  name?: string;
}

export interface SystemEmailTemplate {
  templateId: string;
  type: TemplateType;
  status: TemplateStatus;
  /** default recipients, used when a send names none */
  to: string[];
  title: string;
  /** mustache template, rendered without escaping */
  subject: string;
  /** mustache template, every value HTML-escaped */
  html: string;
  /** the email editor's design document behind `html`; stored and answered as given, never rendered */
  json: Record<string, unknown>;
  createdBy: TemplateCreator;
  createdAt: string;
  updatedAt: string;
}

/** the approval a template waits for */
export interface PendingApproval {
  id: string;
  event: SystemEmailEvent;
  /** the status the template has once approved */
  requestedStatus: TemplateStatus;
}

/** how the last approval callback ended; its approvalId is the redelivery guard (a callback for it again changes nothing) */
export interface LastReview {
  approvalId: string;
  event: string;
  action: 'approve' | 'reject';
  outcome: 'applied' | 'rejected' | 'conflict';
  by: string | null;
  at: string;
}

/**
 * A template's private state, at state version 2 (state-migrations.ts has
 * what each version changed).
 */
export interface SystemEmailState {
  template: SystemEmailTemplate;
  pendingApproval: PendingApproval | null;
  /** the last approval a callback settled, null before the first */
  lastReview: LastReview | null;
}

/** The class's state (`@ActorClass<SystemEmailClassState>`). */
export type SystemEmailClassState = StateOf<SystemEmailState>;
