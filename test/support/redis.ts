/** Helpers for test files that need Redis (jest's globalSetup sets REDIS_URL). */
import { randomInt } from 'crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The Redis the tests use; set by test/support/global-setup.js or by the caller's environment. */
export function redisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) {
    throw new Error('REDIS_URL is not set: run the tests through jest (its globalSetup starts redis-server) or set it');
  }
  return url;
}

/** `prefix` + 8 random lowercase alphanumeric characters, e.g. `tq3k9x0ab`. */
export function uniqueProjectId(prefix = 't'): string {
  let id = prefix;
  for (let i = 0; i < 8; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}
