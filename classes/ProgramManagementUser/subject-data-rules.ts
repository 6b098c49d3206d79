/**
 * What ProgramManagementUser gives a data subject's export and erasure
 * (classes/_platform/personal-data.ts), pure: the instance of a subject,
 * what of a user's state is a secret and left out, the records and company
 * the export gets, and the user's state once erased. Unit-tested in
 * test/ProgramManagementUser/subject-data-rules.test.ts.
 */
import type { DeepReadonly } from '../../runtime';
import {
  ERASED,
  ownSubjectInstanceId,
  stateAndListingErased,
  stateAndListingRecords,
  subjectTraceValues,
  type Subject,
  type SubjectData,
} from '../_platform/personal-data';
import type { Credentials, ProgramManagementUserRecord, UserState } from './types';

export const CLASS_ID = 'ProgramManagementUser';
/** the kind of the user's state in the export */
export const USER_KIND = 'user';
/** the kind of its document of the `programManagementUsers` collection */
export const USER_DOCUMENT_KIND = 'userDocument';

/** The user id a subject names (its instance id); undefined when it names no back-office user. */
export function subjectUserId(subject: Subject): string | undefined {
  return ownSubjectInstanceId(subject, 'program_management_user');
}

/**
 * What of a user's state is never exported: the password's scrypt hash. The
 * invitation and reset codes are not in this state (Otp keeps them, as HMACs
 * it leaves out too), nor is anything of SAML (the replay memory of
 * assertions is the platform's, and no assertion is stored).
 */
export const USER_SECRET_FIELDS = ['credentials.passwordHash'] as const;

/** The user's state as exported: everything but its secrets. */
export type ExportedUserState = Omit<UserState, 'credentials'> & {
  credentials: Omit<Credentials, 'passwordHash'>;
};

/** A user's state without its secrets (a copy: the stored state is not touched). */
export function exportedUserState(state: DeepReadonly<UserState>): ExportedUserState {
  const copy = structuredClone(state) as UserState;
  const { passwordHash: _secret, ...credentials } = copy.credentials ?? { passwordHash: null, passwordChangedAt: null };
  return { ...copy, credentials };
}

/**
 * The user's personal values by which traces of it outside the classes'
 * records are found (mails sent to it, the runtime's kept answers and jobs):
 * its name and email, each once. Not part of the archive.
 */
export function traceValues(user: DeepReadonly<UserState['user']>): string[] {
  return subjectTraceValues([user.name, user.email]);
}

/**
 * The export of one user: its state (store `state`) and, once streamed, its
 * listing document (store `listing`, without the document store's own
 * fields); its company (null for an internal user) and its trace values.
 */
export function userSubjectData(
  userId: string,
  state: DeepReadonly<ExportedUserState>,
  document: Readonly<Record<string, unknown>> | null,
): SubjectData {
  const records = stateAndListingRecords(
    { classId: CLASS_ID, state: USER_KIND, listing: USER_DOCUMENT_KIND },
    userId,
    state,
    document,
  );
  return { records, files: [], companyId: state.user.companyId ?? null, values: traceValues(state.user) };
}

/** Has DataSubject erased this user? */
export function isErased(
  user: DeepReadonly<Pick<ProgramManagementUserRecord, 'erasedAt'>> | null | undefined,
): boolean {
  return typeof user?.erasedAt === 'string';
}

/** The record's personal values, which an erasure replaces with ERASED (both are required strings). */
export const ERASED_USER_FIELDS = ['name', 'email'] as const;

/**
 * The user's state once erased by DataSubject's request `erasureId` at `at`:
 *  - the personal values (`name`, `email`) become ERASED; the record keeps
 *    what names nobody (its id, type, company, sign-in method, roles,
 *    developer flag, who created it and when), so the fact of the account stays
 *    and company scope still applies to it;
 *  - what tells of the person's own use of it goes: when it was invited,
 *    accepted the invitation and last signed in;
 *  - the password hash and its change time go, and so does a change waiting
 *    for an approval (the requested values are the person's too; the approval
 *    record itself is ApprovalManager's to erase);
 *  - `inactive`, so it neither signs in nor holds its email, and sessions
 *    issued before now are refused (`sessionsValidAfter`);
 *  - marked `erasedAt`, `erasureId`: no write reaches it any more.
 * The last review keeps its approval, action, outcome, reviewer and time (the
 * redelivery guard and the facts), not its free-text reason.
 */
export function erasedUserState(state: DeepReadonly<UserState>, erasureId: string, at: string): UserState {
  const copy = structuredClone(state) as UserState;
  let lastReview = copy.lastReview ?? null;
  if (lastReview) {
    const { reason: _reason, ...rest } = lastReview;
    lastReview = rest;
  }
  return {
    user: {
      ...copy.user,
      name: ERASED,
      email: ERASED,
      status: 'inactive',
      invitedAt: null,
      acceptedAt: null,
      lastLoginAt: null,
      updatedAt: at,
      erasedAt: at,
      erasureId,
    },
    credentials: { passwordHash: null, passwordChangedAt: null },
    pendingApproval: null,
    lastSettledApprovalId: copy.lastSettledApprovalId ?? null,
    lastReview,
    sessionsValidAfter: at,
  };
}

/**
 * What eraseSubjectData counts: the user's state and, when one is streamed, its
 * listing document (re-projected from the erased state by the commit); nothing
 * when the user was erased before.
 */
export const erasedRecordCount = stateAndListingErased;
