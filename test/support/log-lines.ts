/**
 * A runtime logger whose JSON lines a test reads: `lines` fills as the
 * runtime logs (pino writes synchronously to the sink).
 *
 *   const { lines, logger } = capturedLogger();
 *   const rt = await Runtime.create(config, url, { logger });
 */
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../runtime/logger';

export function capturedLogger(level = 'info'): { lines: Record<string, any>[]; logger: Logger } {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger(level, [], sink) };
}
