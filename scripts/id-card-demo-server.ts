/**
 * A local ID card system for trying the registration's ID card step without the real one
 * (docs/hr-integration.md, "A local ID card system"): the contract of classes/Member/id-card-client.ts, over
 * node:http, knowing cards for the employees of scripts/hr-demo-server.ts (`npm run hr:demo`) and the example
 * seed's member:
 *
 *   E3001  card with a photo (a PNG): registerFromHr submits it as the ID photo (MEMBER_ID_PHOTO_UPLOAD decides)
 *   E3002  card without a photo: the member uploads one
 *   E1001  card without a photo (the example seed's member, already registered)
 *
 * Any other staff id has no card (404). Dev-only (scripts/ stays out of the image); nothing is stored.
 *
 *   npm run idcard:demo [-- <port>]            (or: npx tsx scripts/id-card-demo-server.ts [port]; default 4020, 0 = any free port)
 *   ID_CARD_API_KEY=<key> npm run idcard:demo  requests must then carry it as x-api-key (401 otherwise), as the service sends it
 *
 *   GET /cards/<staffId>   → {staffId, cardNumber, validFrom, validUntil, photo?: {contentBase64, mimeType}} (200), 404 without a card
 *
 * The first stdout line names the URL it listens on (`ID card demo server listening on
 * http://127.0.0.1:<port>`); every request is logged on stdout after it (the photo never). SIGINT or SIGTERM
 * stops it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonSender, listen, portArgument, sameKey } from './demo-server';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** a small passport-shaped PNG: a light background, a darker head and shoulders (RGB, 60 x 80) */
export function demoPortraitPng(): Buffer {
  const w = 60;
  const h = 80;
  const rows: Buffer[] = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) {
      const head = (x - 30) ** 2 / 14 ** 2 + (y - 30) ** 2 / 17 ** 2 <= 1;
      const shoulders = y > 52 && Math.abs(x - 30) < 8 + (y - 52) * 0.9;
      const [r, g, b] = head ? [205, 160, 130] : shoulders ? [40, 60, 110] : [225, 232, 240];
      row.writeUInt8(r, 1 + x * 3);
      row.writeUInt8(g, 2 + x * 3);
      row.writeUInt8(b, 3 + x * 3);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** the cards the demo knows, by staff id, as the lookup answers them */
export const DEMO_CARDS: Record<string, Record<string, unknown>> = {
  E3001: {
    staffId: 'E3001',
    cardNumber: 'ACME-3001-7',
    validFrom: '2026-01-05',
    validUntil: '2029-01-04',
    photo: { contentBase64: demoPortraitPng().toString('base64'), mimeType: 'image/png' },
  },
  E3002: { staffId: 'E3002', cardNumber: 'ACME-3002-4', validFrom: '2026-02-10', validUntil: '2029-02-09' },
  E1001: { staffId: 'E1001', cardNumber: 'ACME-1001-2', validFrom: '2025-06-01', validUntil: '2028-05-31' },
};

export interface IdCardDemoOptions {
  /** default 4020; 0 picks a free port (the answer's `port` names it) */
  port?: number;
  host?: string;
  /** when set, a request without this x-api-key is refused with 401 */
  apiKey?: string;
  /** a line per request; default none */
  log?: (line: string) => void;
}

export interface IdCardDemo {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startIdCardDemo(opts: IdCardDemoOptions = {}): Promise<IdCardDemo> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? (() => {});

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    for await (const _ of req) void _; // a body is not expected; read it so the connection can be reused
    const path = (req.url ?? '').split('?')[0];
    const send = jsonSender(req, res, log);
    if (opts.apiKey && !sameKey(req.headers['x-api-key'], opts.apiKey))
      return send(401, { message: 'missing or wrong x-api-key' });
    const m = /^\/cards\/([^/]+)$/.exec(path);
    if (!m) return send(404, { message: 'no route' });
    if (req.method !== 'GET') return send(405, { message: 'GET only' });
    let staffId: string;
    try {
      staffId = decodeURIComponent(m[1]);
    } catch {
      return send(400, { message: 'the staff id is not URL-encoded correctly' });
    }
    const card = Object.hasOwn(DEMO_CARDS, staffId) ? DEMO_CARDS[staffId] : undefined;
    if (!card) return send(404, { message: `no card for staff id ${staffId}` });
    return send(200, card, card.photo ? '(with photo)' : '(no photo)');
  };

  const server = await listen(handle, host, opts.port ?? 4020);
  return {
    url: server.url,
    port: server.port,
    stop: server.stop,
  };
}

if (require.main === module) {
  const port = portArgument('ID_CARD_DEMO_PORT', '4020');
  const apiKey = process.env.ID_CARD_API_KEY || undefined;
  startIdCardDemo({ port, apiKey, log: (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`) }).then(
    (demo) => {
      process.stdout.write(`ID card demo server listening on ${demo.url}\n`);
      process.stdout.write(
        `  cards: ${Object.entries(DEMO_CARDS)
          .map(([id, c]) => `${id} ${String(c.cardNumber)}${c.photo ? ' (photo)' : ''}`)
          .join(
            ', ',
          )}; ${apiKey ? 'x-api-key required (ID_CARD_API_KEY)' : 'no API key checked (ID_CARD_API_KEY unset)'}\n`,
      );
      const stop = () => void demo.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err: Error) => {
      process.stderr.write(`ID card demo server could not start: ${err.message}\n`);
      process.exit(1);
    },
  );
}
