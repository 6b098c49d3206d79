/** The nodemailer message both mail adapters build from a committed mail. */
import type { SendMailOptions } from 'nodemailer';
import { messageIdHeader, type OutboundMail } from './message';

export interface ComposeOptions {
  projectId: string;
  /** MAIL_FROM: the sender of a mail that names none */
  defaultFrom: string;
}

export function sendMailOptions(mail: OutboundMail, opts: ComposeOptions): SendMailOptions {
  return {
    // the id chosen when the handler sent it: a receiver sees a redelivered copy as the same message
    messageId: messageIdHeader(mail.id, opts.projectId),
    from: mail.from ?? opts.defaultFrom,
    to: mail.to,
    ...(mail.cc?.length ? { cc: mail.cc } : {}),
    ...(mail.bcc?.length ? { bcc: mail.bcc } : {}),
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    ...(mail.html !== undefined ? { html: mail.html } : {}),
    ...(mail.text !== undefined ? { text: mail.text } : {}),
    // the content is the strings given, never a file or URL nodemailer would read
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}
