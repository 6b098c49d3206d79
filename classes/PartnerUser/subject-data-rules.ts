/**
 * What PartnerUser gives a data subject's export and erasure
 * (classes/_platform/personal-data.ts), pure: the instance of a subject, the
 * records and company the export gets, and the user's state once erased.
 * Unit-tested in test/PartnerUser/subject-data-rules.test.ts.
 *
 * A partner user's state holds no secret: partner users do not sign in to
 * this service (no password, no codes), so the state is exported whole.
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
import type { PartnerUserRecord, PartnerUserState } from './types';

export const CLASS_ID = 'PartnerUser';
/** the kind of the user's state in the export */
export const USER_KIND = 'user';
/** the kind of its document of the `partnerUsers` collection */
export const USER_DOCUMENT_KIND = 'partnerUserDocument';

/** The user id a subject names (its instance id); undefined when it names no partner user. */
export function subjectUserId(subject: Subject): string | undefined {
  return ownSubjectInstanceId(subject, 'partner_user');
}

/**
 * The user's personal values by which traces of it outside the classes'
 * records are found (the runtime's kept answers and jobs): its full name and
 * email, each once. Not part of the archive.
 */
export function traceValues(user: DeepReadonly<PartnerUserState['user']>): string[] {
  return subjectTraceValues([user.fullName, user.email]);
}

/**
 * The export of one partner user: its state (store `state`) and, once
 * streamed, its listing document (store `listing`, without the document
 * store's own fields). `companyId` is null: partner users are the
 * programme's (they belong to partners, which belong to no company), so only
 * a caller limited to no company may have them exported. And its trace values.
 */
export function partnerUserSubjectData(
  userId: string,
  state: DeepReadonly<PartnerUserState>,
  document: Readonly<Record<string, unknown>> | null,
): SubjectData {
  const records = stateAndListingRecords(
    { classId: CLASS_ID, state: USER_KIND, listing: USER_DOCUMENT_KIND },
    userId,
    state,
    document,
  );
  return { records, files: [], companyId: null, values: traceValues(state.user) };
}

/** Has DataSubject erased this user? */
export function isErased(user: DeepReadonly<Pick<PartnerUserRecord, 'erasedAt'>> | null | undefined): boolean {
  return typeof user?.erasedAt === 'number';
}

/** The record's personal values, which an erasure replaces with ERASED (both are required strings). */
export const ERASED_USER_FIELDS = ['fullName', 'email'] as const;

/**
 * The user's state once erased by DataSubject's request `erasureId` at `at`
 * (epoch milliseconds), the change made by `by` (the record's `updatedBy`):
 *  - the personal values (`fullName`, `email`) become ERASED, and the reason
 *    given with the last status change (free text) goes; the record keeps
 *    what names nobody (its id, its partners and roles there, its venues, who
 *    created it and when), so the fact of the account stays;
 *  - a change waiting for an approval goes (the requested values are the
 *    person's too; the approval record itself is ApprovalManager's to erase);
 *  - `inactive`, so it holds its email no more;
 *  - marked `erasedAt`, `erasureId`: no write reaches it any more.
 * The last review keeps its approval, action, outcome, reviewer and time (the
 * redelivery guard and the facts), not its free-text reason.
 */
export function erasedUserState(
  state: DeepReadonly<PartnerUserState>,
  erasureId: string,
  by: string,
  at: number,
): PartnerUserState {
  const copy = structuredClone(state) as PartnerUserState;
  let lastReview = copy.lastReview ?? null;
  if (lastReview) {
    const { reason: _reason, ...rest } = lastReview;
    lastReview = rest;
  }
  return {
    user: {
      ...copy.user,
      fullName: ERASED,
      email: ERASED,
      status: 'inactive',
      statusReason: null,
      updatedBy: by,
      updatedAt: at,
      erasedAt: at,
      erasureId,
    },
    pendingApproval: null,
    lastSettledApprovalId: copy.lastSettledApprovalId ?? null,
    lastReview,
  };
}

/**
 * What eraseSubjectData counts: the user's state and, when one is streamed, its
 * listing document (re-projected from the erased state by the commit); nothing
 * when the user was erased before.
 */
export const erasedRecordCount = stateAndListingErased;
