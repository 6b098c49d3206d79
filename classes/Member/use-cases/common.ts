/**
 * What Member's use cases share: who may reach a member, the change guard, the
 * workflow event names, the company and member-type checks, the HR entry
 * points' error guard.
 */
import { ActorError, type BaseCtx, type DeepReadonly, type Identity } from '../../../runtime';
import { refuseWhilePending as refuseWhileGated } from '../../_platform/gated-change';
import {
  getCompany,
  getCompanyGroup,
  getMemberSubType,
  getMemberType,
  type CompanyRecord,
  type MemberSubTypeRecord,
  type MemberTypeRecord,
} from '../clients';
import { companyTakesMembers } from '../company-rules';
import { fieldError, hrError, memberError } from '../errors';
import { HR_MESSAGES } from '../hr-contract';
import { profileOf, type MemberCtx, type MemberReadCtx } from '../member-state';
import type { MemberPrivateState, MemberProfile } from '../types';

type Caller = Pick<BaseCtx, 'call'>;

export const MEMBER_PHOTO_EVENT = 'MEMBER_ID_PHOTO_UPLOAD';
export const MEMBER_CREATE_EVENT = 'member_create';
export const MEMBER_UPDATE_EVENT = 'member_update';
export const MEMBER_STATUS_EVENT = 'member_status_update';

export const now = () => new Date().toISOString();

/**
 * The member, after checking the caller may reach it: endusers only themselves.
 * Company users reach only their company's members: the platform's company
 * scope (tenancy in Member.class.ts) has checked that before the handler ran.
 */
export function reachable(ctx: MemberCtx<unknown>): MemberProfile;
export function reachable(ctx: MemberReadCtx<unknown>): DeepReadonly<MemberProfile>;
export function reachable(ctx: MemberReadCtx<unknown>): DeepReadonly<MemberProfile> {
  const p = profileOf(ctx);
  if ((ctx.identity.type === 'enduser' || ctx.identity.type === 'member_otp') && ctx.identity.userId !== p.id) {
    throw memberError('NOT_YOUR_MEMBER', 'A member may only reach itself');
  }
  return p;
}

/**
 * The guard of the methods members call on themselves: an enduser or
 * member_otp session reaches only the member its token names, judged from the
 * id before the member is looked up, so another member's existence is never
 * told (a lookup is not an id of its own: refused alike).
 */
export function selfOnly(caller: { identity: Identity; instanceId: string | undefined }): void {
  const { identity } = caller;
  if ((identity.type === 'enduser' || identity.type === 'member_otp') && identity.userId !== caller.instanceId) {
    throw memberError('NOT_YOUR_MEMBER', 'A member may only reach itself');
  }
}

/** The member's error for a change asked for while it waits for an approval (409 5003). */
export function whilePending(state: DeepReadonly<MemberPrivateState>): (approvalId: string) => ActorError {
  return (approvalId) =>
    memberError(
      'APPROVAL_PENDING',
      `Member ${state.profile.id} waits for approval ${approvalId} (${state.pendingChange?.event})`,
      { approvalId },
    );
}

/** A member that waits for an approval (pendingChange) takes no other change. */
export function refuseWhilePending(state: DeepReadonly<MemberPrivateState>): void {
  refuseWhileGated(state.pendingChange?.approvalId, whilePending(state));
}

/** Records a caller has read already (an import run holds them for the run): used instead of asking Setting again. */
export interface KnownTypes {
  memberType?: MemberTypeRecord | null;
  memberSubType?: MemberSubTypeRecord | null;
}

/** Member type and sub type must be active and eligible for the company (spec 4.5 updateMemberPersonal). */
export async function checkMemberTypes(
  ctx: Caller,
  company: CompanyRecord,
  memberType: string | null,
  memberSubType: string | null,
  known: KnownTypes = {},
): Promise<void> {
  if (memberType) {
    const mt = known.memberType?.id === memberType ? known.memberType : await getMemberType(ctx, memberType);
    if (!mt || mt.status !== 'active')
      throw fieldError(
        'INVALID_MEMBER_TYPE',
        'memberType',
        `Member type '${memberType}' does not exist or is not active`,
      );
    const eligible = company.eligibleMemberTypes ?? [];
    if (eligible.length && !eligible.includes(memberType)) {
      throw fieldError(
        'NOT_ELIGIBLE_FOR_COMPANY',
        'memberType',
        `Member type '${memberType}' is not eligible for company '${company.id}'`,
      );
    }
  }
  if (memberSubType) {
    const st =
      known.memberSubType?.id === memberSubType ? known.memberSubType : await getMemberSubType(ctx, memberSubType);
    if (!st || st.status !== 'active')
      throw fieldError(
        'INVALID_MEMBER_SUB_TYPE',
        'memberSubType',
        `Member sub type '${memberSubType}' does not exist or is not active`,
      );
    const allowed = (company.memberSubTypes ?? []).map((s) => s.memberSubTypeId);
    if (allowed.length && !allowed.includes(memberSubType)) {
      throw fieldError(
        'NOT_ELIGIBLE_FOR_COMPANY',
        'memberSubType',
        `Member sub type '${memberSubType}' is not eligible for company '${company.id}'`,
      );
    }
  }
}

export async function requireCompany(ctx: Caller, companyId: string): Promise<CompanyRecord> {
  const company = await getCompany(ctx, companyId);
  if (!company) throw fieldError('COMPANY_NOT_FOUND', 'company.id', `Company '${companyId}' does not exist`);
  return company;
}

/** The company a member is created in: it must exist and be active. */
export async function requireActiveCompany(ctx: Caller, companyId: string): Promise<CompanyRecord> {
  return takingMembers(await requireCompany(ctx, companyId));
}

/** The company, when it takes members (active); 400 COMPANY_NOT_ACTIVE otherwise. */
export function takingMembers(company: CompanyRecord): CompanyRecord {
  if (!companyTakesMembers(company)) {
    throw fieldError(
      'COMPANY_NOT_ACTIVE',
      'company.id',
      `Company '${company.id}' is ${company.status}: members are created in active companies only`,
    );
  }
  return company;
}

/**
 * Spec 4.2/7.2: a member moves only between companies of the same company
 * group type (internal vs external). True when the member's current company
 * is gone (nothing to compare with).
 */
export async function sameCompanyGroupType(
  ctx: Caller,
  fromCompanyId: string,
  to: Pick<CompanyRecord, 'companyGroupId'>,
): Promise<boolean> {
  const current = await getCompany(ctx, fromCompanyId);
  if (!current) return true;
  const [from, into] = await Promise.all([
    getCompanyGroup(ctx, current.companyGroupId),
    getCompanyGroup(ctx, to.companyGroupId),
  ]);
  return (from?.type ?? null) === (into?.type ?? null);
}

/** Runs an HR entry point: anything that is not already a contract error becomes 500 10000. */
export async function hrGuard<T>(ctx: Pick<BaseCtx, 'log'>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ActorError && err.body) throw err;
    ctx.log.error({ err }, 'HR integration call failed');
    if (err instanceof ActorError && err.status === 503)
      throw hrError('INTERNAL', HR_MESSAGES.unavailable, undefined, 503);
    throw hrError('INTERNAL', HR_MESSAGES.internal);
  }
}

/** The id of the member behind a lookup (`staffId!x`, `email!x`); used by Member itself. */
export function resolveMemberId(ctx: MemberReadCtx) {
  return { id: ctx.instanceId };
}
