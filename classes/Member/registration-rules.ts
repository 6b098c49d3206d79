/**
 * Which case an HR-driven registration (registerFromHr, use-cases/registration.ts)
 * is in once the HR system has named the employee: pure, so the rule is
 * tested on its own (test/Member/registration-rules.test.ts).
 *
 *  - `register`: no member holds the employee's staff id: create it.
 *  - `resume`: the member holding the staff id was created by the HR
 *    registration and that registration's finishing step never ended (no
 *    hrRegistrationFinishedAt): a registration stopped half-way (a crash
 *    after the member was created, before the effects that link its
 *    dependants and mark it finished were written); finish it (its
 *    dependants, the member id in HR) instead of refusing. Whether the member
 *    id reached HR does not decide it: a member id left to the background
 *    retry (recordHrMemberId) belongs to a finished registration, and that
 *    retry may record the id of one whose dependants were never linked.
 *  - `already_registered`: any other member (created in the back office, by
 *    an import or a seed, or a registration that finished): refused as today.
 *
 * A registration to resume is still refused, as a new one would be, when the
 * HR record or the member no longer admits it (registration.ts): HR status
 * not active, the HR record's company not the member's or not taking members
 * (422 5031), or the member in a status where nothing is finished for it
 * (STATUSES_NOT_RESUMED, 409 5026).
 */
import type { MemberStatus } from './types';

/**
 * Member statuses (status-machine.ts) whose registration is not finished by a
 * resume: `rejected` (refused by the back office) and `inactive` (deactivated,
 * by the back office or the HR employee update for an inactive or terminated
 * employee). `suspended` is a back-office hold that updateMemberStatus lifts:
 * the member stays the employee's, so its registration is finished.
 */
export const STATUSES_NOT_RESUMED: readonly MemberStatus[] = ['rejected', 'inactive'];

export function resumeRefusedForStatus(status: string): boolean {
  return (STATUSES_NOT_RESUMED as readonly string[]).includes(status);
}

/** what the member holding the staff id says about how it came to be (Member.hrRegistrationOf) */
export interface HeldRegistration {
  /**
   * `hr_registration` when registerFromHr created it, `self_registration` when the employee registered
   * themselves (completeRegistration); null for any other creation (or one made before the source was kept)
   */
  creationSource: string | null;
  /** when the HR system took the member id (registerFromHr inline, or its background retry); null until then */
  hrMemberIdRecordedAt: string | null;
  /** when registerFromHr's finishing step ended (dependants linked, member id recorded or queued); null until then */
  hrRegistrationFinishedAt: string | null;
  /** a self-registered member whose password was never set (the call stopped between creating and setting it) */
  awaitingPassword?: boolean;
}

/** the creations a registration from HR finishes when it stopped half-way */
const FROM_HR: readonly (string | null)[] = ['hr_registration', 'self_registration'];

export type HrRegistrationCase = 'register' | 'resume' | 'already_registered';

export function hrRegistrationCase(held: HeldRegistration | null): HrRegistrationCase {
  if (!held) return 'register';
  if (FROM_HR.includes(held.creationSource) && !held.hrRegistrationFinishedAt) return 'resume';
  return 'already_registered';
}

/**
 * The same question for an employee registering themselves (completeRegistration):
 * a self-registration is also left to finish while its password was never set,
 * since that is the step that lets the member in. A member the back office
 * registered from HR is not taken over by a self-registration even while
 * unfinished: it is waiting for its invitation, which the member follows.
 */
export function selfRegistrationCase(held: HeldRegistration | null): HrRegistrationCase {
  if (!held) return 'register';
  if (held.creationSource === 'self_registration' && (!held.hrRegistrationFinishedAt || held.awaitingPassword))
    return 'resume';
  return 'already_registered';
}
