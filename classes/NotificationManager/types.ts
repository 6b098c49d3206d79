/** NotificationManager records (spec 2.8 "Notification template", its channels). */
import type { StateOf } from '../../runtime';

export const TEMPLATE_STATUSES = ['active', 'inactive'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

export const CHANNELS = ['email', 'in_app', 'sms'] as const;
export type ChannelName = (typeof CHANNELS)[number];

/** Spec 2.8 "Email channel": enabled, to (default recipients), subject, json, html. */
export interface EmailChannel {
  enabled: boolean;
  /** recipients every send adds to the call's (addresses) */
  to: string[];
  subject: string;
  /** the email editor's design document (JSON text); kept for the editor, not sent */
  json: string;
  html: string;
}

/** Spec 2.8 "In-app channel": enabled, subject, content, metadata?. */
export interface InAppChannel {
  enabled: boolean;
  subject: string;
  content: string;
  /** copied to every inbox item as it is (a link, an entity id, ...) */
  metadata?: Record<string, unknown>;
}

/** Spec 2.8 "SMS channel": enabled, content, to? (default recipients). */
export interface SmsChannel {
  enabled: boolean;
  content: string;
  to?: string[];
}

export interface Channels {
  email: EmailChannel;
  in_app: InAppChannel;
  sms: SmsChannel;
}

/** Who a built-in template is written for (README "Built-in templates"). */
export type TemplateAudience = 'program_management' | 'member';

/** Spec 2.8 "Notification template": templateId, title, description, status, channels. */
export interface NotificationTemplate {
  templateId: string;
  title: string;
  description: string;
  status: TemplateStatus;
  channels: Channels;
  audience: TemplateAudience;
  createdAt: string;
  updatedAt: string;
}

export type TemplateEvent = 'template_update' | 'channel_update' | 'status_update';

/** The approval a held change waits for. */
export interface PendingChange {
  approvalId: string;
  event: TemplateEvent;
  requestedAt: string;
}

export interface NotificationManagerState {
  template: NotificationTemplate;
  pendingChange: PendingChange | null;
  /** the last approval a callback settled: a redelivered callback for it changes nothing */
  lastSettledApprovalId?: string | null;
  /** the outcome of the last review, for the back office */
  lastReview?: {
    approvalId: string;
    event: TemplateEvent;
    outcome: 'approved' | 'rejected' | 'conflict';
    at: string;
    problems?: string[];
  } | null;
}

/** The class's state (`@ActorClass<NotificationManagerClassState>`); empty before the template exists. */
export type NotificationManagerClassState = StateOf<Partial<NotificationManagerState>>;

export type { SendNotificationInput } from '../_platform/notify';

/** One rendered in-app item, as UserNotification.addNotification takes it. */
export interface RenderedInApp {
  templateId: string;
  subject?: string;
  content: string;
  metadata?: Record<string, unknown>;
}

/** What one send delivers: rendered content per enabled channel and each channel's recipients. */
export interface Delivery {
  templateId: string;
  email?: { to: string[]; subject: string; html: string };
  inApp?: { inboxes: string[]; item: RenderedInApp };
  sms?: { to: string[]; text: string };
}

export interface ListTemplatesQuery {
  page: number;
  limit: number;
  status?: TemplateStatus;
  search?: string;
}
