/** The mail and SMS adapters a configuration asks for. */
import * as path from 'node:path';
import type { Logger } from 'pino';
import type { RuntimeConfig } from '../config';
import { EmbeddedMailTransport } from './eml-transport';
import { maskAddress } from './message';
import { SmsOutboxTransport } from './sms-outbox';
import { SmtpMailTransport } from './smtp-transport';
import type { MailTransport, SmsTransport } from './transport';

export interface MessagePorts {
  mail: MailTransport;
  sms: SmsTransport;
  /** the embedded mail adapter, when it is the one in use (/dev/mail lists it) */
  mailbox?: EmbeddedMailTransport;
}

export function openMessagePorts(
  config: Pick<RuntimeConfig, 'smtpUrl' | 'mailFrom' | 'projectId' | 'dataDir'>,
  logger: Logger,
): MessagePorts {
  const compose = { projectId: config.projectId, defaultFrom: config.mailFrom };
  const sms = new SmsOutboxTransport(path.join(config.dataDir, 'sms'), logger);
  if (config.smtpUrl) {
    const mail = new SmtpMailTransport({
      ...compose,
      url: config.smtpUrl,
      onRejected: (m, rejected) =>
        logger.warn(
          { messageId: m.id, rejected: rejected.map(maskAddress) },
          'the SMTP server refused some recipients of a mail; sent to the others',
        ),
    });
    return { mail, sms };
  }
  const mailbox = new EmbeddedMailTransport(path.join(config.dataDir, 'mail'), compose);
  return { mail: mailbox, sms, mailbox };
}
