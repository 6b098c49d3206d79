/** The SMTP mail adapter against a real SMTP server (smtp-server) on a free port. */
import { randomUUID } from 'node:crypto';
import type { OutboundMail } from '../../runtime/mail/message';
import { isPermanentSmtpError, SmtpMailTransport } from '../../runtime/mail/smtp-transport';
import { PermanentDeliveryError } from '../../runtime/mail/transport';
import { mailTransportContract } from './mail-transport.contract';
import { startSmtpSink, type SmtpSink } from './smtp-sink';

const PROJECT = 'mailtest';
const FROM = 'Service <service@example.com>';

let contractSink: SmtpSink;
mailTransportContract(
  'SmtpMailTransport (smtp-server)',
  async () => {
    contractSink = await startSmtpSink();
    return {
      transport: new SmtpMailTransport({ url: contractSink.url, projectId: PROJECT, defaultFrom: FROM }),
      projectId: PROJECT,
      defaultFromAddress: 'service@example.com',
      received: async (id) =>
        contractSink.acceptedWithId(`<${id}@${PROJECT}>`).map((m) => ({ parsed: m.parsed, recipients: m.envelopeTo })),
    };
  },
  async (s) => {
    await s.transport.close();
    await contractSink.close();
  },
);

function mail(extra: Partial<OutboundMail> = {}): OutboundMail {
  return { id: randomUUID(), to: ['anna@example.com'], subject: 'Hello', text: 'Hi', ...extra };
}

describe('SmtpMailTransport', () => {
  let sink: SmtpSink;
  let transport: SmtpMailTransport;
  const rejected: string[][] = [];
  beforeAll(async () => {
    sink = await startSmtpSink();
    transport = new SmtpMailTransport({
      url: sink.url,
      projectId: PROJECT,
      defaultFrom: FROM,
      onRejected: (_m, r) => rejected.push(r),
    });
  });
  afterAll(async () => {
    await transport.close();
    await sink.close();
  });
  beforeEach(() => {
    sink.policy = () => 'accept';
  });

  test('bcc recipients are in the envelope, not in the headers', async () => {
    const m = mail({ bcc: ['secret@example.com'] });
    await transport.send(m);
    const [got] = sink.acceptedWithId(`<${m.id}@${PROJECT}>`);
    expect(got!.envelopeTo).toEqual(['anna@example.com', 'secret@example.com']);
    expect(got!.raw.toString('utf8')).not.toMatch(/secret@example\.com/);
    expect(got!.parsed.bcc).toBeUndefined();
  });

  test('the envelope sender is the mail sender', async () => {
    const m = mail({ from: 'Desk <desk@example.com>' });
    await transport.send(m);
    expect(sink.acceptedWithId(`<${m.id}@${PROJECT}>`)[0]!.envelopeFrom).toBe('desk@example.com');
  });

  test('a 5xx refusal of the message is permanent (no retry helps); a 4xx is not', async () => {
    sink.policy = () => ({ code: 550, message: 'mailbox unavailable' });
    const refused = transport.send(mail());
    await expect(refused).rejects.toBeInstanceOf(PermanentDeliveryError);
    await expect(refused).rejects.toMatchObject({ responseCode: 550 });

    sink.policy = () => ({ code: 451, message: 'try again later' });
    const deferred = await transport.send(mail()).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(deferred).toBeInstanceOf(Error);
    expect(deferred).not.toBeInstanceOf(PermanentDeliveryError);
    expect(isPermanentSmtpError(deferred)).toBe(false);
  });

  test('an unreachable server is a failure to retry, not a permanent one', async () => {
    // port 1: the suite binds only port 0 (the ephemeral range, 32768-60999), so nothing can be listening there;
    // a port found free with listen(0) could be taken by another jest worker before the connection was tried
    const closed = new SmtpMailTransport({ url: 'smtp://127.0.0.1:1', projectId: PROJECT, defaultFrom: FROM });
    try {
      const err = await closed.send(mail()).then(
        () => undefined,
        (e: unknown) => e,
      );
      // a socket error (made outside jest's realm: not instanceof this realm's Error)
      expect(err).toMatchObject({ code: expect.stringMatching(/^E[A-Z]+$/) });
      expect(err).not.toBeInstanceOf(PermanentDeliveryError);
    } finally {
      await closed.close();
    }
  });

  test('isPermanentSmtpError: only a 5xx refusal of the envelope or the message', () => {
    expect(isPermanentSmtpError({ code: 'EENVELOPE', responseCode: 550 })).toBe(true);
    expect(isPermanentSmtpError({ code: 'EMESSAGE', responseCode: 554 })).toBe(true);
    expect(isPermanentSmtpError({ code: 'EENVELOPE', responseCode: 452 })).toBe(false);
    // a login refused or a connection failing is the configuration's or the network's fault, not the message's
    expect(isPermanentSmtpError({ code: 'EAUTH', responseCode: 535 })).toBe(false);
    expect(isPermanentSmtpError({ code: 'ECONNECTION' })).toBe(false);
    expect(isPermanentSmtpError(new Error('x'))).toBe(false);
  });
});
