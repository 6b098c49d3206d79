/**
 * What a process needs before it loads the runtime: the drain settings and
 * the embedded JWT secret. Kept out of runtime.ts so that the entry point can
 * check the environment and answer a wrong setting in one line without first
 * loading every module of the runtime (a few seconds on a busy machine).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from 'pino';

/**
 * Embedded default for JWT_SECRET: a random secret kept in DATA_DIR so tokens
 * survive restarts. Created with an exclusive link, so processes starting
 * together all end up with the same secret.
 */
export function ensureEmbeddedJwtSecret(dataDir: string, logger: Logger): string {
  const file = path.join(dataDir, 'jwt-secret');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, randomBytes(48).toString('base64url'), { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
    logger.warn({ file }, 'JWT_SECRET is unset: generated a development secret; set JWT_SECRET in production');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.unlinkSync(tmp);
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * How long a stopping process waits for the calls in flight: the longest budget
 * a synchronous call can have (30 s, runtime/actor/decorators.ts). Past it the
 * remaining connections are closed.
 */
export const DRAIN_TIMEOUT_MS = 30_000;

/**
 * DRAIN_GRACE_MS (default 0): after SIGTERM, how long /ready answers 503 while
 * the listener still accepts, so a load balancer stops sending before
 * connections are refused.
 */
export function drainGraceMs(env: NodeJS.ProcessEnv): number {
  const raw = env.DRAIN_GRACE_MS;
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 60_000)
    throw new Error(`DRAIN_GRACE_MS must be a whole number of milliseconds from 0 to 60000 (got '${raw}')`);
  return n;
}

/**
 * The longest a stopping process may take before it is ended by force: the
 * ready grace, the HTTP drain, then the workers' closes (each bounded by
 * closeWithin, runtime/queue/close.ts) and the stores'.
 */
export function stopDeadlineMs(graceMs: number): number {
  return graceMs + DRAIN_TIMEOUT_MS + 30_000;
}
