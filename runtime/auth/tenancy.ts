/**
 * Tenant scope (ClassOptions.tenancy): one rule of the platform, enforced by
 * the dispatcher wherever data is read or written, for every class.
 *
 * A caller bound to a tenant (identity.tenant, e.g. a company user) reaches
 * only data of that tenant:
 *  - a class without a tenancy declaration refuses it outright;
 *  - `shared` classes: READ and STATIC only (users; classes acting for it may write);
 *  - `owned` classes: instances whose owner(state) is its tenant, before and
 *    after every handler (no creating for, or moving data to, another tenant);
 *  - `records` classes: the handler checks each record (ctx.tenancy.check);
 *  - listings (ctx.documents): filtered on the collection's tenantField; a
 *    collection of a class without tenancy (or of an owned/records class
 *    without tenantField, which the registry refuses at start) is refused.
 *
 * Pure functions; the dispatcher calls them. Callers without a tenant pass
 * every check at the cost of one property read.
 */
import type { DocumentStore, Filter, FindOptions, FindResult } from '../stream/document-store';
import { runtimeError } from '../errors';
import type { TenancyOptions } from '../types/classes';
import type { TenancyApi } from '../types/context';
import type { DocumentReader } from '../types/documents';
import type { Identity } from '../types/identity';
import type { MethodKind } from '../types/kinds';
import type { InstanceState } from '../types/state';

export interface CollectionScope {
  classId: string;
  tenancy?: TenancyOptions;
  tenantField?: string;
}

function outOfScope(message: string) {
  return runtimeError('OUT_OF_SCOPE', message);
}

/** Before anything else: may a tenant-bound identity call a method of this kind on this class at all? */
export function assertTenantMayCall(
  identity: Identity,
  classId: string,
  method: string,
  kind: MethodKind,
  tenancy: TenancyOptions | undefined,
): void {
  if (identity.tenant === undefined) return;
  if (!tenancy) {
    throw outOfScope(
      `${classId} declares no tenant scope: callers limited to a tenant may not call ${classId}.${method}`,
    );
  }
  if (tenancy.kind === 'shared' && identity.type !== 'class' && kind !== 'READ' && kind !== 'STATIC') {
    throw outOfScope(
      `${classId} holds data shared by every tenant: a caller limited to tenant '${identity.tenant}' may read it, not change it (${classId}.${method})`,
    );
  }
}

/** The owner of an `owned` instance's state (undefined for other kinds, or when the state names none). */
export function ownerOf(tenancy: TenancyOptions | undefined, state: InstanceState): string | undefined {
  if (tenancy?.kind !== 'owned') return undefined;
  const owner = tenancy.owner(state);
  return typeof owner === 'string' && owner.length > 0 ? owner : undefined;
}

/**
 * `owned` classes: the instance's state must belong to the caller's tenant.
 * `phase` 'before': the state a call reads or is about to change; 'after':
 * the state a write is about to commit.
 */
export function assertOwnedBy(
  identity: Identity,
  classId: string,
  instanceId: string,
  tenancy: TenancyOptions | undefined,
  state: InstanceState,
  phase: 'before' | 'after',
): void {
  const tenant = identity.tenant;
  if (tenant === undefined || tenancy?.kind !== 'owned') return;
  const owner = ownerOf(tenancy, state);
  if (owner === tenant) return;
  throw outOfScope(
    phase === 'before'
      ? `${classId} '${instanceId}' does not belong to tenant '${tenant}'`
      : `This change would leave ${classId} '${instanceId}' outside tenant '${tenant}' (owner '${owner ?? 'none'}'); nothing was written`,
  );
}

/** ctx.tenancy: the caller's scope, and the owner of the current state. */
export function tenancyApi(
  identity: Identity,
  tenancy: TenancyOptions | undefined,
  state: () => InstanceState,
): TenancyApi {
  const tenant = identity.tenant;
  const allows = (t: string | null | undefined) => tenant === undefined || t === tenant;
  return {
    tenant,
    allows,
    check(t, what) {
      if (!allows(t)) throw outOfScope(`${what ?? 'This record'} does not belong to tenant '${tenant}'`);
    },
    owner: () => ownerOf(tenancy, state()),
  };
}

/** The filter a tenant-bound reader runs: the caller's filter and the tenant condition. */
export function scopedFilter(filter: Filter, field: string, tenant: string): Filter {
  const condition = { [field]: tenant };
  return Object.keys(filter).length === 0 ? condition : { $and: [filter, condition] };
}

function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let v: unknown = doc;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Object.hasOwn(v, part) ? (v as Record<string, unknown>)[part] : undefined;
  }
  return v;
}

/**
 * The document reader of a tenant-bound caller: collections with a tenant
 * field are filtered to the caller's tenant; collections of shared classes are
 * read as they are; any other collection is refused.
 */
export function tenantDocuments(
  store: DocumentStore,
  tenant: string,
  scopeOf: (collection: string) => CollectionScope | undefined,
): DocumentReader {
  const fieldFor = (collection: string): string | null => {
    const scope = scopeOf(collection);
    if (scope?.tenantField) return scope.tenantField;
    if (scope?.tenancy?.kind === 'shared') return null;
    throw outOfScope(
      `Collection '${collection}' is not scoped to tenants: a caller limited to tenant '${tenant}' may not read it`,
    );
  };
  return {
    async find<T>(collection: string, filter: Filter, options?: FindOptions): Promise<FindResult<T>> {
      const field = fieldFor(collection);
      return store.find<T>(collection, field ? scopedFilter(filter, field, tenant) : filter, options);
    },
    async count(collection: string, filter: Filter): Promise<number> {
      const field = fieldFor(collection);
      return store.count(collection, field ? scopedFilter(filter, field, tenant) : filter);
    },
    async get(collection: string, id: string) {
      const field = fieldFor(collection);
      const doc = await store.get(collection, id);
      if (!doc || field === null) return doc;
      return valueAt(doc, field) === tenant ? doc : null;
    },
  };
}
