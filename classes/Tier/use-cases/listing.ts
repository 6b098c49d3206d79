/**
 * listTiers, from the streamed `tiers` collection (filters: status,
 * tierTypeId, tierGroup, search, page, limit; newest startDate first), and
 * the reference lists: tier groups, payment types, eligibility rule
 * definitions.
 */
import type { StaticCtx } from '../../../runtime';
import type { ListTiersInput } from '../../../schemas/Tier/inputs';
import { listedDocument } from '../../_platform/paging';
import { buildListFilter, listQuery } from '../rules';
import { CONDITION_DEFINITIONS } from '../../_platform/eligibility';
import { ELIGIBILITY_OPERATORS, TIER_GROUPS, TIER_PAYMENT_TYPES } from '../types';

const GROUP_LABELS: Record<string, string> = { base: 'Base', upgrade: 'Upgrade', add_on: 'Add-on' };
const PAYMENT_TYPE_LABELS: Record<string, string> = {
  credit_card: 'Credit card',
  salary_deduction: 'Salary deduction',
};

/** POST body or GET query, validated by the schema (a bad one is 400 7013, Tier.class.ts). */
export async function listTiers(ctx: StaticCtx<ListTiersInput>) {
  const q = listQuery(ctx.request.body);
  const found = await ctx.documents.find<Record<string, unknown>>('tiers', buildListFilter(q), {
    sort: { startDate: -1, _id: 1 },
    skip: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  const items = found.items.map((doc) => listedDocument(doc));
  return { items, totalCount: found.total, page: q.page, limit: q.limit, totalPages: Math.ceil(found.total / q.limit) };
}

export function getTierGroups() {
  return { tierGroups: TIER_GROUPS.map((key) => ({ key, label: GROUP_LABELS[key] })) };
}

export function getPaymentTypes() {
  return { paymentTypes: TIER_PAYMENT_TYPES.map((key) => ({ key, label: PAYMENT_TYPE_LABELS[key] })) };
}

/** The condition keys eligibility rules may use, their value types and operators. */
export function getEligibilityRuleDefinitions() {
  return { operators: [...ELIGIBILITY_OPERATORS], conditions: CONDITION_DEFINITIONS };
}
