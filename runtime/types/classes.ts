/** What a class declares about itself (@ActorClass) and the definitions the decorators collect. */
import type { Ctx } from './context';
import type { StreamOptions } from './documents';
import type { IdentitySourceOptions } from './identity';
import type { MethodKind } from './kinds';
import type { InitOptions, MethodOptions } from './methods';
import type { RoleDefinition } from './roles';
import type { InstanceState } from './state';

export interface MethodDef {
  name: string;
  kind: MethodKind;
  options: MethodOptions | InitOptions;
  handler: (ctx: Ctx) => unknown;
}

/**
 * An extra HTTP route that reaches one of the class's methods, for external
 * contracts with fixed paths. The method answers exactly as through CALL.
 */
export interface RouteAlias {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** express path, e.g. '/members/hr/employee' */
  path: string;
  /** the class's method to call */
  target: string;
  /** instance id to call (for singletons, 'default'); taken from the path's :instanceId when absent */
  instanceId?: string;
}

/**
 * A class that owns role definitions tells the runtime how to ask it for
 * roles when the published snapshot cannot be read, and how to have the
 * snapshot regenerated (spec 5).
 */
export interface RoleProviderOptions {
  instanceId: string;
  /** method answering {roles: RoleDefinition[]} for body {names: string[]} */
  getRoles: string;
  /** method that republishes the snapshot */
  regenerate: string;
  /**
   * roles that hold while the provider has no instance yet (a fresh project,
   * before its first publication): e.g. a built-in super role, so the first
   * back-office call is not refused while the regeneration it triggers runs
   */
  absentRoles?: readonly RoleDefinition[];
}

/**
 * How a class's data relates to tenants (identity.tenant), enforced by the
 * runtime for every method, before and after the handler, for callers bound to
 * a tenant (callers without a tenant are not limited):
 *
 *  - `owned`: each instance belongs to one tenant, `owner(state)`. A
 *    tenant-bound caller reaches only instances its tenant owns (READ, WRITE,
 *    QUEUED_WRITE, INTERNAL: checked on the state before the handler), and
 *    every state it commits (INIT, WRITE, ...) must still be owned by its
 *    tenant: it can neither create data for another tenant nor move data out
 *    of its own. Its collections declare `tenantField`, so listings are
 *    filtered to the caller's tenant.
 *  - `shared`: reference data of no tenant (settings, tiers, roles). Tenant-bound
 *    users may call READ and STATIC methods; INIT, WRITE and QUEUED_WRITE are
 *    refused to them (classes acting for them may still write).
 *  - `records`: an instance holding records of many tenants (a singleton of
 *    companies). The runtime cannot see which record a call touches, so each
 *    handler checks the records it reads or writes with `ctx.tenancy.check(tenant)`;
 *    its collections declare `tenantField`.
 *
 * A class that declares no tenancy refuses tenant-bound callers altogether
 * (403 OUT_OF_SCOPE), and its collections cannot be read by them: a new class
 * is closed to company users until it says how its data is scoped.
 */
export type TenancyOptions<S extends InstanceState = InstanceState> =
  { kind: 'owned'; owner(state: S): string | undefined | null } | { kind: 'shared' } | { kind: 'records' };

/** `S`: the class's state (`@ActorClass<S>`), which `stream.toDocuments` and `tenancy.owner` receive */
export interface ClassOptions<S extends InstanceState = InstanceState> {
  id: string;
  /** how the class's data is scoped to tenants (see TenancyOptions); none: closed to tenant-bound callers */
  tenancy?: TenancyOptions<S>;
  description?: string;
  routes?: RouteAlias[];
  roleProvider?: RoleProviderOptions;
  /** streaming to the document database; omitted for classes that are not listed */
  stream?: StreamOptions<S>;
  /** fields whose values are masked in logs (added to the runtime's defaults) */
  sensitiveFields?: string[];
  /** this class holds the users of a token type: their roles, tenant and status come from it (see IdentitySourceOptions) */
  identitySource?: IdentitySourceOptions;
  /**
   * The shape version of the class's state and the migrations that bring
   * older states to it (runtime/actor/state-versions.ts); none: version 1.
   */
  state?: StateVersioning;
}

/** One step of a class's state shape: brings a state of version `to - 1` to `to`. */
export interface StateMigration {
  to: number;
  /** what changes, for the operator's log and the CLI's report */
  description: string;
  /**
   * A pure function of the old state: changes it in place or returns the new
   * one. It sees a state that was never migrated past `to - 1`, typed loosely
   * because the old shape is not the class's type any more.
   */
  migrate(state: InstanceState): InstanceState | void;
}

export interface StateVersioning {
  /** the version this code reads and writes (from 1) */
  version: number;
  /** one migration to each version from 2 to `version`, in order */
  migrations: StateMigration[];
}

export interface ClassDef {
  id: string;
  options: ClassOptions;
  methods: Map<string, MethodDef>;
  /** classes may take the runtime's environment (the variables the process was configured with) */
  ctor: new (env: NodeJS.ProcessEnv) => object;
}
