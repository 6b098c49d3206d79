/**
 * Eligibility rules of a tier: add (eligibility_rule_add), update
 * (eligibility_rule_update), deactivate (eligibility_rule_deactivate). Each
 * is an approval-gated change of the tier; inactive rules are kept, never
 * evaluated, and never change again.
 */
import { randomUUID } from 'node:crypto';
import { applyRuleUpdate, newRule } from '../rules';
import type { AddEligibilityRuleInput, UpdateEligibilityRuleInput } from '../../../schemas/Tier/inputs';
import { tierError } from '../errors';
import type { EligibilityRule, Tier as TierRecord } from '../types';
import { answer, guard, now, requestChange, st, validateRules, type TierCtx } from './common';

/** The active rule `ruleId` (404 7009 when there is none, 409 7010 when it is inactive). */
function findRule(ctx: TierCtx<unknown>, ruleId: string): EligibilityRule {
  const rule = st(ctx).tier.eligibilityRules.find((r) => r.id === ruleId);
  if (!rule) throw tierError('TIER_RULE_NOT_FOUND', `Tier ${ctx.instanceId} has no eligibility rule ${ruleId}`);
  if (rule.status !== 'active') throw tierError('TIER_RULE_INACTIVE', `Eligibility rule ${ruleId} is inactive`);
  return rule;
}

function withRule(tier: TierRecord, rule: EligibilityRule, at: string): TierRecord {
  return { ...tier, eligibilityRules: tier.eligibilityRules.map((r) => (r.id === rule.id ? rule : r)), updatedAt: at };
}

/** Adds a rule (new id, status active unless given). */
export async function addEligibilityRule(ctx: TierCtx<AddEligibilityRuleInput>) {
  guard(ctx);
  const rule = newRule(ctx.request.body, randomUUID());
  await validateRules(ctx, [rule], () => '');
  const tier = st(ctx).tier;
  const requested: TierRecord = { ...tier, eligibilityRules: [...tier.eligibilityRules, rule], updatedAt: now() };
  return answer(ctx, await requestChange(ctx, 'eligibility_rule_add', requested, { ruleId: rule.id }), { rule });
}

/** Changes an active rule: name, paymentTypes, paymentPeriod, quota (null removes it), conditions. */
export async function updateEligibilityRule(ctx: TierCtx<UpdateEligibilityRuleInput>) {
  guard(ctx);
  const body = ctx.request.body;
  const rule = findRule(ctx, body.ruleId);
  const next = applyRuleUpdate(rule, body);
  if (JSON.stringify(next) === JSON.stringify(rule))
    throw tierError('TIER_NO_CHANGES', `The update changes nothing on eligibility rule ${rule.id}`);
  await validateRules(ctx, [{ conditions: body.conditions ?? [], paymentPeriod: body.paymentPeriod }], () => '');
  const requested = withRule(st(ctx).tier, next, now());
  return answer(ctx, await requestChange(ctx, 'eligibility_rule_update', requested, { ruleId: rule.id }), {
    rule: next,
  });
}

/** Sets an active rule inactive. */
export async function deactivateEligibilityRule(ctx: TierCtx<{ ruleId: string }>) {
  guard(ctx);
  const { ruleId } = ctx.request.body;
  const rule = findRule(ctx, ruleId);
  const next: EligibilityRule = { ...rule, status: 'inactive' };
  const requested = withRule(st(ctx).tier, next, now());
  return answer(ctx, await requestChange(ctx, 'eligibility_rule_deactivate', requested, { ruleId }), { rule: next });
}
