/** Mail and SMS a handler sends as part of its change (ctx.mail, ctx.sms). */

/**
 * A mail a handler sends with `ctx.mail.send`: committed with the handler's
 * change and delivered after it by a worker (README "Mail"). Addresses are
 * plain `local@domain`; `from` and `replyTo` may be `Name <local@domain>`;
 * `from` defaults to MAIL_FROM; html or text (or both) is required.
 */
export interface MailMessage {
  to: string[];
  cc?: string[];
  bcc?: string[];
  from?: string;
  replyTo?: string;
  subject: string;
  html?: string;
  text?: string;
}

/** An SMS a handler sends with `ctx.sms.send` (phone numbers as `+` and 6-15 digits), committed and delivered like a mail. */
export interface SmsMessage {
  to: string[];
  text: string;
}

/**
 * Sends messages of one kind as part of the handler's change: the message is
 * checked now (400 VALIDATION naming the field otherwise), committed with the
 * change and handed to a delivery queue only once the change commits, so a
 * handler that throws, times out or loses its commit sends nothing. Resolves
 * to the message id, chosen now (a mail's Message-ID header is `<id@PROJECT_ID>`).
 */
export interface MessageSender<M> {
  send(message: M): Promise<string>;
}
