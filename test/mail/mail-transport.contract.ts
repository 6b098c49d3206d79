/**
 * Contract suite for the MailTransport port: every adapter must pass it, and
 * the delivery worker relies on exactly what it covers. Each adapter supplies
 * how the receiving side is read (the SMTP server's accepted mails, the .eml
 * files), parsed by mailparser.
 */
import { randomUUID } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import type { OutboundMail } from '../../runtime/mail/message';
import type { MailTransport } from '../../runtime/mail/transport';
import { waitFor } from '../support/harness';

export interface Received {
  parsed: ParsedMail;
  /** every address the mail reached (the SMTP envelope; an .eml's To, Cc and Bcc) */
  recipients: string[];
}

export interface ContractSubject {
  transport: MailTransport;
  projectId: string;
  /** the address of the configured default sender */
  defaultFromAddress: string;
  /** the copies of mail `id` the receiving side holds now */
  received(id: string): Promise<Received[]>;
}

function mail(extra: Partial<OutboundMail> = {}): OutboundMail {
  return { id: randomUUID(), to: ['anna@example.com'], subject: 'Welcome', html: '<p>Hello</p>', ...extra };
}

export function mailTransportContract(
  label: string,
  open: () => Promise<ContractSubject>,
  close: (s: ContractSubject) => Promise<void>,
): void {
  describe(`MailTransport contract: ${label}`, () => {
    let s: ContractSubject;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(() => close(s));

    async function sendAndReceive(m: OutboundMail): Promise<Received> {
      await s.transport.send(m);
      const copies = await waitFor(
        async () => {
          const got = await s.received(m.id);
          return got.length ? got : undefined;
        },
        { what: `mail ${m.id}` },
      );
      expect(copies).toHaveLength(1);
      return copies![0]!;
    }

    test('delivers subject, html, text, sender, reply-to and recipients, under the Message-ID <id@project>', async () => {
      const m = mail({
        to: ['anna@example.com', 'ben@example.org'],
        cc: ['carol@example.net'],
        from: 'Membership Desk <desk@example.com>',
        replyTo: 'help@example.com',
        subject: 'Your membership is active',
        html: '<h1>Welcome</h1><p>Member <b>M-1</b> is active.</p>',
        text: 'Welcome. Member M-1 is active.',
      });
      const { parsed } = await sendAndReceive(m);
      expect(parsed.messageId).toBe(`<${m.id}@${s.projectId}>`);
      expect(parsed.subject).toBe('Your membership is active');
      expect(parsed.html).toContain('<h1>Welcome</h1><p>Member <b>M-1</b> is active.</p>');
      expect(parsed.text?.trim()).toBe('Welcome. Member M-1 is active.');
      expect(parsed.from?.value).toEqual([{ name: 'Membership Desk', address: 'desk@example.com' }]);
      expect(parsed.replyTo?.value.map((a) => a.address)).toEqual(['help@example.com']);
      const to = Array.isArray(parsed.to) ? parsed.to.flatMap((a) => a.value) : parsed.to!.value;
      expect(to.map((a) => a.address)).toEqual(['anna@example.com', 'ben@example.org']);
      const cc = Array.isArray(parsed.cc) ? parsed.cc.flatMap((a) => a.value) : parsed.cc!.value;
      expect(cc.map((a) => a.address)).toEqual(['carol@example.net']);
    });

    test('reaches every recipient in to, cc and bcc', async () => {
      const m = mail({ to: ['a1@example.com'], cc: ['c1@example.com', 'c2@example.com'], bcc: ['hidden@example.com'] });
      const { recipients } = await sendAndReceive(m);
      expect([...recipients].sort()).toEqual([
        'a1@example.com',
        'c1@example.com',
        'c2@example.com',
        'hidden@example.com',
      ]);
    });

    test('a mail naming no sender comes from the default sender (MAIL_FROM)', async () => {
      const { parsed } = await sendAndReceive(mail());
      expect(parsed.from?.value.map((a) => a.address)).toEqual([s.defaultFromAddress]);
    });

    test('keeps non-ASCII subjects and bodies intact', async () => {
      const subject = 'Grüße, Ünal — 你好 ✓';
      const html = '<p>Jöns & Sœur: «bienvenue» 🎉</p>';
      const { parsed } = await sendAndReceive(mail({ subject, html, text: 'Jöns 🎉' }));
      expect(parsed.subject).toBe(subject);
      expect(parsed.html).toContain(html);
      expect(parsed.text?.trim()).toBe('Jöns 🎉');
    });

    test('sends a text-only mail as text', async () => {
      const { parsed } = await sendAndReceive(mail({ html: undefined, text: 'Plain only' }));
      expect(parsed.html).toBe(false);
      expect(parsed.text?.trim()).toBe('Plain only');
    });

    test('mails sent at once each arrive once', async () => {
      const batch = Array.from({ length: 12 }, (_, i) => mail({ subject: `batch ${i}` }));
      await Promise.all(batch.map((m) => s.transport.send(m)));
      for (const m of batch) {
        const copies = await waitFor(
          async () => {
            const got = await s.received(m.id);
            return got.length ? got : undefined;
          },
          { what: `mail ${m.id}` },
        );
        expect(copies!.map((c) => c.parsed.subject)).toEqual([m.subject]);
      }
    });
  });
}
