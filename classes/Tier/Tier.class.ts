/**
 * Tier (spec 2.3, 3.3, 4.5, 6): one actor instance per tier (instance id =
 * tier id); private state holds `tier` (see types.ts TierState). Every change
 * runs the workflow (workflow-configs/Tier.json), is audit-logged through
 * LogManager and streamed to the `tiers` collection, which listTiers and the
 * overlap rule read. Rules live in pure modules: status.ts (status machine),
 * domain.ts (dates, overlap, updates, listing), eligibility.ts (conditions and
 * their evaluation). README.md has the decisions.
 */
import { randomUUID } from 'node:crypto';
import { ActorClass, client, Init, Internal, isUnknownInstance, QueuedWrite, Read, Static, Write, type Ctx, type DeepReadonly, type ReadCtx } from '../../runtime';
import { actorFromIdentity } from '../_platform/actor';
import { applyApprovalCallback, approvalSummary, PatchConflictError, runWorkflow, type ApprovalCallbackBody, type RunWorkflowResult } from '../_platform/workflow';
import { logChange } from '../_platform/audit-log';
import { SHARED_DATA } from '../_platform/scope';
import {
  applyRuleUpdate,
  applyTierUpdate,
  buildListFilter,
  buildTier,
  checkDateRange,
  copyActiveRules,
  delayUntil,
  newRule,
  overlapFilter,
  parseListQuery,
  sameTier,
  tierDocument,
  type CreateTierBody,
  type UpdateRuleBody,
  type UpdateTierBody,
} from './domain';
import { CONDITION_DEFINITIONS, conditionsProblems } from './eligibility';
import { tierError } from './errors';
import { getPaymentPeriods, getTierType } from './settings-client';
import { isLive, transition } from './status';
import { listingInput } from '../_platform/paging';
import {
  ELIGIBILITY_OPERATORS,
  TIER_GROUPS,
  TIER_PAYMENT_TYPES,
  type EligibilityRule,
  type EligibilityRuleInput,
  type Tier as TierRecord,
  type TierClassState,
  type TierEvent,
  type TierState,
  type TierStatus,
} from './types';

const PM = 'program_management_user';
const APPROVE = 'approve';

const GROUP_LABELS: Record<string, string> = { base: 'Base', upgrade: 'Upgrade', add_on: 'Add-on' };
const PAYMENT_TYPE_LABELS: Record<string, string> = { credit_card: 'Credit card', salary_deduction: 'Salary deduction' };

/** a Tier handler's context: the tier's state, and the method's body `I` */
type TierCtx<I = Record<string, never>> = Ctx<TierClassState, I>;

function st(ctx: TierCtx<unknown>): TierState {
  return ctx.state.private;
}

function now(): string {
  return new Date().toISOString();
}


/** The answer of every change: the tier as it is now, the approval, and (when waiting) what it becomes once approved. */
function answer(ctx: TierCtx<unknown>, wf: RunWorkflowResult<TierRecord>, extra: Record<string, unknown> = {}) {
  const s = st(ctx);
  return {
    tier: s.tier,
    pendingApproval: s.pendingApproval,
    approval: approvalSummary(wf.approvalRecord),
    ...(wf.isApproved ? {} : { requestedTier: wf.simulatedApprovedState }),
    ...extra,
  };
}

/** Changes are refused while an approval is pending and once the tier has expired. */
function guard(ctx: TierCtx<unknown>): void {
  const s = st(ctx);
  if (s.tier.status === 'expired') throw tierError('TIER_EXPIRED', `Tier ${s.tier.id} has expired; expired tiers cannot change`);
  if (s.pendingApproval) {
    throw tierError('TIER_APPROVAL_PENDING', `Tier ${s.tier.id} waits for approval ${s.pendingApproval.id} (${s.pendingApproval.event})`, {
      pendingApproval: s.pendingApproval,
    });
  }
}

/** The expiry task: one outstanding `expire` runs no later than endDate (README "Expiry"). */
function ensureExpiry(ctx: TierCtx<unknown>): void {
  const s = st(ctx);
  const t = s.tier;
  if (t.status === 'expired') return;
  if (s.expiryCheckAt && s.expiryCheckAt <= t.endDate) return;
  ctx.schedule({ method: 'expire', delaySeconds: delayUntil(t.endDate, Date.now()), body: {} });
  s.expiryCheckAt = t.endDate;
}

