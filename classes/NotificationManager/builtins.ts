/**
 * The template catalogue (pure): every template the service sends, with the
 * defaults an instance gets when it is created on first use (spec 4.5: "A
 * missing template instance is created with defaults on first use"). The four
 * program-management ids are the spec's, spelled as it spells them
 * (SSO_USER_INTIVATION_PROGRAM_MANAGEMENT); the member ones are for member
 * sign-in. Templates are not created otherwise: a template only matters to
 * the code that sends it with its parameters (README "Built-in templates").
 */
import type { Channels, NotificationTemplate, TemplateAudience } from './types';

interface BuiltIn {
  title: string;
  description: string;
  audience: TemplateAudience;
  channels: Channels;
}

const BRAND = 'Membership Program';

function emailOnly(subject: string, html: string): Channels {
  return {
    email: { enabled: true, to: [], subject, json: '', html },
    in_app: { enabled: false, subject, content: '' },
    sms: { enabled: false, content: '' },
  };
}

const CATALOGUE: Readonly<Record<string, BuiltIn>> = Object.freeze({
  OTP_PROGRAM_MANAGEMENT_INVITE: {
    title: 'Back-office invitation (one-time code)',
    description:
      "Sent to a new program management user with the one-time code that completes the invitation. Parameters: name, otp, inviteUrl (the back office's accept-invitation page with the email and code).",
    audience: 'program_management',
    channels: emailOnly(
      `You are invited to the ${BRAND} back office`,
      `<p>Hello {{name}},</p><p>You have been invited to the ${BRAND} back office. Your one-time code is <strong>{{otp}}</strong>.</p><p>Set your password at <a href="{{inviteUrl}}">{{inviteUrl}}</a>.</p>`,
    ),
  },
  OTP_PROGRAM_MANAGEMENT_LOGIN: {
    title: 'Back-office sign-in code',
    description: 'The one-time code of an email and password sign-in to the back office. Parameters: otp.',
    audience: 'program_management',
    channels: emailOnly(
      `Your ${BRAND} sign-in code`,
      `<p>Your sign-in code is <strong>{{otp}}</strong>.</p><p>If you did not try to sign in, ignore this message.</p>`,
    ),
  },
  OTP_PROGRAM_MANAGEMENT_PASSWORD_RESET: {
    title: 'Back-office password reset code',
    description:
      "The one-time code that resets a back-office password. Parameters: otp, resetUrl (the back office's reset page with the email and code).",
    audience: 'program_management',
    channels: emailOnly(
      `Reset your ${BRAND} password`,
      `<p>Your password reset code is <strong>{{otp}}</strong>.</p><p>Choose a new password at <a href="{{resetUrl}}">{{resetUrl}}</a>.</p><p>If you did not ask for it, ignore this message.</p>`,
    ),
  },
  SSO_USER_INTIVATION_PROGRAM_MANAGEMENT: {
    title: 'Back-office invitation (single sign-on)',
    description: 'Sent to a new program management user who signs in with single sign-on. Parameters: name, loginUrl.',
    audience: 'program_management',
    channels: emailOnly(
      `You are invited to the ${BRAND} back office`,
      `<p>Hello {{name}},</p><p>You have been invited to the ${BRAND} back office. Sign in with your company account at <a href="{{loginUrl}}">{{loginUrl}}</a>.</p>`,
    ),
  },
  OTP_MEMBER_LOGIN: {
    title: 'Member sign-in code',
    description: 'The one-time code of a member email and password sign-in. Parameters: otp.',
    audience: 'member',
    channels: emailOnly(
      `Your ${BRAND} sign-in code`,
      `<p>Your sign-in code is <strong>{{otp}}</strong>.</p><p>If you did not try to sign in, ignore this message.</p>`,
    ),
  },
  MEMBER_DEPENDANT_INVITATION: {
    title: 'Dependant invitation',
    description:
      'A primary member invites a dependant to the member application (inviteMyDependant). Parameters: name, inviterName, otp (the registration code).',
    audience: 'member',
    channels: emailOnly(
      `{{inviterName}} invited you to the ${BRAND}`,
      `<p>Hello {{name}},</p><p>{{inviterName}} invited you to the ${BRAND}. Register in the member application with this email and the code <strong>{{otp}}</strong>, and choose your password.</p><p>If you do not know {{inviterName}}, ignore this message.</p>`,
    ),
  },
  MEMBER_REGISTRATION_CODE: {
    title: 'Member registration code',
    description:
      'The one-time code an employee types to register in the member application (sent after discoverAuthMethod for an employee HR lists as active). Parameters: otp, name.',
    audience: 'member',
    channels: emailOnly(
      `Your ${BRAND} registration code`,
      `<p>Hello {{name}},</p><p>Your registration code is <strong>{{otp}}</strong>. Type it in the member application with the password you choose.</p><p>If you did not ask to register, ignore this message.</p>`,
    ),
  },
  OTP_MEMBER_PASSWORD_RESET: {
    title: 'Member password reset code',
    description:
      "The link that resets a member password. Parameters: otp (the link token), resetUrl (the member application's reset-password route), name.",
    audience: 'member',
    channels: emailOnly(
      `Reset your ${BRAND} password`,
      `<p>Choose a new password at <a href="{{resetUrl}}">{{resetUrl}}</a>.</p><p>If the link does not open, your reset code is <strong>{{otp}}</strong>.</p><p>If you did not ask for it, ignore this message.</p>`,
    ),
  },
  MEMBER_INVITATION: {
    title: 'Member invitation',
    description:
      'Invites a member who signs in by email and password to set a password (spec 3.1 sendInviteEmail). Parameters: name, inviteUrl, otp (the invitation token).',
    audience: 'member',
    channels: emailOnly(
      `Your ${BRAND} invitation`,
      `<p>Hello {{name}},</p><p>You are invited to the ${BRAND}. Set your password at <a href="{{inviteUrl}}">{{inviteUrl}}</a>.</p><p>If the link does not open, your invitation code is <strong>{{otp}}</strong>.</p>`,
    ),
  },
  HR_DEACTIVATIONS_HELD: {
    title: 'HR deactivations held',
    description:
      "Tells the program's operators (HR_QUARANTINE_NOTIFY) that a company passed its limit of deactivations from HR and further ones are held for review; sent once per company and window. Parameters: companyId, limit, windowMinutes, approvalId (the first held push's approval).",
    audience: 'program_management',
    channels: emailOnly(
      `${BRAND}: deactivations from HR held for review`,
      `<p>The HR system deactivated more than {{limit}} members of company {{companyId}} within {{windowMinutes}} minutes. Further deactivations of this company are held, not applied.</p><p>Review them in the back office: approvals of event HR_DEACTIVATION_HELD (the first is {{approvalId}}). Approving one applies it; rejecting it discards it.</p>`,
    ),
  },
  MEMBER_WELCOME: {
    title: 'Member welcome',
    description:
      'Welcomes a member whose membership account is ready, by email and in the app. Parameters: name, loginUrl.',
    audience: 'member',
    channels: {
      email: {
        enabled: true,
        to: [],
        subject: `Welcome to the ${BRAND}`,
        json: '',
        html: `<p>Hello {{name}},</p><p>Your ${BRAND} account is ready. Sign in at <a href="{{loginUrl}}">{{loginUrl}}</a>.</p>`,
      },
      in_app: { enabled: true, subject: `Welcome to the ${BRAND}`, content: 'Hello {{name}}, your account is ready.' },
      sms: { enabled: false, content: '' },
    },
  },
  MEMBERSHIP_EXPIRING: {
    title: 'Membership ending soon',
    description:
      'Tells a member MEMBERSHIP_REMINDER_DAYS before a membership ends, by email and in the app. Parameters: name, tierName, endDate (YYYY-MM-DD), membershipId, renewsAutomatically ("yes" when the company renews it, else empty).',
    audience: 'member',
    channels: {
      email: {
        enabled: true,
        to: [],
        subject: `Your ${BRAND} membership ends on {{endDate}}`,
        json: '',
        html: `<p>Hello {{name}},</p><p>Your {{tierName}} membership ends on {{endDate}}.</p>{{#renewsAutomatically}}<p>Your company renews it automatically: nothing to do.</p>{{/renewsAutomatically}}{{^renewsAutomatically}}<p>Renew it before then to keep its benefits.</p>{{/renewsAutomatically}}`,
      },
      in_app: {
        enabled: true,
        subject: 'Your membership ends soon',
        content: 'Your {{tierName}} membership ends on {{endDate}}.',
      },
      sms: { enabled: false, content: '' },
    },
  },
  MEMBERSHIP_EXPIRED: {
    title: 'Membership expired',
    description:
      'Tells a member that a membership reached its end and expired, by email and in the app. Parameters: name, tierName, endDate (YYYY-MM-DD), membershipId.',
    audience: 'member',
    channels: {
      email: {
        enabled: true,
        to: [],
        subject: `Your ${BRAND} membership has expired`,
        json: '',
        html: `<p>Hello {{name}},</p><p>Your {{tierName}} membership expired on {{endDate}}. Renew it to use its benefits again.</p>`,
      },
      in_app: {
        enabled: true,
        subject: 'Your membership has expired',
        content: 'Your {{tierName}} membership expired on {{endDate}}.',
      },
      sms: { enabled: false, content: '' },
    },
  },
  MEMBERSHIP_RENEWED: {
    title: 'Membership renewed',
    description:
      'Tells a member that a membership was renewed (by the member, the back office or the company automatically), by email and in the app. Parameters: name, tierName, endDate (the new end, YYYY-MM-DD), membershipId.',
    audience: 'member',
    channels: {
      email: {
        enabled: true,
        to: [],
        subject: `Your ${BRAND} membership is renewed`,
        json: '',
        html: `<p>Hello {{name}},</p><p>Your {{tierName}} membership is renewed until {{endDate}}.</p>`,
      },
      in_app: {
        enabled: true,
        subject: 'Your membership is renewed',
        content: 'Your {{tierName}} membership is renewed until {{endDate}}.',
      },
      sms: { enabled: false, content: '' },
    },
  },
});

/** The ids of the catalogue, in a stable order. */
export const BUILT_IN_TEMPLATE_IDS: readonly string[] = Object.freeze(Object.keys(CATALOGUE).sort());

export function isBuiltIn(templateId: string): boolean {
  return Object.prototype.hasOwnProperty.call(CATALOGUE, templateId);
}

/** The template a catalogue id starts with (active, so sign-in works out of the box); undefined for other ids. */
export function defaultTemplate(templateId: string, now: string): NotificationTemplate | undefined {
  if (!isBuiltIn(templateId)) return undefined;
  const b = CATALOGUE[templateId];
  return {
    templateId,
    title: b.title,
    description: b.description,
    status: 'active',
    channels: JSON.parse(JSON.stringify(b.channels)) as Channels,
    audience: b.audience,
    createdAt: now,
    updatedAt: now,
  };
}
