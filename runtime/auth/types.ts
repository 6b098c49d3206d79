/**
 * The access layer's interfaces, apart from its implementation (access.ts) so
 * that the dispatcher and access control both depend on them and not on each
 * other (no import cycle, type-only imports included).
 */
import type { RegisteredClass, RegisteredMethod } from '../actor/registry';
import type { Identity, RoleDefinition } from '../actor/types';

/** What the dispatcher needs from access control. */
export interface Authorizer {
  /** throws 401/403 ActorErrors */
  authorize(identity: Identity, cls: RegisteredClass, method: RegisteredMethod): Promise<void>;
  /** role definitions of a program management user's roles */
  rolesOf(identity: Identity): Promise<RoleDefinition[]>;
}

/** Where role definitions come from; RoleManager plugs its own in. */
export interface RoleSource {
  /** the active roles among `names` (matched by id or name) */
  getRoles(names: string[]): Promise<RoleDefinition[]>;
}
