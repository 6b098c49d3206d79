/**
 * A local HTTP server playing the ID card system (classes/Member/id-card-client.ts):
 * GET /cards/<staffId>, with scriptable slow, failing and odd answers. Its
 * requests are kept (path and headers) so a test sees what the client sent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** a 1 x 1 PNG and the start of a JPEG: what the client's photo check looks for */
export const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]).toString(
  'base64',
);

export interface CardRequest {
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
}

/** What to do with the next request: answer it (raw text or JSON), after `delayMs`, or hold it until the caller goes away. */
export interface CardScript {
  status?: number;
  body?: unknown;
  raw?: string;
  delayMs?: number;
  hold?: boolean;
}

export class FakeIdCards {
  readonly requests: CardRequest[] = [];
  /** cards by staff id, answered as they are */
  readonly cards = new Map<string, Record<string, unknown>>();
  /** answers used before the normal behaviour, in order */
  readonly script: CardScript[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void (async () => {
        for await (const _ of req) void _;
        const path = req.url ?? '';
        this.requests.push({ path, method: req.method ?? '', headers: req.headers });
        const send = (status: number, payload: unknown, raw?: string) => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(raw ?? JSON.stringify(payload));
        };
        const s = this.script.shift();
        if (s) {
          if (s.delayMs) await new Promise((r) => setTimeout(r, s.delayMs));
          // held until the client gives up: it times out whatever the machine's load
          if (s.hold) return void (await new Promise((r) => res.once('close', r)));
          if (s.status !== undefined || s.raw !== undefined) return send(s.status ?? 200, s.body ?? {}, s.raw);
        }
        const m = /^\/cards\/([^/?]+)$/.exec(path);
        const card = m ? this.cards.get(decodeURIComponent(m[1]!)) : undefined;
        if (!card) return send(404, { message: 'no card' });
        send(200, card);
      })();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  answer(...answers: CardScript[]): this {
    this.script.push(...answers);
    return this;
  }

  count(staffId: string): number {
    return this.requests.filter((r) => r.path === `/cards/${encodeURIComponent(staffId)}`).length;
  }
}
