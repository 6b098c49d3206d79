/**
 * Tier (spec 2.3, 3.3, 4.5, 6): one actor instance per tier (instance id =
 * tier id); private state holds `tier` (see types.ts TierState). Every change
 * is an approval-gated change (classes/_platform/gated-change.ts, rules in
 * workflow-configs/Tier.json), is audit-logged and streamed to the `tiers`
 * collection, which listTiers reads. Every write publishes what the tier
 * holds for the overlap rule on its type's TierSchedule (withSchedule).
 *
 * This file declares the methods (access, kind, schema) and delegates: each
 * body lives in use-cases/<use case>.ts, its rules in the pure modules of this
 * folder (status.ts, domain.ts, eligibility.ts). README.md has the decisions.
 */
import type {
  AddEligibilityRuleInput,
  CreateTierInput,
  DeactivateEligibilityRuleInput,
  ListTiersInput,
  UpdateEligibilityRuleInput,
  UpdateStatusInput,
  UpdateTierInput,
} from '../../schemas/Tier/inputs';
import {
  ActorClass,
  Init,
  Internal,
  QueuedWrite,
  Read,
  Static,
  Write,
  type ReadCtx,
  type StaticCtx,
} from '../../runtime';
import type { ApprovalCallbackBody } from '../_platform/workflow';
import { SHARED_DATA } from '../_platform/scope';
import { problemsText } from '../_platform/paging';
import { tierError } from './errors';
import { tierDocument } from './rules';
import type { TierClassState } from './types';
import type { TierCtx } from './use-cases/common';
import * as create from './use-cases/create';
import * as update from './use-cases/update';
import * as status from './use-cases/status';
import * as rules from './use-cases/eligibility-rules';
import * as reading from './use-cases/read';
import * as listing from './use-cases/listing';
import * as approval from './use-cases/approval';
import * as expiry from './use-cases/expiry';
import * as quota from './use-cases/quota';
import { scheduleEntry, withSchedule } from './use-cases/schedule';

/** the types other classes see of this one (they import this file's types only) */
export type { TierErrorName } from './errors';
export type { Tier as TierRecord } from './types';

const PM = 'program_management_user';

@ActorClass<TierClassState>({
  id: 'Tier',
  description: 'Membership tiers with eligibility rules (spec 2.3)',
  // tiers are the programme's, not a company's: company users read them, never change them
  tenancy: SHARED_DATA,
  stream: {
    collections: {
      tiers: {
        // name: the listing's case-insensitive search scans these keys instead of the documents
        indexes: [{ keys: { name: 1 } }],
        listings: [
          // listTiers (use-cases/listing.ts), newest start first: all, or by status, tier type or group
          {
            name: 'listTiers',
            sort: { startDate: -1, _id: 1 },
            filterSets: [[], ['status'], ['tierType.id'], ['tierType.group']],
          },
          // the overlap check (use-cases/common.ts): a tier type's tiers by start, bounded by the range
          { name: 'checkOverlap', sort: { startDate: 1 }, filterSets: [['tierType.id']] },
        ],
      },
    },
    toDocuments: (state, id) =>
      state.private.tier
        ? [{ collection: 'tiers', id, doc: tierDocument(state.private.tier, state.private.pendingApproval ?? null) }]
        : [],
  },
})
export class Tier {
  /**
   * Creates a tier in status `pending` (event tier_create; approval makes it
   * active); sourceTierId copies the source's active eligibility rules.
   */
  @Init({ access: [PM] })
  async createTier(ctx: TierCtx<CreateTierInput>) {
    return withSchedule(ctx, () => create.createTier(ctx));
  }

  /** Name, description (null removes it), fee, startDate, endDate (event tier_update). The tier type cannot change. */
  @Write({ access: [PM] })
  async updateTier(ctx: TierCtx<UpdateTierInput>) {
    return withSchedule(ctx, () => update.updateTier(ctx));
  }

  /** active, inactive or pending (event tier_status_update); expired is set by the expiry task only. */
  @Write({ access: [PM] })
  async updateStatus(ctx: TierCtx<UpdateStatusInput>) {
    return withSchedule(ctx, () => status.updateStatus(ctx));
  }

