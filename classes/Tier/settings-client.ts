/**
 * What Tier asks the Setting class (spec 2.4 tier types and tier config), in
 * one place so the contract is easy to follow:
 *
 *   ctx.call('Setting', 'getTierType', 'default', { id })      → {id, name, tierGroup, status, ...} | 404
 *   ctx.call('Setting', 'getPaymentPeriods', 'default', {})    → {paymentPeriods: [{key, label}]}
 *
 * A 404 answer, and a Setting singleton that does not exist yet (the runtime's
 * unknown-instance answer), mean "no such tier type" / "no payment periods";
 * so does a tier type id that Setting cannot hold (SETTING_ID_PATTERN), which
 * is not sent at all. Any other failure is TIER_SETTINGS_UNAVAILABLE (502)
 * with the inner error.
 */
import { ActorError, type Ctx } from '../../runtime';
import { isAbsentRecord } from '../_platform/calls';
import { tierError } from './errors';
import { TIER_GROUPS, type TierGroup } from './types';

export const SETTING_CLASS = 'Setting';
export const SETTING_INSTANCE = 'default';

export interface TierTypeRecord {
  id: string;
  name?: string;
  tierGroup: TierGroup;
  status: 'active' | 'inactive' | string;
  [field: string]: unknown;
}

export interface PaymentPeriod {
  key: string;
  label: string;
}

/**
 * The form of Setting's record ids (schemas/Setting/createTierType.json and
 * byId.json, which getTierType checks). Tier's createTier admits any
 * tierType.id of 1-200 characters; one outside this form names no tier type,
 * and asking Setting would only get its 400 (input), not a 404.
 */
export const SETTING_ID_PATTERN = /^[A-Za-z0-9_.@+=-]{1,100}$/;


function unavailable(what: string, err: unknown): ActorError {
  const inner = err instanceof ActorError ? { status: err.status, code: err.code, message: err.message } : { message: (err as Error)?.message ?? String(err) };
  return tierError('TIER_SETTINGS_UNAVAILABLE', `Could not read ${what} from the Setting class`, { error: inner });
}

/** The tier type, or null when there is none with this id. */
export async function getTierType(ctx: Ctx, id: string): Promise<TierTypeRecord | null> {
  if (!SETTING_ID_PATTERN.test(id)) return null;
  let body: unknown;
  try {
    body = (await ctx.call(SETTING_CLASS, 'getTierType', SETTING_INSTANCE, { id })).body;
  } catch (err) {
    if (isAbsentRecord(err)) return null;
    throw unavailable(`tier type ${id}`, err);
  }
  const record = ((body as { tierType?: unknown })?.tierType ?? body) as Partial<TierTypeRecord> | null;
  if (!record || typeof record !== 'object') return null;
  if (!(TIER_GROUPS as readonly unknown[]).includes(record.tierGroup)) {
    throw unavailable(`tier type ${id}`, new Error(`tier type ${id} has no valid tierGroup (${String(record.tierGroup)})`));
  }
  return { ...record, id: record.id ?? id } as TierTypeRecord;
}

/** The configured payment periods (empty when none are configured). */
export async function getPaymentPeriods(ctx: Ctx): Promise<PaymentPeriod[]> {
  let body: unknown;
  try {
    body = (await ctx.call(SETTING_CLASS, 'getPaymentPeriods', SETTING_INSTANCE, {})).body;
  } catch (err) {
    if (isAbsentRecord(err)) return [];
    throw unavailable('the payment periods', err);
  }
  const list = (body as { paymentPeriods?: unknown })?.paymentPeriods;
  return Array.isArray(list) ? list.filter((p): p is PaymentPeriod => !!p && typeof p.key === 'string') : [];
}
