/**
 * What the local demo servers of outside systems (hr:demo, idcard:demo)
 * share: the API key check, a JSON answer that is also logged, listening and
 * stopping, and the command line's port.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** the key a request carries against the expected one, in constant time (digests of equal length) */
export function sameKey(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** answers `payload` as JSON and logs the request with its status */
export function jsonSender(req: IncomingMessage, res: ServerResponse, log: (line: string) => void) {
  const path = (req.url ?? '').split('?')[0];
  return (status: number, payload: unknown, note = '') => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
    log(`${req.method} ${path}${note ? ` ${note}` : ''} → ${status}`);
  };
}

export interface Listening {
  url: string;
  port: number;
  /** a function of its own (no `this`), so it can be handed on detached */
  stop: () => Promise<void>;
}

/** serves `handle` on host:port (0: any free port); a handler that throws is answered 500 with its message */
export async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  host: string,
  port: number,
): Promise<Listening> {
  // the catch answers a failure itself: the request listener has nothing left to await
  const server = createServer(
    (req, res) =>
      void handle(req, res).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: String((err as Error)?.message ?? err) }));
      }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** the port the command line or `envName` names, else `fallback`; a wrong one ends the process with its reason */
export function portArgument(envName: string, fallback: string): number {
  const arg = process.argv[2] ?? process.env[envName] ?? fallback;
  const port = Number(arg);
  if (!/^\d+$/.test(arg) || port > 65535) {
    process.stderr.write(`port must be an integer from 0 to 65535, got '${arg}'\n`);
    process.exit(2);
  }
  return port;
}
