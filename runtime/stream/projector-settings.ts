/**
 * The projector's settings from the environment (README "Configuration"):
 *
 *  - PROJECTOR_NAME: this process's consumer name in the outbox's consumer
 *    group (a shared document store). Stable across restarts, so a restarted
 *    projector reads the entries it had been handed and not acknowledged
 *    before anything new. Default `projector@<hostname>`; under the PROCESSES
 *    supervisor each process appends its slot (`#0`, `#1`, ...), which a
 *    replacement process takes over from the one that died.
 *  - PROJECTOR_CLAIM_IDLE_MS: an entry handed to a consumer and not
 *    acknowledged for this long is taken over (XAUTOCLAIM) by a live
 *    projector: the consumer died, or its host was renamed.
 */
import * as os from 'node:os';

export interface ProjectorSettings {
  /** consumer name in the outbox's consumer group */
  consumer: string;
  /** idle time after which a pending entry is claimed by another consumer */
  claimIdleMs: number;
}

export const DEFAULT_CLAIM_IDLE_MS = 30_000;
const MIN_CLAIM_IDLE_MS = 100;
const MAX_CLAIM_IDLE_MS = 3_600_000;
const MAX_NAME_LENGTH = 200;

/** The consumer name of a projector on this host when PROJECTOR_NAME is unset. */
export function defaultProjectorName(hostname = os.hostname()): string {
  return `projector@${hostname}`;
}

/** The name of the process in `slot` of a PROCESSES supervisor, from the host's (or PROJECTOR_NAME's) name. */
export function slotProjectorName(name: string, slot: number): string {
  return `${name}#${slot}`;
}

function projectorName(env: NodeJS.ProcessEnv, hostname?: string): string {
  const raw = env.PROJECTOR_NAME;
  if (raw === undefined || raw === '') return defaultProjectorName(hostname);
  // printable, no spaces: it shows in XINFO and in log lines as one word
  if (raw.length > MAX_NAME_LENGTH || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new Error(`PROJECTOR_NAME must be 1 to ${MAX_NAME_LENGTH} printable characters without spaces, got '${raw}'`);
  }
  return raw;
}

function claimIdleMs(env: NodeJS.ProcessEnv): number {
  const raw = env.PROJECTOR_CLAIM_IDLE_MS;
  if (raw === undefined || raw === '') return DEFAULT_CLAIM_IDLE_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < MIN_CLAIM_IDLE_MS || n > MAX_CLAIM_IDLE_MS) {
    throw new Error(
      `PROJECTOR_CLAIM_IDLE_MS must be an integer from ${MIN_CLAIM_IDLE_MS} to ${MAX_CLAIM_IDLE_MS}, got '${raw}'`,
    );
  }
  return n;
}

/** PROJECTOR_NAME and PROJECTOR_CLAIM_IDLE_MS, checked (a wrong value names its setting). */
export function projectorSettings(env: NodeJS.ProcessEnv, hostname?: string): ProjectorSettings {
  return { consumer: projectorName(env, hostname), claimIdleMs: claimIdleMs(env) };
}
