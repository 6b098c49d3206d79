/** The embedded mail adapter: .eml files under a directory, and the list /dev/mail shows. */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { simpleParser, type AddressObject } from 'mailparser';
import { EmbeddedMailTransport } from '../../runtime/mail/eml-transport';
import type { OutboundMail } from '../../runtime/mail/message';
import { mailTransportContract } from './mail-transport.contract';

const PROJECT = 'mailtest';
const FROM = 'Service <service@example.com>';
const root = path.join(os.tmpdir(), `mail-eml-${randomUUID()}`);
afterAll(() => fs.rm(root, { recursive: true, force: true }));

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  if (!field) return [];
  return (Array.isArray(field) ? field : [field]).flatMap((a) => a.value.map((v) => v.address!));
}

mailTransportContract(
  'EmbeddedMailTransport (.eml files)',
  async () => {
    const transport = new EmbeddedMailTransport(path.join(root, 'contract'), { projectId: PROJECT, defaultFrom: FROM });
    return {
      transport,
      projectId: PROJECT,
      defaultFromAddress: 'service@example.com',
      received: async (id) => {
        const raw = await transport.read(id);
        if (!raw) return [];
        const parsed = await simpleParser(raw);
        return [{ parsed, recipients: [...addresses(parsed.to), ...addresses(parsed.cc), ...addresses(parsed.bcc)] }];
      },
    };
  },
  (s) => s.transport.close(),
);

function mail(extra: Partial<OutboundMail> = {}): OutboundMail {
  return { id: randomUUID(), to: ['anna@example.com'], subject: 'Hello', text: 'Hi', ...extra };
}

describe('EmbeddedMailTransport', () => {
  test('names each file after the message id and leaves no temporary files', async () => {
    const dir = path.join(root, 'names');
    const t = new EmbeddedMailTransport(dir, { projectId: PROJECT, defaultFrom: FROM });
    const a = mail();
    const b = mail({ subject: '../../etc/passwd' });
    await Promise.all([t.send(a), t.send(b)]);
    expect((await fs.readdir(dir)).sort()).toEqual([`${a.id}.eml`, `${b.id}.eml`, 'index.jsonl'].sort());
  });

  test('refuses to write or read anything but a message id', async () => {
    const dir = path.join(root, 'ids');
    const t = new EmbeddedMailTransport(dir, { projectId: PROJECT, defaultFrom: FROM });
    await expect(t.send(mail({ id: '../escape' }))).rejects.toThrow(/not a message id/);
    for (const bad of ['../index.jsonl', 'index', '', `${randomUUID()}/../x`, randomUUID().toUpperCase()]) {
      expect(await t.read(bad)).toBeUndefined();
    }
    expect(await t.read(randomUUID())).toBeUndefined();
    await expect(fs.readdir(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('writing a message again replaces its file; the list shows it once', async () => {
    const dir = path.join(root, 'again');
    const t = new EmbeddedMailTransport(dir, { projectId: PROJECT, defaultFrom: FROM });
    const m = mail({ subject: 'Twice' });
    await t.send(m);
    await t.send(m);
    expect((await fs.readdir(dir)).filter((f) => f.endsWith('.eml'))).toEqual([`${m.id}.eml`]);
    expect((await t.list()).map((e) => e.id)).toEqual([m.id]);
  });

  test('lists the last mails newest first, at most the limit, with time, recipients and subject', async () => {
    const dir = path.join(root, 'list');
    const t = new EmbeddedMailTransport(dir, { projectId: PROJECT, defaultFrom: FROM });
    expect(await t.list()).toEqual([]);
    const sent: OutboundMail[] = [];
    for (let i = 0; i < 55; i++) {
      const m = mail({ subject: `n${i}`, cc: i === 54 ? ['cc@example.com'] : undefined });
      sent.push(m);
      await t.send(m);
    }
    const listed = await t.list(50);
    expect(listed).toHaveLength(50);
    expect(listed.map((e) => e.subject)).toEqual(
      sent
        .slice(5)
        .reverse()
        .map((m) => m.subject),
    );
    expect(listed[0]).toMatchObject({
      id: sent[54]!.id,
      to: ['anna@example.com'],
      cc: ['cc@example.com'],
      subject: 'n54',
    });
    expect(Number.isNaN(Date.parse(listed[0]!.time))).toBe(false);
  });

  test('skips index lines that are cut or not entries', async () => {
    const dir = path.join(root, 'broken');
    const t = new EmbeddedMailTransport(dir, { projectId: PROJECT, defaultFrom: FROM });
    const m = mail();
    await t.send(m);
    await fs.appendFile(path.join(dir, 'index.jsonl'), '{"id":"../x","subject":"bad"}\nnot json\n{"id":');
    expect((await t.list()).map((e) => e.id)).toEqual([m.id]);
  });
});
