/**
 * Member's calls to Setting, Company and Tier, in one place: each answers the
 * record or null when there is none (a 404 of the callee, or an unknown
 * instance). Other errors of the callee are thrown as they are, and so are
 * the runtime's 404s for a class or method that is not deployed: a missing
 * Setting or Company class is a failure, not "no such record".
 *
 * The callees answer either the record itself or the record wrapped in one
 * key (`{memberType: {...}}`); both are accepted.
 */
import type { Ctx } from '../../runtime';
import { isAbsentRecord } from '../_platform/calls';

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
    if (isAbsentRecord(err)) return null;
    throw err;
  }
}

/**
 * Setting's find-by-value lookups take values of at most this many characters
 * (its schemas; no systemIdentifier or hrmsMapping entry is longer) and refuse
 * longer ones as malformed. HR values are not bounded: a longer one matches
 * no record, so it is answered here as "none" instead of asking.
 */
const SETTING_LOOKUP_MAX = 100;

function lookupValue(value: string): string | null {
  const v = value.trim();
  return v.length > 0 && v.length <= SETTING_LOOKUP_MAX ? v : null;
}

export async function findMemberTypeBySystemIdentifier(ctx: Ctx, systemIdentifier: string): Promise<MemberTypeRecord | null> {
  const value = lookupValue(systemIdentifier);
  return value === null ? null : fetchOne(ctx, SETTING, 'findMemberTypeBySystemIdentifier', 'default', { systemIdentifier: value }, 'memberType');
}

export function getMemberType(ctx: Ctx, id: string): Promise<MemberTypeRecord | null> {
  return fetchOne(ctx, SETTING, 'getMemberType', 'default', { id }, 'memberType');
}

export function getMemberSubType(ctx: Ctx, id: string): Promise<MemberSubTypeRecord | null> {
  return fetchOne(ctx, SETTING, 'getMemberSubType', 'default', { id }, 'memberSubType');
}

export async function findMemberSubTypeByHrmsMapping(ctx: Ctx, relation: string): Promise<MemberSubTypeRecord | null> {
  const value = lookupValue(relation);
  return value === null ? null : fetchOne(ctx, SETTING, 'findMemberSubTypeByHrmsMapping', 'default', { relation: value }, 'memberSubType');
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
