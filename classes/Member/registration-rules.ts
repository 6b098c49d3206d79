/**
 * Which case an HR-driven registration (registerFromHr, use-cases/registration.ts)
 * is in once the HR system has named the employee: pure, so the rule is
 * tested on its own (test/member/registration-rules.test.ts).
 *
 *  - `register`: no member holds the employee's staff id: create it.
 *  - `resume`: the member holding the staff id was created by the HR
 *    registration and the HR system has not taken its member id yet: a
 *    registration stopped half-way (a crash after the member was created);
 *    finish it (its dependants, the member id in HR) instead of refusing.
 *  - `already_registered`: any other member (created in the back office, by
 *    an import or a seed, or a registration that finished): refused as today.
 */

/** what the member holding the staff id says about how it came to be (Member.hrRegistrationOf) */
export interface HeldRegistration {
  /** `hr_registration` when registerFromHr created it; null for any other creation (or one made before the source was kept) */
  creationSource: string | null;
  /** when the HR system took the member id (registerFromHr inline, or its background retry); null until then */
  hrMemberIdRecordedAt: string | null;
}

export type HrRegistrationCase = 'register' | 'resume' | 'already_registered';

export function hrRegistrationCase(held: HeldRegistration | null): HrRegistrationCase {
  if (!held) return 'register';
  if (held.creationSource === 'hr_registration' && !held.hrMemberIdRecordedAt) return 'resume';
  return 'already_registered';
}
