/**
 * What Company asks the Setting class, through the client typed from
 * Setting's own methods:
 *
 *   settings.getProgramManagementConfig('default', {})  → the active settings of every group
 *
 * A Setting singleton that does not exist yet (the runtime's unknown-instance
 * answer) has no active settings: every reference is then refused. Any other
 * failure is thrown as it is.
 */
import { client, isUnknownInstance, type BaseCtx, type DeepReadonly } from '../../runtime';
import type { Setting } from '../Setting/Setting.class';
import type { ProgramManagementConfig } from '../Setting/Setting.class';
import { EMPTY_CONFIG } from './rules';

export const SETTING_CLASS = 'Setting';
export const SETTING_INSTANCE = 'default';

/** The active settings the references must name (none while Setting has no instance yet). */
export async function activeSettings(ctx: Pick<BaseCtx, 'call'>): Promise<DeepReadonly<ProgramManagementConfig>> {
  try {
    return await client<typeof Setting>(ctx, SETTING_CLASS).getProgramManagementConfig(SETTING_INSTANCE, {});
  } catch (err) {
    if (isUnknownInstance(err)) return EMPTY_CONFIG;
    throw err;
  }
}
