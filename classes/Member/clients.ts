/**
 * What Member asks Setting, Company and Tier, through clients typed from
 * their own methods (`client<typeof Callee>`): each answers the callee's own
 * record type, or null when there is none (a 404 of the callee, or an unknown
 * instance: isAbsentRecord). Other errors of the callee are thrown as they
 * are, and so are the runtime's 404s for a class or method that is not
 * deployed: a missing Setting or Company class is a failure, not "no such
 * record".
 *
 *   Setting  getMemberType, getMemberSubType, getCompanyGroup ({id}),
 *            findMemberTypeBySystemIdentifier, findMemberSubTypeByHrmsMapping
 *   Company  getCompany ({id} or {bgId})
 *   Tier     getTier (on the tier's instance) → {tier, pendingApproval}
 */
import { client, isClassError, type BaseCtx, type DeepReadonly } from '../../runtime';
import { isAbsentRecord } from '../_platform/calls';
import type { Company } from '../Company/Company.class';
import type { CompanyRecord as CompanyValue } from '../Company/Company.class';
import type { Setting, ValueView } from '../Setting/Setting.class';
import type { Tier } from '../Tier/Tier.class';
import type { EligibilityRule } from '../_platform/eligibility';
import type { TierErrorName, TierRecord as TierValue } from '../Tier/Tier.class';

/** the records as their classes answer them */
export type MemberTypeRecord = DeepReadonly<ValueView<'memberTypes'>>;
export type MemberSubTypeRecord = DeepReadonly<ValueView<'memberSubTypes'>>;
export type CompanyGroupRecord = DeepReadonly<ValueView<'companyGroups'>>;
export type CompanyRecord = DeepReadonly<CompanyValue>;
export type TierRecord = DeepReadonly<TierValue>;
export type EligibilityRuleRecord = DeepReadonly<EligibilityRule>;

type Caller = Pick<BaseCtx, 'call'>;

const SETTING_INSTANCE = 'default';
const COMPANY_INSTANCE = 'default';

const settings = (ctx: Caller) => client<typeof Setting>(ctx, 'Setting');
const companies = (ctx: Caller) => client<typeof Company>(ctx, 'Company');
const tiers = (ctx: Caller) => client<typeof Tier>(ctx, 'Tier');

/** The callee's answer, or null when it holds no such record. */
async function orNull<T>(ask: () => Promise<T>): Promise<T | null> {
  try {
    return await ask();
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

export async function findMemberTypeBySystemIdentifier(
  ctx: Caller,
  systemIdentifier: string,
): Promise<MemberTypeRecord | null> {
  const value = lookupValue(systemIdentifier);
  return value === null
    ? null
    : orNull(() => settings(ctx).findMemberTypeBySystemIdentifier(SETTING_INSTANCE, { systemIdentifier: value }));
}

export function getMemberType(ctx: Caller, id: string): Promise<MemberTypeRecord | null> {
  return orNull(() => settings(ctx).getMemberType(SETTING_INSTANCE, { id }));
}

export function getMemberSubType(ctx: Caller, id: string): Promise<MemberSubTypeRecord | null> {
  return orNull(() => settings(ctx).getMemberSubType(SETTING_INSTANCE, { id }));
}

export async function findMemberSubTypeByHrmsMapping(
  ctx: Caller,
  relation: string,
): Promise<MemberSubTypeRecord | null> {
  const value = lookupValue(relation);
  return value === null
    ? null
    : orNull(() => settings(ctx).findMemberSubTypeByHrmsMapping(SETTING_INSTANCE, { relation: value }));
}

export function getCompanyGroup(ctx: Caller, id: string): Promise<CompanyGroupRecord | null> {
  return orNull(() => settings(ctx).getCompanyGroup(SETTING_INSTANCE, { id }));
}

export function getCompany(ctx: Caller, id: string): Promise<CompanyRecord | null> {
  return orNull(() => companies(ctx).getCompany(COMPANY_INSTANCE, { id }));
}

export function getCompanyByBgId(ctx: Caller, bgId: string): Promise<CompanyRecord | null> {
  return orNull(() => companies(ctx).getCompany(COMPANY_INSTANCE, { bgId }));
}

/**
 * The ids of the tiers listed as active (Tier.listTiers, the streamed listing: eventually consistent, so a
 * caller reads each tier again with getTier before it relies on one), newest start first.
 */
export async function listActiveTierIds(ctx: Caller): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page += 1) {
    const r = await tiers(ctx).listTiers(undefined, { status: 'active', page, limit: 100 });
    ids.push(...r.items.map((t) => String((t as { id: unknown }).id)));
    if (page >= r.totalPages) return ids;
  }
}

export async function getTier(ctx: Caller, tierId: string): Promise<TierRecord | null> {
  return (await orNull(() => tiers(ctx).getTier(tierId, {})))?.tier ?? null;
}

/** a rule's quota and the places taken under it, as the tier counts them (Tier quota.ts) */
export interface QuotaUseRecord {
  readonly ruleId: string;
  readonly quota: number;
  readonly taken: number;
}

/** The tier and the use of its rules' quotas; null when there is no such tier. */
export async function getTierWithQuota(
  ctx: Caller,
  tierId: string,
): Promise<{ tier: TierRecord; quota: readonly QuotaUseRecord[] } | null> {
  const r = await orNull(() => tiers(ctx).getTier(tierId, {}));
  return r ? { tier: r.tier, quota: r.quota } : null;
}

/**
 * A place for the membership under its rule's quota (Tier.claimQuotaPlace): true when taken (or held already),
 * false when every place is taken.
 */
export async function claimQuotaPlace(
  ctx: Caller,
  tierId: string,
  place: { ruleId: string; membershipId: string; memberId: string },
): Promise<boolean> {
  try {
    await tiers(ctx).claimQuotaPlace(tierId, place);
    return true;
  } catch (err) {
    if (isClassError<TierErrorName>(err, 'Tier', 'TIER_QUOTA_FULL')) return false;
    throw err;
  }
}
