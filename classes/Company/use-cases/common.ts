/**
 * What Company's use cases share: the singleton's instance and events, the
 * handlers' context types, the state to write or read, the
 * company a call names, the refusal while a company waits for an approval,
 * and the audit entry of a change.
 */
import type { BaseCtx, Ctx, DeepReadonly, ReadCtx } from '../../../runtime';
import { logChange } from '../../_platform/audit-log';
import { openRecord, ownEntry } from '../../_platform/records';
import { companyError } from '../errors';
import { toEntity } from '../rules';
import type { Company as CompanyRecord, CompanyClassState, CompanyState } from '../types';

export const COMPANY_INSTANCE = 'default';
export const COMPANY_EVENTS = {
  create: 'company_create',
  update: 'update_company',
  status: 'update_company_status',
} as const;
/** the approval callback of every Company event (approve and reject) */
export const APPROVAL_CALLBACK = 'approveCompany';

/** a Company write's context: the singleton's state, and the method's body `I` */
export type CompanyCtx<I = Record<string, never>> = Ctx<CompanyClassState, I>;
/** a Company READ's context */
export type CompanyReadCtx<I = Record<string, never>> = ReadCtx<CompanyClassState, I>;

export const now = () => new Date().toISOString();

export function guardSingleton(ctx: Pick<BaseCtx, 'instanceId'>): void {
  if (ctx.instanceId !== COMPANY_INSTANCE) {
    throw companyError(
      'COMPANY_SINGLETON_ONLY',
      `Company is a singleton: call instance '${COMPANY_INSTANCE}', not '${ctx.instanceId}'`,
    );
  }
}

/** The state to change. */
export function writable(ctx: CompanyCtx<unknown>): CompanyState {
  guardSingleton(ctx);
  const s = ctx.state.private;
  // keyed by caller-given ids: a null-prototype record, so '__proto__' or 'constructor' are ordinary ids
  s.companies = openRecord(s.companies);
  return s;
}

/** The state to read (frozen; no companies before the first one is created). */
export function readable(ctx: CompanyReadCtx<unknown>): DeepReadonly<CompanyState> {
  guardSingleton(ctx);
  return { companies: ctx.state.private.companies ?? {} };
}

/** The company with this id (read-only in a READ, the draft's in a write); 404 6010 when there is none. */
export function requireCompany<C extends DeepReadonly<CompanyRecord>>(
  companies: Readonly<Record<string, C>>,
  id: string,
): C {
  const company = ownEntry(companies, id);
  if (!company) throw companyError('COMPANY_NOT_FOUND', `No company with id '${id}'`, { id });
  return company;
}

/** The refusal of a change asked while company `id` waits for an approval (409 6015). */
export function whilePending(id: string) {
  return (approvalId: string) =>
    companyError('COMPANY_APPROVAL_PENDING', `Company '${id}' waits for approval ${approvalId}`, { id, approvalId });
}

/** The audit entry of an applied change; it belongs to the company it logs, so that company's users see it. */
export async function logCompany(
  ctx: CompanyCtx<unknown>,
  id: string,
  before: CompanyRecord | null,
  after: CompanyRecord,
  extra: Record<string, unknown>,
) {
  await logChange(ctx, {
    entityType: 'company',
    entityId: id,
    before: before ? { ...toEntity(before) } : null,
    after: { ...toEntity(after) },
    additionalData: extra,
    companyId: id,
  });
}