/** Applies a committed change: state, expiry task, audit log. */
async function applyChange(ctx: TierCtx<unknown>, before: TierRecord | null, after: TierRecord, additionalData: Record<string, unknown>): Promise<void> {
  const s = st(ctx);
  s.tier = after;
  s.pendingApproval = null;
  ensureExpiry(ctx);
  await logChange(ctx, { entityType: 'tier', entityId: after.id, before: before as unknown as Record<string, unknown> | null, after: after as unknown as Record<string, unknown>, additionalData });
}

/** Runs the workflow of a change; auto approvals apply now, manual ones wait for `approve`. */
async function requestChange(ctx: TierCtx<unknown>, event: TierEvent, requested: TierRecord, additionalData: Record<string, unknown> = {}) {
  const s = st(ctx);
  const old = s.tier;
  const wf = await runWorkflow(ctx, {
    event,
    entityId: old.id,
    oldEntity: old,
    newEntity: requested,
    approveCallback: APPROVE,
    rejectCallback: APPROVE,
    additionalData,
  });
  if (wf.isApproved) {
    await applyChange(ctx, old, wf.simulatedApprovedState, { event, approvalId: wf.approvalRecord.id, ...additionalData });
  } else {
    s.pendingApproval = { id: wf.approvalRecord.id, event, requestedStatus: (wf.newStatus ?? old.status) as TierStatus };
  }
  return wf;
}

/** Conditions against the definitions, payment periods against the Setting class. */
async function validateRules(ctx: TierCtx<unknown>, rules: Pick<EligibilityRule, 'conditions' | 'paymentPeriod'>[], fieldPrefix: (i: number) => string): Promise<void> {
  const problems = rules.flatMap((r, i) => conditionsProblems(r.conditions ?? [], `${fieldPrefix(i)}conditions`));
  if (problems.length) throw tierError('TIER_INVALID_CONDITION', `Invalid eligibility conditions: ${problems.map((p) => `${p.field} ${p.reason}`).join('; ')}`, { errors: problems });
  const needed = [...new Set(rules.map((r) => r.paymentPeriod).filter((p): p is string => typeof p === 'string'))];
  if (!needed.length) return;
  const periods = await getPaymentPeriods(ctx);
  const known = new Set(periods.map((p) => p.key));
  const unknown = needed.filter((k) => !known.has(k));
  if (unknown.length) {
    throw tierError('TIER_INVALID_PAYMENT_PERIOD', `Payment period(s) ${unknown.join(', ')} are not configured`, { unknown, allowed: [...known] });
  }
}

/** The overlap rule (README): 409 when another live tier of the same type intersects the range. */
async function checkOverlap(ctx: TierCtx<unknown>, range: { tierTypeId: string; startDate: string; endDate: string; excludeId?: string }): Promise<void> {
  const found = await ctx.documents.find<Record<string, unknown>>('tiers', overlapFilter(range), { limit: 10, sort: { startDate: 1 } });
  if (found.total > 0) {
    const tiers = found.items.map((d) => ({ id: d.id, name: d.name, status: d.status, startDate: d.startDate, endDate: d.endDate }));
    throw tierError('TIER_OVERLAP', `The date range overlaps ${found.total} other tier(s) of tier type ${range.tierTypeId}`, { tiers });
  }
}

function findRule(ctx: TierCtx<unknown>, ruleId: string): EligibilityRule {
  const rule = st(ctx).tier.eligibilityRules.find((r) => r.id === ruleId);
  if (!rule) throw tierError('TIER_RULE_NOT_FOUND', `Tier ${ctx.instanceId} has no eligibility rule ${ruleId}`);
  if (rule.status !== 'active') throw tierError('TIER_RULE_INACTIVE', `Eligibility rule ${ruleId} is inactive`);
  return rule;
}

function withRule(tier: TierRecord, rule: EligibilityRule, at: string): TierRecord {
  return { ...tier, eligibilityRules: tier.eligibilityRules.map((r) => (r.id === rule.id ? rule : r)), updatedAt: at };
}

