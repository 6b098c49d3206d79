import pino, { type DestinationStream, type Logger } from 'pino';

/** Paths masked in every log line: credentials and secrets wherever they appear. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.token',
  '*.otp',
  '*.secret',
  '*.apiKey',
];

export function createLogger(
  level = process.env.LOG_LEVEL || 'info',
  extraRedact: string[] = [],
  destination?: DestinationStream,
): Logger {
  const options = {
    level,
    base: { pid: process.pid },
    redact: { paths: [...REDACT_PATHS, ...extraRedact], censor: '[masked]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
