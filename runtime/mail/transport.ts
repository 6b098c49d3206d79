/**
 * The mail and SMS ports: what the delivery worker hands a committed message
 * to. One production adapter and one embedded default each (GUIDE section 3):
 *
 *  - mail: SMTP through nodemailer when SMTP_URL is set (smtp-transport.ts),
 *    otherwise `.eml` files under DATA_DIR/mail listed on /dev/mail (eml-transport.ts);
 *  - SMS: an outbox file and a log line (sms-outbox.ts), the spec's placeholder.
 *
 * A transport sends what it is given once per call and knows nothing of
 * retries or idempotency: the delivery worker (delivery.ts) owns both.
 */
import type { OutboundMail, OutboundSms } from './message';

export interface MailTransport {
  readonly kind: 'smtp' | 'embedded';
  /**
   * Resolves once the mail is accepted (by the SMTP server, or written to its
   * file). Rejects with a PermanentDeliveryError when retrying cannot help
   * (the server refused the message or all its recipients), with any other
   * error when it may.
   */
  send(mail: OutboundMail): Promise<void>;
  close(): Promise<void>;
}

export interface SmsTransport {
  readonly kind: 'outbox';
  send(sms: OutboundSms): Promise<void>;
  close(): Promise<void>;
}

/** The transport's answer means that sending the same message again would be refused again: no retry, dead-lettered at once. */
export class PermanentDeliveryError extends Error {
  constructor(
    message: string,
    readonly responseCode?: number,
  ) {
    super(message);
    this.name = 'PermanentDeliveryError';
  }
}
