/** createTier (event tier_create): a new tier in status `pending`; approval makes it active. */
import { randomUUID } from 'node:crypto';
import { client, isUnknownInstance, type DeepReadonly } from '../../../runtime';
import { actorFromIdentity } from '../../_platform/actor';
import { buildTier, checkDateRange, copyActiveRules, newRule } from '../rules';
import type { AddEligibilityRuleInput, CreateTierInput } from '../../../schemas/Tier/inputs';
import { tierError } from '../errors';
import { getTierType } from '../settings-client';
import { transition } from '../status';
import type { EligibilityRule, Tier as TierRecord } from '../types';
import { answer, now, requestCreation, validateRules, type TierCtx } from './common';
import type { TierReader } from './read';

/** The active rules of the source tier, with new ids (404 7004 when there is no such tier). */
async function sourceRules(ctx: TierCtx<CreateTierInput>, sourceTierId: string): Promise<EligibilityRule[]> {
  let source: DeepReadonly<TierRecord>;
  try {
    source = (await client<TierReader>(ctx, 'Tier').getTier(sourceTierId)).tier;
  } catch (err) {
    if (isUnknownInstance(err))
      throw tierError('TIER_SOURCE_NOT_FOUND', `Source tier ${sourceTierId} does not exist`, { sourceTierId });
    throw err;
  }
  return copyActiveRules(source.eligibilityRules ?? [], randomUUID);
}

/**
 * The tier type must exist and be active; its group is copied. sourceTierId
 * copies the source's active eligibility rules with new ids (before the
 * body's own eligibilityRules). Answers 201. The overlap rule is checked
 * when the tier publishes its range (Tier.class.ts, use-cases/schedule.ts).
 */
export async function createTier(ctx: TierCtx<CreateTierInput>) {
  const body = ctx.request.body;
  const id = ctx.instanceId!;
  const dates = checkDateRange(body.startDate, body.endDate);
  if (!dates.ok)
    throw tierError('TIER_INVALID_DATE_RANGE', 'startDate must be before endDate', { errors: dates.problems });
  const tierType = await getTierType(ctx, body.tierType.id);
  if (!tierType)
    throw tierError('TIER_TYPE_NOT_FOUND', `Tier type ${body.tierType.id} does not exist`, {
      tierTypeId: body.tierType.id,
    });
  if (tierType.status !== 'active') {
    throw tierError('TIER_TYPE_INACTIVE', `Tier type ${body.tierType.id} is ${tierType.status}`, {
      tierTypeId: body.tierType.id,
      status: tierType.status,
    });
  }

  const copied = body.sourceTierId ? await sourceRules(ctx, body.sourceTierId) : [];
  const given = (body.eligibilityRules ?? []).map((r: AddEligibilityRuleInput) => newRule(r, randomUUID()));
  const rules = [...copied, ...given];
  await validateRules(ctx, rules, (i) =>
    i < copied.length ? `sourceTier.eligibilityRules.${i}.` : `eligibilityRules.${i - copied.length}.`,
  );

  const actor = actorFromIdentity(ctx.identity);
  const created = transition(null, { type: 'create' });
  const tier = buildTier({
    id,
    body,
    startDate: dates.startDate,
    endDate: dates.endDate,
    group: tierType.tierGroup,
    rules,
    createdBy: { id: actor.id, type: actor.type, ...(actor.name ? { name: actor.name } : {}) },
    now: now(),
  });
  if (created.ok) tier.status = created.to;
  const additionalData = body.sourceTierId ? { sourceTierId: body.sourceTierId, copiedRules: copied.length } : {};
  const change = await requestCreation(ctx, tier, additionalData);
  ctx.response.status = 201;
  return answer(ctx, change);
}
