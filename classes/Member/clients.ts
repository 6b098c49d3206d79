/**
 * Member's calls to Setting, Company and Tier, in one place: each answers the
 * record or null when there is none (a 404 of the callee, or an unknown
 * instance). Other errors of the callee are thrown as they are.
 *
 * The callees answer either the record itself or the record wrapped in one
 * key (`{memberType: {...}}`); both are accepted.
 */
import { ActorError, type Ctx } from '../../runtime';

export interface MemberTypeRecord {
  id: string;
  name?: string;
  status: string;
  systemIdentifier?: string;
  [k: string]: unknown;
}

export interface MemberSubTypeRecord {
  id: string;
  name?: string;
  status: string;
  hrmsMapping?: string | string[] | null;
  [k: string]: unknown;
}

export interface CompanyGroupRecord {
  id: string;
  name?: string;
  status?: string;
  type: 'internal' | 'external' | string;
  [k: string]: unknown;
}

export interface CompanyRecord {
  id: string;
  name?: string;
  companyGroupId: string;
  bgId?: string | number | null;
  status: string;
  eligibleMemberTypes?: string[];
  memberSubTypes?: { memberSubTypeId: string; maxDependants: number }[];
  maxFreeDependants?: number;
  [k: string]: unknown;
}

export interface EligibilityRuleRecord {
  id: string;
  name?: string;
  paymentTypes?: string[];
  paymentPeriod?: string;
  quota?: number | null;
  conditions?: { key: string; logicalOperator: string; value: unknown }[];
  status: string;
  [k: string]: unknown;
}

export interface TierRecord {
  id: string;
  name: string;
  tierType: { id: string; group: string; name?: string };
  fee: number;
  startDate?: string;
  endDate?: string;
  status: string;
  eligibilityRules?: EligibilityRuleRecord[];
  [k: string]: unknown;
}

const SETTING = 'Setting';
const COMPANY = 'Company';
const TIER = 'Tier';

function isMissing(err: unknown): boolean {
  return err instanceof ActorError && (err.status === 404 || err.code === 'UNKNOWN_INSTANCE');
}

function unwrap<T>(body: unknown, key: string): T | null {
  if (body === null || body === undefined || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  if (key in b) {
    const inner = b[key];
    return inner && typeof inner === 'object' ? (inner as T) : null;
  }
  return typeof b.id === 'string' ? (body as T) : null;
}

async function fetchOne<T>(ctx: Ctx, classId: string, method: string, instanceId: string, body: unknown, key: string): Promise<T | null> {
  try {
    const res = await ctx.call(classId, method, instanceId, body);
    return unwrap<T>(res.body, key);
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

export function findMemberTypeBySystemIdentifier(ctx: Ctx, systemIdentifier: string): Promise<MemberTypeRecord | null> {
  return fetchOne(ctx, SETTING, 'findMemberTypeBySystemIdentifier', 'default', { systemIdentifier }, 'memberType');
}

export function getMemberType(ctx: Ctx, id: string): Promise<MemberTypeRecord | null> {
  return fetchOne(ctx, SETTING, 'getMemberType', 'default', { id }, 'memberType');
}

export function getMemberSubType(ctx: Ctx, id: string): Promise<MemberSubTypeRecord | null> {
  return fetchOne(ctx, SETTING, 'getMemberSubType', 'default', { id }, 'memberSubType');
}

export function findMemberSubTypeByHrmsMapping(ctx: Ctx, relation: string): Promise<MemberSubTypeRecord | null> {
  return fetchOne(ctx, SETTING, 'findMemberSubTypeByHrmsMapping', 'default', { relation }, 'memberSubType');
}

export function getCompanyGroup(ctx: Ctx, id: string): Promise<CompanyGroupRecord | null> {
  return fetchOne(ctx, SETTING, 'getCompanyGroup', 'default', { id }, 'companyGroup');
}

export function getCompany(ctx: Ctx, id: string): Promise<CompanyRecord | null> {
  return fetchOne(ctx, COMPANY, 'getCompany', 'default', { id }, 'company');
}

export function getCompanyByBgId(ctx: Ctx, bgId: string): Promise<CompanyRecord | null> {
  return fetchOne(ctx, COMPANY, 'getCompany', 'default', { bgId }, 'company');
}

export function getTier(ctx: Ctx, tierId: string): Promise<TierRecord | null> {
  return fetchOne(ctx, TIER, 'getTier', tierId, {}, 'tier');
}
