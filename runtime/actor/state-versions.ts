/**
 * State versions: a class that changes the shape of its state declares the
 * version its code reads and the migrations that bring older states to it
 * (`ClassOptions.state`). A state is migrated when it is loaded, so every
 * handler, the projection and the inspector see the current shape, and the
 * migrated state is committed with the instance's next write (or by
 * `cli migrate-state`, which writes every instance still behind). A class
 * that declares nothing keeps version 1 and its stored state is unchanged.
 *
 * The version travels inside the stored JSON (`"v": 2`): one value, committed
 * atomically with the state it describes. A state newer than the code (an old
 * process during a rolling deploy) is refused, not read: an old process would
 * otherwise write the old shape over the new one.
 */
import { ActorError, RuntimeCodes } from '../errors';
import type { MethodDef, StateMigration, StateVersioning } from '../types/classes';
import type { InstanceState } from '../types/state';

/** the version of a state stored before its class declared one */
export const FIRST_STATE_VERSION = 1;

const PARTITIONS = ['public', 'private', 'user', 'role'] as const;

/** Checks a class's declaration: a version from 1, one migration to each version above 1, in order. */
export function checkStateVersioning(classId: string, versioning: StateVersioning | undefined): void {
  if (!versioning) return;
  const { version, migrations } = versioning;
  if (!Number.isInteger(version) || version < FIRST_STATE_VERSION)
    throw new Error(`${classId}: state.version must be an integer from ${FIRST_STATE_VERSION}`);
  if (!Array.isArray(migrations)) throw new Error(`${classId}: state.migrations must be a list`);
  const expected = Array.from({ length: version - FIRST_STATE_VERSION }, (_, i) => i + FIRST_STATE_VERSION + 1);
  const given = migrations.map((m) => m.to);
  if (given.length !== expected.length || given.some((to, i) => to !== expected[i])) {
    throw new Error(
      `${classId}: state.migrations must migrate to each version from ${FIRST_STATE_VERSION + 1} to ${version} in order ` +
        `(got ${given.length ? given.join(', ') : 'none'})`,
    );
  }
  for (const m of migrations) {
    if (typeof m.migrate !== 'function')
      throw new Error(`${classId}: the migration to ${m.to} has no migrate function`);
  }
}

/** the version a stored state was written at */
export function versionOf(stored: { v?: unknown }): number {
  return typeof stored.v === 'number' && Number.isInteger(stored.v) ? stored.v : FIRST_STATE_VERSION;
}

/**
 * A stored state as its class's code reads it: its partitions, migrated from
 * the version it was written at. Throws 503 STATE_TOO_NEW (retryable) for a
 * state written by newer code.
 */
export function loadState(
  classId: string,
  versioning: StateVersioning | undefined,
  json: string | null | undefined,
): InstanceState {
  const stored = json ? (JSON.parse(json) as Partial<InstanceState> & { v?: unknown }) : {};
  let state: InstanceState = {
    public: stored.public ?? {},
    private: stored.private ?? {},
    user: stored.user ?? {},
    role: stored.role ?? {},
  };
  if (!json) return state;
  const from = versionOf(stored);
  const to = versioning?.version ?? FIRST_STATE_VERSION;
  if (from > to) {
    const { code, status } = RuntimeCodes.STATE_TOO_NEW;
    throw new ActorError(
      status,
      code,
      `${classId}: this instance's state is at version ${from}, newer than the ${to} this process reads; ` +
        'a process running newer code must serve it',
      { details: { stateVersion: from, readsVersion: to }, retryable: true },
    );
  }
  for (const m of versioning?.migrations ?? []) {
    if (m.to <= from) continue;
    state = migrateOnce(classId, m, state);
  }
  return state;
}

function migrateOnce(classId: string, m: StateMigration, state: InstanceState): InstanceState {
  let next: InstanceState | void;
  try {
    next = m.migrate(state);
  } catch (err) {
    throw new Error(`${classId}: the state migration to version ${m.to} failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const out = next ?? state;
  for (const p of PARTITIONS) out[p] ??= {};
  return out;
}

/** the version a class writes its state at */
export function currentVersion(versioning: StateVersioning | undefined): number {
  return versioning?.version ?? FIRST_STATE_VERSION;
}

/**
 * The runtime's method of a versioned class that commits an instance's state
 * at the current version and changes nothing else: loading migrated it, and a
 * write commits a state that differs from the stored one. INTERNAL: the CLI
 * (the system identity) calls it, never a client.
 */
export const MIGRATE_STATE_METHOD = 'migrateState';

export function migrateStateMethod(classId: string, version: number): MethodDef {
  return {
    name: MIGRATE_STATE_METHOD,
    kind: 'INTERNAL',
    options: { access: [`class:${classId}`], schema: false },
    handler: () => ({ stateVersion: version }),
  };
}
