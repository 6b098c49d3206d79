/** Tier rules, pure: dates, building and changing tiers and rules, listings (the overlap rule is in schedule.ts). */
import type {
  AddEligibilityRuleInput,
  CreateTierInput,
  ListTiersInput,
  UpdateEligibilityRuleInput,
  UpdateTierInput,
} from '../../schemas/Tier/inputs';
import type { DeepReadonly } from '../../runtime';
import { escapeRegex } from '../_platform/paging';
import { isDeepStrictEqual } from 'node:util';
import {
  type EligibilityRule,
  type PendingApproval,
  type Tier,
  type TierActor,
  type TierGroup,
  type TierStatus,
} from './types';

export interface FieldProblem {
  field: string;
  reason: string;
}

/** An ISO 8601 date or date-time as a UTC instant string; undefined when it is not one. */
export function normalizeDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/i.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const ms = Date.parse(value.replace(' ', 'T'));
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined; // years 0000-9999 only: instants compare as strings
}

export type DateRangeResult =
  { ok: true; startDate: string; endDate: string } | { ok: false; problems: FieldProblem[] };

/** startDate < endDate, both valid instants (dates without time are midnight UTC). */
export function checkDateRange(start: unknown, end: unknown): DateRangeResult {
  const startDate = normalizeDate(start);
  const endDate = normalizeDate(end);
  const problems: FieldProblem[] = [];
  if (!startDate) problems.push({ field: 'startDate', reason: 'must be an ISO 8601 date or date-time with a zone' });
  if (!endDate) problems.push({ field: 'endDate', reason: 'must be an ISO 8601 date or date-time with a zone' });
  if (startDate && endDate && startDate >= endDate)
    problems.push({ field: 'endDate', reason: 'must be after startDate' });
  return problems.length ? { ok: false, problems } : { ok: true, startDate: startDate!, endDate: endDate! };
}

export function newRule(input: AddEligibilityRuleInput, id: string): EligibilityRule {
  const rule: EligibilityRule = {
    id,
    name: input.name,
    paymentTypes: [...new Set(input.paymentTypes)],
    paymentPeriod: input.paymentPeriod,
    conditions: input.conditions.map((c) => ({
      key: c.key,
      logicalOperator: c.logicalOperator,
      value: structuredClone(c.value),
    })),
    status: input.status ?? 'active',
  };
  if (input.quota !== undefined && input.quota !== null) rule.quota = input.quota;
  return rule;
}

/** sourceTierId: the source's active rules only, each with a new id. */
export function copyActiveRules(
  rules: readonly DeepReadonly<EligibilityRule>[],
  newId: () => string,
): EligibilityRule[] {
  // structuredClone makes a new, mutable copy of a rule read from another tier (a frozen READ answer)
  return rules
    .filter((r) => r.status === 'active')
    .map((r) => ({ ...(structuredClone(r) as EligibilityRule), id: newId() }));
}

export function buildTier(input: {
  id: string;
  body: CreateTierInput;
  startDate: string;
  endDate: string;
  group: TierGroup;
  rules: EligibilityRule[];
  createdBy: TierActor;
  now: string;
}): Tier {
  const { body } = input;
  const tier: Tier = {
    id: input.id,
    name: body.name.trim(),
    tierType: { id: body.tierType.id, group: input.group },
    fee: body.fee,
    startDate: input.startDate,
    endDate: input.endDate,
    status: 'pending',
    eligibilityRules: input.rules,
    createdBy: input.createdBy,
    createdAt: input.now,
    updatedAt: input.now,
  };
  if (body.description !== undefined) tier.description = body.description;
  return tier;
}

/** The tier with an update applied (description null removes it); dates are checked by the caller. */
export function applyTierUpdate(
  tier: Tier,
  body: UpdateTierInput,
  dates: { startDate: string; endDate: string },
  now: string,
): Tier {
  const next: Tier = structuredClone(tier);
  if (body.name !== undefined) next.name = body.name.trim();
  if (body.description === null) delete next.description;
  else if (body.description !== undefined) next.description = body.description;
  if (body.fee !== undefined) next.fee = body.fee;
  next.startDate = dates.startDate;
  next.endDate = dates.endDate;
  next.updatedAt = now;
  return next;
}

/** Same content, ignoring updatedAt. */
export function sameTier(a: Tier, b: Tier): boolean {
  const { updatedAt: _a, ...ra } = a;
  const { updatedAt: _b, ...rb } = b;
  return isDeepStrictEqual(JSON.parse(JSON.stringify(ra)), JSON.parse(JSON.stringify(rb)));
}

/** The rule with an update applied (quota null removes it). */
export function applyRuleUpdate(rule: EligibilityRule, body: UpdateEligibilityRuleInput): EligibilityRule {
  const next = structuredClone(rule);
  if (body.name !== undefined) next.name = body.name;
  if (body.paymentTypes !== undefined) next.paymentTypes = [...new Set(body.paymentTypes)];
  if (body.paymentPeriod !== undefined) next.paymentPeriod = body.paymentPeriod;
  if (body.quota === null) delete next.quota;
  else if (body.quota !== undefined) next.quota = body.quota;
  if (body.conditions !== undefined) next.conditions = structuredClone(body.conditions);
  return next;
}

/** Seconds from now until the instant (never negative). */
export function delayUntil(instant: string, nowMs: number): number {
  return Math.max(0, (Date.parse(instant) - nowMs) / 1000);
}

/** The streamed document of a tier (collection `tiers`). */
export function tierDocument(tier: Tier, pendingApproval: PendingApproval | null): Record<string, unknown> {
  return { ...tier, pendingApprovalId: pendingApproval?.id ?? null, pendingApproval: pendingApproval ?? null };
}

// ---- listTiers ----

export const DEFAULT_PAGE_SIZE = 20;
export { MAX_PAGE_SIZE } from '../_platform/paging';

export interface ListQuery {
  status?: TierStatus;
  tierTypeId?: string;
  tierGroup?: TierGroup;
  search?: string;
  page: number;
  limit: number;
}

/**
 * The listing's query from its validated input (schemas/Tier/listTiers.json
 * refuses unknown names, bad values and page sizes): the default page and
 * limit, and a search without its surrounding blanks (blank: no search).
 */
export function listQuery(input: ListTiersInput): ListQuery {
  const q: ListQuery = { page: input.page ?? 1, limit: input.limit ?? DEFAULT_PAGE_SIZE };
  if (input.status) q.status = input.status;
  if (input.tierTypeId) q.tierTypeId = input.tierTypeId;
  if (input.tierGroup) q.tierGroup = input.tierGroup;
  const search = input.search?.trim();
  if (search) q.search = search;
  return q;
}

/** MongoDB filter of listTiers on the `tiers` collection; search: case-insensitive literal match in the name. */
export function buildListFilter(q: ListQuery): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  if (q.status) and.push({ status: q.status });
  if (q.tierTypeId) and.push({ 'tierType.id': q.tierTypeId });
  if (q.tierGroup) and.push({ 'tierType.group': q.tierGroup });
  if (q.search) and.push({ name: { $regex: escapeRegex(q.search), $options: 'i' } });
  if (and.length === 0) return {};
  return and.length === 1 ? and[0] : { $and: and };
}
