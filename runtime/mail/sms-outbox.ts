/**
 * The SMS adapter while no provider is chosen (the spec's SMS is a
 * placeholder): each SMS is appended as one JSON line to
 * `DATA_DIR/sms/outbox.jsonl` (the full record, for whoever wires a provider
 * or checks what was sent) and logged with every phone number masked to its
 * last 3 digits.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from 'pino';
import { maskPhone, type OutboundSms } from './message';
import type { SmsTransport } from './transport';

export class SmsOutboxTransport implements SmsTransport {
  readonly kind = 'outbox';

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
  ) {}

  get file(): string {
    return path.join(this.dir, 'outbox.jsonl');
  }

  async send(sms: OutboundSms): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    await fs.appendFile(
      this.file,
      `${JSON.stringify({ id: sms.id, time: new Date().toISOString(), to: sms.to, text: sms.text })}\n`,
    );
    this.logger.info(
      { messageId: sms.id, to: sms.to.map(maskPhone), chars: sms.text.length },
      'SMS kept in the outbox (no SMS provider configured)',
    );
  }

  async close(): Promise<void> {}
}
