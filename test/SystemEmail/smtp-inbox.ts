/**
 * A real SMTP server for tests (the `smtp-server` package) on a free local
 * port, keeping every message it accepts, parsed by `mailparser`: what the
 * service's SMTP adapter delivers arrives here exactly as at a mail server.
 */
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';

// smtp-server and mailparser ship no type declarations: the little used here
interface SmtpSession {
  envelope: { mailFrom: { address: string } | false; rcptTo: { address: string }[] };
}
interface SmtpServerLike {
  server: { address(): AddressInfo | string | null };
  listen(port: number, host: string, cb: () => void): void;
  close(cb: () => void): void;
  on(event: 'error', cb: (err: Error) => void): void;
}
interface ParsedMail {
  messageId?: string;
  subject?: string;
  html?: string | false;
  text?: string;
  from?: { text: string };
  to?: { value: { address?: string }[] };
}
const { SMTPServer } = require('smtp-server') as { SMTPServer: new (opts: Record<string, unknown>) => SmtpServerLike };
const { simpleParser } = require('mailparser') as { simpleParser: (source: Readable) => Promise<ParsedMail> };

export interface ReceivedMail {
  /** RCPT TO addresses of the SMTP envelope */
  recipients: string[];
  mailFrom: string | null;
  messageId: string | undefined;
  subject: string | undefined;
  html: string | undefined;
  /** addresses of the To header */
  to: string[];
}

export class SmtpInbox {
  private constructor(
    private readonly server: SmtpServerLike,
    readonly port: number,
    /** every message accepted, in order of arrival */
    readonly messages: ReceivedMail[],
  ) {}

  static async start(): Promise<SmtpInbox> {
    const messages: ReceivedMail[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream: Readable, session: SmtpSession, callback: (err?: Error) => void) {
        simpleParser(stream)
          .then((m) => {
            messages.push({
              recipients: session.envelope.rcptTo.map((r) => r.address),
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              messageId: m.messageId,
              subject: m.subject,
              html: m.html || undefined,
              to: (m.to?.value ?? []).map((a) => a.address ?? ''),
            });
            callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
    server.on('error', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    return new SmtpInbox(server, port, messages);
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** messages sent to `address` (envelope recipient) */
  to(address: string): ReceivedMail[] {
    return this.messages.filter((m) => m.recipients.includes(address));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