@ActorClass<TierClassState>({
  id: 'Tier',
  description: 'Membership tiers with eligibility rules (spec 2.3)',
  // tiers are the programme's, not a company's: company users read them, never change them
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      tiers: {
        indexes: [{ keys: { status: 1 } }, { keys: { 'tierType.id': 1, startDate: 1 } }, { keys: { name: 1 } }, { keys: { startDate: -1 } }],
      },
    },
    toDocuments: (state, id) =>
      state.private.tier ? [{ collection: 'tiers', id, doc: tierDocument(state.private.tier, state.private.pendingApproval ?? null) }] : [],
  },
})
export class Tier {
  /**
   * Creates a tier in status `pending` (event tier_create; approval makes it
   * active). The tier type must exist and be active; its group is copied.
   * sourceTierId copies the source's active eligibility rules with new ids
   * (before the body's own eligibilityRules).
   */
  @Init({ access: [PM] })
  async createTier(ctx: TierCtx<CreateTierBody>) {
    const body = ctx.request.body;
    const id = ctx.instanceId!;
    const dates = checkDateRange(body.startDate, body.endDate);
    if (!dates.ok) throw tierError('TIER_INVALID_DATE_RANGE', 'startDate must be before endDate', { errors: dates.problems });
    const tierType = await getTierType(ctx, body.tierType.id);
    if (!tierType) throw tierError('TIER_TYPE_NOT_FOUND', `Tier type ${body.tierType.id} does not exist`, { tierTypeId: body.tierType.id });
    if (tierType.status !== 'active') {
      throw tierError('TIER_TYPE_INACTIVE', `Tier type ${body.tierType.id} is ${tierType.status}`, { tierTypeId: body.tierType.id, status: tierType.status });
    }

    let copied: EligibilityRule[] = [];
    if (body.sourceTierId) {
      let source: DeepReadonly<TierRecord>;
      try {
        source = (await client<typeof Tier>(ctx, 'Tier').getTier(body.sourceTierId)).tier;
      } catch (err) {
        if (isUnknownInstance(err)) {
          throw tierError('TIER_SOURCE_NOT_FOUND', `Source tier ${body.sourceTierId} does not exist`, { sourceTierId: body.sourceTierId });
        }
        throw err;
      }
      copied = copyActiveRules(source.eligibilityRules ?? [], randomUUID);
    }
    const given = (body.eligibilityRules ?? []).map((r: EligibilityRuleInput) => newRule(r, randomUUID()));
    const rules = [...copied, ...given];
    await validateRules(ctx, rules, (i) => (i < copied.length ? `sourceTier.eligibilityRules.${i}.` : `eligibilityRules.${i - copied.length}.`));
    await checkOverlap(ctx, { tierTypeId: body.tierType.id, startDate: dates.startDate, endDate: dates.endDate, excludeId: id });

    const actor = actorFromIdentity(ctx.identity);
    const at = now();
    const created = transition(null, { type: 'create' });
    const tier = buildTier({
      id,
      body,
      startDate: dates.startDate,
      endDate: dates.endDate,
      group: tierType.tierGroup,
      rules,
      createdBy: { id: actor.id, type: actor.type, ...(actor.name ? { name: actor.name } : {}) },
      now: at,
    });
    if (created.ok) tier.status = created.to;
    const additionalData = body.sourceTierId ? { sourceTierId: body.sourceTierId, copiedRules: copied.length } : {};
    const wf = await runWorkflow(ctx, {
      event: 'tier_create',
      entityId: id,
      oldEntity: null,
      newEntity: tier,
      approveCallback: APPROVE,
      rejectCallback: APPROVE,
      additionalData,
    });
    const s = st(ctx);
    s.expiryCheckAt = null;
    s.pendingApproval = null;
    if (wf.isApproved) {
      await applyChange(ctx, null, wf.simulatedApprovedState, { event: 'tier_create', approvalId: wf.approvalRecord.id, ...additionalData });
    } else {
      await applyChange(ctx, null, tier, { event: 'tier_create', approvalId: wf.approvalRecord.id, approvalStatus: 'pending', ...additionalData });
      s.pendingApproval = { id: wf.approvalRecord.id, event: 'tier_create', requestedStatus: (wf.newStatus ?? 'active') as TierStatus };
    }
    ctx.response.status = 201;
    return answer(ctx, wf);
  }

  /** Name, description (null removes it), fee, startDate, endDate (event tier_update). The tier type cannot change. */
  @Write({ access: [PM] })
  async updateTier(ctx: TierCtx<UpdateTierBody>) {
    guard(ctx);
    const body = ctx.request.body;
    const tier = st(ctx).tier;
    const dates = checkDateRange(body.startDate ?? tier.startDate, body.endDate ?? tier.endDate);
    if (!dates.ok) throw tierError('TIER_INVALID_DATE_RANGE', 'startDate must be before endDate', { errors: dates.problems });
    const requested = applyTierUpdate(tier, body, dates, now());
    if (sameTier(requested, tier)) throw tierError('TIER_NO_CHANGES', `The update changes nothing on tier ${tier.id}`);
    if (isLive(tier.status) && (requested.startDate !== tier.startDate || requested.endDate !== tier.endDate)) {
      await checkOverlap(ctx, { tierTypeId: tier.tierType.id, startDate: requested.startDate, endDate: requested.endDate, excludeId: tier.id });
    }
    const wf = await requestChange(ctx, 'tier_update', requested);
    return answer(ctx, wf);
  }

