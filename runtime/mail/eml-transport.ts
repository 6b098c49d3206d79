/**
 * The embedded mail adapter (SMTP_URL unset): each mail becomes an RFC 822
 * file `DATA_DIR/mail/<message id>.eml`, built by nodemailer's stream
 * transport (Bcc kept, as a local copy should show every recipient), and a
 * line in `DATA_DIR/mail/index.jsonl` (time, recipients, subject) that the
 * /dev/mail page lists. File names come from the message id the runtime chose,
 * never from anything a caller wrote.
 *
 * Writing the same message again replaces its file (written aside and
 * renamed, so a reader never sees half a file); the index may then hold the
 * id twice and the listing shows it once.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import { sendMailOptions, type ComposeOptions } from './compose';
import { MESSAGE_ID, type OutboundMail } from './message';
import type { MailTransport } from './transport';

export interface StoredMailEntry {
  id: string;
  /** ISO time the file was written */
  time: string;
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
}

const INDEX = 'index.jsonl';
/** the listing reads this much of the index's end */
const INDEX_TAIL_BYTES = 512 * 1024;

export class EmbeddedMailTransport implements MailTransport {
  readonly kind = 'embedded';
  private readonly composer: Transporter;

  constructor(
    readonly dir: string,
    private readonly opts: ComposeOptions,
  ) {
    this.composer = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  private file(id: string): string {
    if (!MESSAGE_ID.test(id)) throw new Error(`not a message id: '${id}'`);
    return path.join(this.dir, `${id}.eml`);
  }

  async send(mail: OutboundMail): Promise<void> {
    const file = this.file(mail.id);
    const info = await this.composer.sendMail(sendMailOptions(mail, this.opts));
    const raw = info.message as Buffer;
    await fs.mkdir(this.dir, { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(tmp, raw);
    await fs.rename(tmp, file);
    const entry: StoredMailEntry = {
      id: mail.id,
      time: new Date().toISOString(),
      to: mail.to,
      ...(mail.cc?.length ? { cc: mail.cc } : {}),
      ...(mail.bcc?.length ? { bcc: mail.bcc } : {}),
      subject: mail.subject,
    };
    await fs.appendFile(path.join(this.dir, INDEX), `${JSON.stringify(entry)}\n`);
  }

  /** The last `limit` mails written, newest first. */
  async list(limit = 50): Promise<StoredMailEntry[]> {
    let text: string;
    try {
      const handle = await fs.open(path.join(this.dir, INDEX), 'r');
      try {
        const { size } = await handle.stat();
        const start = Math.max(0, size - INDEX_TAIL_BYTES);
        const buf = Buffer.alloc(size - start);
        await handle.read(buf, 0, buf.length, start);
        text = buf.toString('utf8');
        // a cut first line is not an entry
        if (start > 0) text = text.slice(text.indexOf('\n') + 1);
      } finally {
        await handle.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const seen = new Set<string>();
    const out: StoredMailEntry[] = [];
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0 && out.length < limit; i--) {
      const line = lines[i].trim();
      if (!line) continue;
      let entry: StoredMailEntry;
      try {
        entry = JSON.parse(line) as StoredMailEntry;
      } catch {
        continue; // a line being written
      }
      if (typeof entry?.id !== 'string' || !MESSAGE_ID.test(entry.id) || seen.has(entry.id)) continue;
      seen.add(entry.id);
      out.push(entry);
    }
    return out;
  }

  /** The .eml of message `id`, or undefined when there is none (or `id` is not a message id). */
  async read(id: string): Promise<Buffer | undefined> {
    if (!MESSAGE_ID.test(id)) return undefined;
    try {
      return await fs.readFile(this.file(id));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  close(): Promise<void> {
    this.composer.close();
    return Promise.resolve();
  }
}
