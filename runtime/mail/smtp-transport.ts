/**
 * The production mail adapter: SMTP through nodemailer (SMTP_URL, e.g.
 * `smtps://user:pass@smtp.example.com:465` or `smtp://host:587`; query
 * parameters of nodemailer's URL form apply, such as `?pool=false`).
 *
 * Pooled connections (5 by default). Nodemailer's own re-sending after a
 * dropped connection is off: retries are the delivery worker's, with its
 * backoff and its record of sent messages.
 */
import { createTransport, type Transporter } from 'nodemailer';
import { sendMailOptions, type ComposeOptions } from './compose';
import type { OutboundMail } from './message';
import { PermanentDeliveryError, type MailTransport } from './transport';

export interface SmtpTransportOptions extends ComposeOptions {
  url: string;
  /** told of recipients the server refused while it accepted others */
  onRejected?: (mail: OutboundMail, rejected: string[]) => void;
}

/** nodemailer error codes of a server's refusal of this message (not of the connection or login) */
const MESSAGE_REFUSED = new Set(['EENVELOPE', 'EMESSAGE']);

/** A 5xx refusal of the message or all its recipients will be refused again; anything else (4xx, network, login, time-out) may pass later. */
export function isPermanentSmtpError(err: unknown): boolean {
  const e = err as { code?: string; responseCode?: number };
  return (
    typeof e?.responseCode === 'number' &&
    e.responseCode >= 500 &&
    e.responseCode < 600 &&
    MESSAGE_REFUSED.has(String(e.code))
  );
}

export class SmtpMailTransport implements MailTransport {
  readonly kind = 'smtp';
  private readonly transporter: Transporter;

  constructor(private readonly opts: SmtpTransportOptions) {
    this.transporter = createTransport({
      url: opts.url,
      pool: true,
      maxConnections: 5,
      maxRequeues: 0,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 60_000,
    });
  }

  async send(mail: OutboundMail): Promise<void> {
    let info;
    try {
      info = await this.transporter.sendMail(sendMailOptions(mail, this.opts));
    } catch (err) {
      if (!isPermanentSmtpError(err)) throw err;
      const e = err as Error & { responseCode?: number };
      throw new PermanentDeliveryError(e.message, e.responseCode);
    }
    const rejected = (info.rejected ?? []).map(String);
    if (rejected.length) this.opts.onRejected?.(mail, rejected);
  }

  close(): Promise<void> {
    this.transporter.close();
    return Promise.resolve();
  }
}