  /** active, inactive or pending (event tier_status_update); expired is set by the expiry task only. */
  @Write({ access: [PM] })
  async updateStatus(ctx: TierCtx<{ status: string }>) {
    const { status } = ctx.request.body;
    const tier = st(ctx).tier;
    const move = transition(tier.status, { type: 'update_status', to: status });
    if (!move.ok) throw tierError(move.error, move.message, { from: tier.status, to: status });
    guard(ctx);
    if (isLive(move.to) && !isLive(tier.status)) {
      await checkOverlap(ctx, { tierTypeId: tier.tierType.id, startDate: tier.startDate, endDate: tier.endDate, excludeId: tier.id });
    }
    const requested: TierRecord = { ...tier, status: move.to, updatedAt: now() };
    const wf = await requestChange(ctx, 'tier_status_update', requested, { fromStatus: tier.status, toStatus: move.to });
    return answer(ctx, wf);
  }

  /** Adds a rule (new id, status active unless given) (event eligibility_rule_add). */
  @Write({ access: [PM] })
  async addEligibilityRule(ctx: TierCtx<EligibilityRuleInput>) {
    guard(ctx);
    const rule = newRule(ctx.request.body, randomUUID());
    await validateRules(ctx, [rule], () => '');
    const tier = st(ctx).tier;
    const requested: TierRecord = { ...tier, eligibilityRules: [...tier.eligibilityRules, rule], updatedAt: now() };
    const wf = await requestChange(ctx, 'eligibility_rule_add', requested, { ruleId: rule.id });
    return answer(ctx, wf, { rule });
  }

  /** Changes an active rule: name, paymentTypes, paymentPeriod, quota (null removes it), conditions (event eligibility_rule_update). */
  @Write({ access: [PM] })
  async updateEligibilityRule(ctx: TierCtx<UpdateRuleBody>) {
    guard(ctx);
    const body = ctx.request.body;
    const rule = findRule(ctx, body.ruleId);
    const next = applyRuleUpdate(rule, body);
    if (JSON.stringify(next) === JSON.stringify(rule)) throw tierError('TIER_NO_CHANGES', `The update changes nothing on eligibility rule ${rule.id}`);
    await validateRules(
      ctx,
      [{ conditions: body.conditions ?? [], paymentPeriod: body.paymentPeriod as string }],
      () => '',
    );
    const requested = withRule(st(ctx).tier, next, now());
    const wf = await requestChange(ctx, 'eligibility_rule_update', requested, { ruleId: rule.id });
    return answer(ctx, wf, { rule: next });
  }

  /** Sets an active rule inactive (event eligibility_rule_deactivate); inactive rules are kept, never evaluated. */
  @Write({ access: [PM] })
  async deactivateEligibilityRule(ctx: TierCtx<{ ruleId: string }>) {
    guard(ctx);
    const { ruleId } = ctx.request.body;
    const rule = findRule(ctx, ruleId);
    const next: EligibilityRule = { ...rule, status: 'inactive' };
    const requested = withRule(st(ctx).tier, next, now());
    const wf = await requestChange(ctx, 'eligibility_rule_deactivate', requested, { ruleId });
    return answer(ctx, wf, { rule: next });
  }

  /** The tier (spec 2.3) and the approval it waits for. Also for the Tier class itself (sourceTierId) and Member (memberships). */
  @Read({ access: [PM, 'class:Tier', 'class:Member'], schema: false })
  getTier(ctx: ReadCtx<TierClassState, Record<string, never>>) {
    const s = ctx.state.private;
    return { tier: s.tier, pendingApproval: s.pendingApproval ?? null };
  }

  /**
   * From the streamed `tiers` collection. Filters: status, tierTypeId,
   * tierGroup, search (name, case-insensitive), page (from 1), limit (1-100,
   * default 20); POST body or GET query. Newest startDate first.
   */
  @Static({ access: [PM] })
  async listTiers(ctx: Ctx) {
    const raw = listingInput(ctx);
    const parsed = parseListQuery(raw);
    if (!parsed.ok) {
      throw tierError('TIER_INVALID_QUERY', `Invalid listing: ${parsed.errors.map((e) => `${e.field} ${e.reason}`).join('; ')}`, { errors: parsed.errors });
    }
    const q = parsed.query;
    const found = await ctx.documents.find<Record<string, unknown>>('tiers', buildListFilter(q), {
      sort: { startDate: -1, _id: 1 },
      skip: (q.page - 1) * q.limit,
      limit: q.limit,
    });
    const items = found.items.map(({ _id, _v, _instance, _class, ...doc }) => doc);
    return { items, totalCount: found.total, page: q.page, limit: q.limit, totalPages: Math.ceil(found.total / q.limit) };
  }

