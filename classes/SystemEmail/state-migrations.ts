/**
 * SystemEmail's state versions (ClassOptions.state, docs/runtime.md "State
 * versions"): the version this code reads and writes, and the pure migration
 * to each version from the one before. A stored state is migrated when it is
 * loaded and committed at the new version with the template's next write (or
 * by `cli migrate-state SystemEmail`).
 *
 * Version 2: the id of the last settled approval is stored once, as
 * `lastReview.approvalId`. Version 1 also stored it as
 * `lastSettledApprovalId`, the approval callback's redelivery guard; the
 * callback wrote both in the same commit with the same id, so the second
 * copy told nothing the first did not, and could only ever disagree with it.
 */
import type { ClassOptions, InstanceState } from '../../runtime';
import type { LastReview, PendingApproval, SystemEmailTemplate } from './types';

/** A template's private state as version 1 stored it. */
export interface SystemEmailStateV1 {
  template: SystemEmailTemplate;
  pendingApproval: PendingApproval | null;
  /** null from the creation until the first settled approval, then that approval's id (= lastReview.approvalId) */
  lastSettledApprovalId: string | null;
  /** absent until the first settled approval */
  lastReview?: LastReview;
}

export const TO_V2_DESCRIPTION =
  'lastSettledApprovalId is dropped: the last settled approval id is kept once, as lastReview.approvalId ' +
  '(lastReview null until the first review); the approval callback wrote both with the same id, so the ' +
  'redelivery guard was stored twice';

/**
 * Version 1 → 2. Every version-1 state has lastReview?.approvalId equal to
 * lastSettledApprovalId (null: never reviewed, lastReview absent): the one
 * handler that set the id set the review in the same commit, and a handler
 * that throws commits nothing. Dropping the copy therefore loses nothing.
 * Run on a state already at version 2, it changes nothing.
 */
export function toV2(state: InstanceState): InstanceState {
  // a version-1 state, or (run again) a version-2 one
  const s = state.private as Omit<SystemEmailStateV1, 'lastSettledApprovalId' | 'lastReview'> & {
    lastSettledApprovalId?: string | null;
    lastReview?: LastReview | null;
  };
  s.lastReview = s.lastReview ?? null;
  delete s.lastSettledApprovalId;
  return state;
}

/** `state` of SystemEmail's @ActorClass options */
export const SYSTEM_EMAIL_STATE_VERSIONS: NonNullable<ClassOptions['state']> = {
  version: 2,
  migrations: [{ to: 2, description: TO_V2_DESCRIPTION, migrate: toV2 }],
};
