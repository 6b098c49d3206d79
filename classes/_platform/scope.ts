/**
 * Company scope (spec 2.7, GUIDE 5a): a company user sees and changes only
 * data of its company. The runtime enforces it as its tenant rule
 * (ClassOptions.tenancy, runtime/auth/tenancy.ts): a company user's identity
 * carries its company as `tenant`, and every class declares, through one of
 * the helpers below, how its data belongs to companies:
 *
 *   @ActorClass({ id: 'Member', tenancy: ownedByCompany((s) => s.private.profile?.company?.id), stream: {
 *     collections: { members: { indexes, tenantField: 'companyId' } }, ... } })
 *
 *  - ownedByCompany(companyOf): one company per instance (a member, its files,
 *    an audit entry, an approval record). Company users reach only instances
 *    of their company and cannot create or move one elsewhere; listings of its
 *    collections are filtered on their `tenantField`.
 *  - SHARED_DATA: programme reference data (settings, tiers, roles, workflow
 *    rules): company users may read it, never change it.
 *  - COMPANY_RECORDS: one instance holding many companies' records (the
 *    Company singleton): its handlers check each record against the caller's
 *    company (`ctx.tenancy.check(companyId)`, or the class's own check of
 *    `identity.tenant` with its own error code, as Company's assertMayReach).
 *  - nothing: the class is closed to company users (403 OUT_OF_SCOPE).
 *
 * What one change causes elsewhere (its approval record, its audit entries,
 * its files) belongs to the company of the entity changed: recordCompany().
 */
import type { Ctx, InstanceState, TenancyOptions } from '../../runtime';

export function ownedByCompany<S extends InstanceState = InstanceState>(
  companyOf: (state: S) => string | null | undefined,
): TenancyOptions<S> {
  return { kind: 'owned', owner: companyOf };
}

export const SHARED_DATA: TenancyOptions = Object.freeze({ kind: 'shared' });

export const COMPANY_RECORDS: TenancyOptions = Object.freeze({ kind: 'records' });

/** The company the caller is limited to (a company user, or a class acting for one); undefined: every company. */
export function callerCompany(ctx: Ctx): string | undefined {
  return ctx.tenancy.tenant;
}

/**
 * The company the records a change causes belong to (approval record, audit
 * entry, stored files): the one given, else the company owning the changing
 * instance, else the caller's own company.
 */
export function recordCompany(ctx: Ctx, explicit?: string | null): string | undefined {
  return explicit ?? ctx.tenancy.owner() ?? ctx.tenancy.tenant;
}
