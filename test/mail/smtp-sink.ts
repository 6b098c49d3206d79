/**
 * A real SMTP server for the mail tests (the `smtp-server` package) on a free
 * port of 127.0.0.1. It keeps every message it accepted, parsed, and answers
 * each DATA as the test's policy says: accept, refuse with a code, or hold the
 * answer until the test releases it (a sender killed while it waits never
 * gets an answer, and the message is not accepted).
 */
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  raw: Buffer;
  parsed: ParsedMail;
  /** RCPT TO addresses (bcc included) */
  envelopeTo: string[];
  envelopeFrom: string;
  messageId: string;
}

export type Answer = 'accept' | 'hold' | { code: number; message: string };

export interface HeldMail {
  mail: ReceivedMail;
  /** answers the held DATA now */
  release(answer?: Exclude<Answer, 'hold'>): void;
  /** the sender went away before an answer (its connection closed) */
  abandoned: boolean;
}

export interface SmtpSink {
  port: number;
  url: string;
  /** mails accepted (answered 250), in order */
  accepted: ReceivedMail[];
  /** DATA answers held back, in order */
  held: HeldMail[];
  /** how many DATA commands arrived, whatever the answer */
  dataCount(): number;
  /** the answer for the next DATA; default accept */
  policy: (mail: ReceivedMail, n: number) => Answer;
  acceptedWithId(messageId: string): ReceivedMail[];
  close(): Promise<void>;
}

export function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  if (!field) return [];
  const list = Array.isArray(field) ? field : [field];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ''));
}

export async function startSmtpSink(): Promise<SmtpSink> {
  let count = 0;
  const heldBySession = new Map<string, HeldMail[]>();
  const sink: SmtpSink = {
    port: 0,
    url: '',
    accepted: [],
    held: [],
    dataCount: () => count,
    policy: () => 'accept',
    acceptedWithId: (id) => sink.accepted.filter((m) => m.messageId === id),
    close: async () => {
      for (const h of sink.held) h.release({ code: 421, message: 'closing' });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    // plain SMTP: nodemailer would otherwise upgrade to TLS against the package's test certificate
    disabledCommands: ['STARTTLS', 'AUTH'],
    closeTimeout: 500,
    // a held DATA whose sender went away is abandoned: it never counts as accepted
    onClose(session) {
      for (const h of heldBySession.get(session.id) ?? []) h.abandoned = true;
      heldBySession.delete(session.id);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        const parsed = await simpleParser(raw);
        const mail: ReceivedMail = {
          raw,
          parsed,
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          messageId: parsed.messageId ?? '',
        };
        count += 1;
        const answer = (a: Exclude<Answer, 'hold'>) => {
          if (a === 'accept') {
            sink.accepted.push(mail);
            callback(null, 'queued');
          } else {
            const err = new Error(a.message) as Error & { responseCode: number };
            err.responseCode = a.code;
            callback(err);
          }
        };
        const decided = sink.policy(mail, count);
        if (decided !== 'hold') return answer(decided);
        let done = false;
        const held: HeldMail = {
          mail,
          abandoned: false,
          release: (a = 'accept') => {
            if (done) return;
            done = true;
            if (!held.abandoned) answer(a);
          },
        };
        heldBySession.set(session.id, [...(heldBySession.get(session.id) ?? []), held]);
        sink.held.push(held);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.listen(0, '127.0.0.1', () => resolve());
    server.server.once('error', reject);
  });
  const address = server.server.address();
  sink.port = typeof address === 'object' && address ? address.port : 0;
  sink.url = `smtp://127.0.0.1:${sink.port}`;
  return sink;
}
