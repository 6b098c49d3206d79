/**
 * Quarantine of mass deactivations from the HR system (pure rules): a broken
 * HR export that sends `terminated` for everyone must not deactivate a whole
 * company one 200 at a time. Within a sliding window, a company takes at most
 * `limit` deactivations from HR (employees whose status becomes inactive,
 * In-Active dependants); past it, a deactivating push is held on the member
 * (nothing of it applied), answered 202 with code 10076, and waits for a
 * back-office approver to release (apply) or discard it. Everything that does
 * not deactivate keeps flowing.
 *
 * The limit is the smaller of HR_QUARANTINE_COUNT and HR_QUARANTINE_PERCENT
 * of the company's active members, never below HR_QUARANTINE_FLOOR (a small
 * company may still lose a few people in one hour without an approval).
 */
import { intSetting } from '../_platform/settings';
import { isEmail } from '../_platform/email';
import type { MemberStatus } from './types';

export interface QuarantineSettings {
  /** false: every deactivation is applied at once */
  enabled: boolean;
  /** deactivations per company and window, at most (0: no count limit) */
  count: number;
  /** of the company's active members, per window, at most (0: no percentage limit) */
  percent: number;
  /** the limit is never below this */
  floor: number;
  windowSeconds: number;
  /** email addresses told when a company's first deactivation of a window is held */
  notifyTo: string[];
}

export const QUARANTINE_DEFAULTS = { count: 50, percent: 10, floor: 5, windowMinutes: 60 } as const;

/** The quarantine's settings (README "HR quarantine"); a wrong value stops the start with its name. */
export function quarantineSettings(env: NodeJS.ProcessEnv): QuarantineSettings {
  const count = intSetting(env, 'HR_QUARANTINE_COUNT', QUARANTINE_DEFAULTS.count, 0, 1_000_000);
  const percent = intSetting(env, 'HR_QUARANTINE_PERCENT', QUARANTINE_DEFAULTS.percent, 0, 100);
  const floor = intSetting(env, 'HR_QUARANTINE_FLOOR', QUARANTINE_DEFAULTS.floor, 0, 1_000_000);
  const windowMinutes = intSetting(
    env,
    'HR_QUARANTINE_WINDOW_MINUTES',
    QUARANTINE_DEFAULTS.windowMinutes,
    0,
    7 * 24 * 60,
  );
  const notifyTo = (env.HR_QUARANTINE_NOTIFY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = notifyTo.find((a) => !isEmail(a));
  if (bad) throw new Error(`HR_QUARANTINE_NOTIFY must list email addresses separated by commas, got '${String(bad)}'`);
  return {
    enabled: (count > 0 || percent > 0) && windowMinutes > 0,
    count,
    percent,
    floor,
    windowSeconds: windowMinutes * 60,
    notifyTo,
  };
}

/** A change of status that takes a member out of the program (the quarantine counts these). */
export function deactivates(before: MemberStatus | null | undefined, after: MemberStatus): boolean {
  return after === 'inactive' && before !== 'inactive' && before != null;
}

/**
 * Deactivations a company may take from HR in one window: the smaller of the
 * count and the percentage of its active members, at least the floor.
 */
export function deactivationLimit(
  settings: Pick<QuarantineSettings, 'count' | 'percent' | 'floor'>,
  activeMembers: number,
): number {
  const limits: number[] = [];
  if (settings.count > 0) limits.push(settings.count);
  if (settings.percent > 0) limits.push(Math.floor((Math.max(0, activeMembers) * settings.percent) / 100));
  if (!limits.length) return Number.POSITIVE_INFINITY;
  return Math.max(settings.floor, Math.min(...limits));
}

/**
 * What a deactivating push does to a member that may already hold one:
 *  - `hold-again`: it already waits; the newer record replaces the held one (same approval, no count);
 *  - `count`: ask the window for a slot, then apply (allowed) or hold (refused).
 * A push that does not deactivate supersedes a held one (`supersede`), or does nothing to the quarantine.
 */
export type QuarantineStep = 'hold-again' | 'count' | 'supersede' | 'none';

export function quarantineStep(deactivating: boolean, heldNow: boolean): QuarantineStep {
  if (deactivating) return heldNow ? 'hold-again' : 'count';
  return heldNow ? 'supersede' : 'none';
}
