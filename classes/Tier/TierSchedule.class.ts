/**
 * TierSchedule: the overlap rule's truth (Tier README "Overlap rule"), one
 * instance per tier type (instance id = the tier type id), holding the date
 * ranges each tier of that type holds. Only the Tier class calls it: `claim`
 * before a tier commits a change that holds more (exclusive per tier type
 * across processes, so two such changes never both pass), `settle` as the
 * committed effect of every change of what a tier holds. Nothing is streamed:
 * the rule never reads a listing. Rules in schedule.ts, handlers in
 * use-cases/schedule.ts.
 */
import { ActorClass, Internal } from '../../runtime';
import { SHARED_DATA } from '../_platform/scope';
import * as schedule from './use-cases/schedule';
import type { ScheduleBody, TierScheduleClassState } from './use-cases/schedule';
import type { Ctx } from '../../runtime';

@ActorClass<TierScheduleClassState>({
  id: 'TierSchedule',
  description: 'The date ranges the tiers of one tier type hold (the overlap rule of Tier)',
  // programme data, as the tiers it serves
  tenancy: SHARED_DATA,
})
export class TierSchedule {
  /** Claims the ranges a tier is about to hold: 409 7003 when another tier of the type holds part of them. */
  // the body is built by the Tier class (use-cases/schedule.ts), never by a client
  @Internal({ access: ['class:Tier'], upsert: true, schema: false })
  async claim(ctx: Ctx<TierScheduleClassState, ScheduleBody>) {
    return schedule.claim(ctx);
  }

  /** The committed effect of a tier's change: the tier now holds exactly the entry given. */
  @Internal({ access: ['class:Tier'], upsert: true, schema: false })
  settle(ctx: Ctx<TierScheduleClassState, ScheduleBody>) {
    return schedule.settle(ctx);
  }
}
