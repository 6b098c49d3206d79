/**
 * The access layer's interfaces, apart from its implementation (access.ts) so
 * that the dispatcher and access control both depend on them and not on each
 * other (no import cycle, type-only imports included).
 */
import type { RegisteredClass, RegisteredMethod } from '../actor/registry';
import type { Identity } from '../types/identity';
import type { RoleDefinition } from '../types/roles';

/** What the dispatcher needs from access control. */
export interface Authorizer {
  /**
   * Throws 401/403 ActorErrors. Returns a promise only when the answer needs
   * the caller's roles (a program management user on a role-checked method);
   * otherwise it decides at once, so most calls pay no promise for access.
   */
  authorize(identity: Identity, cls: RegisteredClass, method: RegisteredMethod): Promise<void> | void;
  /** role definitions of a program management user's roles */
  rolesOf(identity: Identity): Promise<RoleDefinition[]>;
}

/** Where role definitions come from; RoleManager plugs its own in. */
export interface RoleSource {
  /** the active roles among `names` (matched by id or name) */
  getRoles(names: string[]): Promise<RoleDefinition[]>;
}