  /** Adds a rule (new id, status active unless given) (event eligibility_rule_add). */
  @Write({ access: [PM] })
  async addEligibilityRule(ctx: TierCtx<AddEligibilityRuleInput>) {
    return withSchedule(ctx, () => rules.addEligibilityRule(ctx));
  }

  /** Changes an active rule (event eligibility_rule_update). */
  @Write({ access: [PM] })
  async updateEligibilityRule(ctx: TierCtx<UpdateEligibilityRuleInput>) {
    return withSchedule(ctx, () => rules.updateEligibilityRule(ctx));
  }

  /** Sets an active rule inactive (event eligibility_rule_deactivate); inactive rules are kept, never evaluated. */
  @Write({ access: [PM] })
  async deactivateEligibilityRule(ctx: TierCtx<DeactivateEligibilityRuleInput>) {
    return withSchedule(ctx, () => rules.deactivateEligibilityRule(ctx));
  }

  /** The tier (spec 2.3) and the approval it waits for. Also for the Tier class itself (sourceTierId) and Member (memberships). */
  @Read({ access: [PM, 'class:Tier', 'class:Member'], schema: false, answer: 'getTier.answer' })
  getTier(ctx: ReadCtx<TierClassState, Record<string, never>>) {
    return reading.getTier(ctx);
  }

  /** What the tier holds for the overlap rule, for its type's TierSchedule (which asks before it drops a stale claim). */
  @Read({ access: ['class:TierSchedule'], schema: false })
  scheduleEntry(ctx: ReadCtx<TierClassState, Record<string, never>>) {
    return scheduleEntry(ctx);
  }

  /**
   * From the streamed `tiers` collection; POST body or GET query, both checked
   * by its schema and refused with the class's 7013. Newest startDate first.
   */
  @Static({
    access: [PM, 'class:Member'],
    answer: 'listTiers.answer',
    onValidationError: (errors) =>
      tierError('TIER_INVALID_QUERY', `Invalid listing: ${problemsText(errors)}`, { errors }),
  })
  async listTiers(ctx: StaticCtx<ListTiersInput>) {
    return listing.listTiers(ctx);
  }

  @Static({ access: [PM, 'class'], schema: false })
  getTierGroups() {
    return listing.getTierGroups();
  }

  @Static({ access: [PM, 'class'], schema: false })
  getPaymentTypes() {
    return listing.getPaymentTypes();
  }

  /** The condition keys eligibility rules may use, their value types and operators. */
  @Static({ access: [PM, 'class'], schema: false })
  getEligibilityRuleDefinitions() {
    return listing.getEligibilityRuleDefinitions();
  }

  /** Projects the tier to the document database again. */
  @Write({ access: [PM], schema: false })
  streamTier(ctx: TierCtx) {
    return withSchedule(ctx, () => reading.streamTier(ctx));
  }

  /** Approval callback (approve and reject) of every tier event. */
  @QueuedWrite({ access: ['class:ApprovalManager'] })
  async approve(ctx: TierCtx<ApprovalCallbackBody>) {
    return withSchedule(ctx, () => approval.approve(ctx));
  }

  /** A place under an eligibility rule's quota for a membership Member grants (409 7018 when none is left; README "Quotas"). */
  @Internal({ access: ['class:Member'], schema: false })
  claimQuotaPlace(ctx: TierCtx<quota.QuotaPlaceBody>) {
    return quota.claimQuotaPlace(ctx);
  }

  /** Scheduled by claimQuotaPlace: gives the place back when the member does not hold the membership. */
  @Internal({ access: ['class:Tier'], schema: false })
  async confirmQuotaPlace(ctx: TierCtx<quota.QuotaPlaceBody>) {
    return quota.confirmQuotaPlace(ctx);
  }

  /** Scheduled at endDate: expires the tier once endDate has passed, else waits for the (moved) endDate. */
  @Internal({ access: ['class:Tier'], schema: false })
  async expire(ctx: TierCtx) {
    return withSchedule(ctx, () => expiry.expire(ctx));
  }
}