  @Static({ access: [PM, 'class'], schema: false })
  getTierGroups() {
    return { tierGroups: TIER_GROUPS.map((key) => ({ key, label: GROUP_LABELS[key] })) };
  }

  @Static({ access: [PM, 'class'], schema: false })
  getPaymentTypes() {
    return { paymentTypes: TIER_PAYMENT_TYPES.map((key) => ({ key, label: PAYMENT_TYPE_LABELS[key] })) };
  }

  /** The condition keys eligibility rules may use, their value types and operators. */
  @Static({ access: [PM, 'class'], schema: false })
  getEligibilityRuleDefinitions() {
    return { operators: [...ELIGIBILITY_OPERATORS], conditions: CONDITION_DEFINITIONS };
  }

  /** Projects the tier to the document database again. */
  @Write({ access: [PM], schema: false })
  streamTier(ctx: TierCtx) {
    const s = st(ctx);
    s.streamedAt = now();
    return { tier: s.tier, pendingApproval: s.pendingApproval ?? null, streamedAt: s.streamedAt };
  }

  /**
   * Approval callback (approve and reject) of every tier event. Approve applies
   * the patch; reject keeps the tier, except a rejected creation, which leaves
   * the tier `inactive`. On an expired tier the outcome is recorded and ignored.
   */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  async approve(ctx: TierCtx<ApprovalCallbackBody>) {
    const body = ctx.request.body;
    const s = st(ctx);
    const pending = s.pendingApproval;
    if (!pending || pending.id !== body.approvalId) {
      throw tierError('TIER_APPROVAL_MISMATCH', `Approval ${body.approvalId} is not the one tier ${ctx.instanceId} waits for`, {
        pendingApprovalId: pending?.id ?? null,
      });
    }
    const before = s.tier;
    const info = { event: pending.event, approvalId: body.approvalId, action: body.action, reviewedBy: body.reviewedBy?.id ?? null };
    let outcome: NonNullable<TierState['lastReview']>['outcome'];
    if (before.status === 'expired') {
      s.pendingApproval = null;
      outcome = 'ignored_expired';
    } else if (body.action === 'approve') {
      let after: TierRecord;
      try {
        after = applyApprovalCallback(before, body);
      } catch (err) {
        if (err instanceof PatchConflictError) throw tierError('TIER_APPROVAL_CONFLICT', err.message, { problems: err.problems });
        throw err;
      }
      await applyChange(ctx, before, after, info);
      outcome = 'applied';
    } else {
      s.pendingApproval = null;
      const move = pending.event === 'tier_create' ? transition(before.status, { type: 'reject_create' }) : null;
      if (move?.ok) await applyChange(ctx, before, { ...before, status: move.to, updatedAt: now() }, info);
      outcome = 'rejected';
    }
    s.lastReview = { approvalId: body.approvalId, event: pending.event, action: body.action, outcome, by: body.reviewedBy?.id, at: now() };
    return { tier: s.tier, lastReview: s.lastReview };
  }

  /** Scheduled at endDate: expires the tier once endDate has passed, else waits for the (moved) endDate. */
  @Internal({ access: ['class:Tier'], schema: false })
  async expire(ctx: TierCtx) {
    const s = st(ctx);
    s.expiryCheckAt = null;
    const before = s.tier;
    if (before.status === 'expired') return { status: before.status, expired: false };
    const move = transition(before.status, { type: 'expire', endDatePassed: Date.parse(before.endDate) <= Date.now() });
    if (!move.ok || move.to !== 'expired') {
      ensureExpiry(ctx);
      return { status: before.status, expired: false, nextCheckAt: s.expiryCheckAt };
    }
    const after: TierRecord = { ...before, status: 'expired', updatedAt: now() };
    s.tier = after;
    await logChange(ctx, { entityType: 'tier', entityId: after.id, before: before as unknown as Record<string, unknown>, after: after as unknown as Record<string, unknown>, additionalData: { event: 'tier_expire', endDate: after.endDate } });
    return { status: after.status, expired: true };
  }
}
