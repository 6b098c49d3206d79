/**
 * What Tier asks the Setting class (spec 2.4 tier types and tier config),
 * through the client typed from Setting's own methods:
 *
 *   settings.getTierType('default', { id })    → the tier type | 404
 *   settings.getPaymentPeriods('default', {})  → {paymentPeriods: [{key, label}]}
 *
 * A 404 answer, and a Setting singleton that does not exist yet (the runtime's
 * unknown-instance answer), mean "no such tier type" / "no payment periods";
 * so does a tier type id that Setting cannot hold (SETTING_ID_PATTERN), which
 * is not sent at all. Any other failure is TIER_SETTINGS_UNAVAILABLE (502)
 * with the inner error.
 */
import { ActorError, client, type BaseCtx, type DeepReadonly } from '../../runtime';
import { isAbsentRecord } from '../_platform/calls';
import type { Setting, ValueView } from '../Setting/Setting.class';
import type { PaymentPeriod as SettingPaymentPeriod } from '../Setting/Setting.class';
import { tierError } from './errors';
import { TIER_GROUPS } from './types';

export const SETTING_CLASS = 'Setting';
export const SETTING_INSTANCE = 'default';

/** a tier type as Setting answers it */
export type TierTypeRecord = DeepReadonly<ValueView<'tierTypes'>>;
export type PaymentPeriod = SettingPaymentPeriod;

/**
 * The form of Setting's record ids (schemas/Setting/createTierType.json and
 * byId.json, which getTierType checks). Tier's createTier admits any
 * tierType.id of 1-200 characters; one outside this form names no tier type,
 * and asking Setting would only get its 400 (input), not a 404.
 */
export const SETTING_ID_PATTERN = /^[A-Za-z0-9_.@+=-]{1,100}$/;

function settings(ctx: Pick<BaseCtx, 'call'>) {
  return client<typeof Setting>(ctx, SETTING_CLASS);
}

function unavailable(what: string, err: unknown): ActorError {
  const inner =
    err instanceof ActorError
      ? { status: err.status, code: err.code, message: err.message }
      : { message: (err as Error)?.message ?? String(err) };
  return tierError('TIER_SETTINGS_UNAVAILABLE', `Could not read ${what} from the Setting class`, { error: inner });
}

/** The tier type, or null when there is none with this id. */
export async function getTierType(ctx: Pick<BaseCtx, 'call'>, id: string): Promise<TierTypeRecord | null> {
  if (!SETTING_ID_PATTERN.test(id)) return null;
  let record: TierTypeRecord | null;
  try {
    record = await settings(ctx).getTierType(SETTING_INSTANCE, { id });
  } catch (err) {
    if (isAbsentRecord(err)) return null;
    throw unavailable(`tier type ${id}`, err);
  }
  if (!record || typeof record !== 'object') return null;
  if (!(TIER_GROUPS as readonly unknown[]).includes(record.tierGroup)) {
    throw unavailable(
      `tier type ${id}`,
      new Error(`tier type ${id} has no valid tierGroup (${String(record.tierGroup)})`),
    );
  }
  return record;
}

/** The configured payment periods (empty when none are configured). */
export async function getPaymentPeriods(ctx: Pick<BaseCtx, 'call'>): Promise<readonly DeepReadonly<PaymentPeriod>[]> {
  let list: readonly DeepReadonly<PaymentPeriod>[] | undefined;
  try {
    list = (await settings(ctx).getPaymentPeriods(SETTING_INSTANCE, {})).paymentPeriods;
  } catch (err) {
    if (isAbsentRecord(err)) return [];
    throw unavailable('the payment periods', err);
  }
  return Array.isArray(list)
    ? (list as readonly DeepReadonly<PaymentPeriod>[]).filter((p) => !!p && typeof p.key === 'string')
    : [];
}
