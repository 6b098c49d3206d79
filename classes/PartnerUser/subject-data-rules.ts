/**
 * What PartnerUser gives a data subject's export
 * (classes/_platform/personal-data.ts), pure: the instance of a subject and
 * the records and company the export gets. Unit-tested in
 * test/PartnerUser/subject-data-rules.test.ts.
 *
 * A partner user's state holds no secret: partner users do not sign in to
 * this service (no password, no codes), so the state is exported whole.
 */
import type { DeepReadonly } from '../../runtime';
import { listedDocument } from '../_platform/paging';
import type { Subject, SubjectData, SubjectRecord } from '../_platform/personal-data';
import type { PartnerUserState } from './types';

export const CLASS_ID = 'PartnerUser';
/** the kind of the user's state in the export */
export const USER_KIND = 'user';
/** the kind of its document of the `partnerUsers` collection */
export const USER_DOCUMENT_KIND = 'partnerUserDocument';

/** an instance id as the runtime takes one: anything else (a lookup `name!value`) would not name the user by its id */
const INSTANCE_ID = /^[A-Za-z0-9_.@+\-=]{1,200}$/;

/** The user id a subject names (its instance id); undefined when it names no partner user. */
export function subjectUserId(subject: Subject): string | undefined {
  return subject.type === 'partner_user' && INSTANCE_ID.test(subject.id) ? subject.id : undefined;
}

/**
 * The user's personal values by which traces of it outside the classes'
 * records are found (the runtime's kept answers and jobs): its full name and
 * email, each once. Not part of the archive.
 */
export function traceValues(user: DeepReadonly<PartnerUserState['user']>): string[] {
  const values = [user.fullName, user.email];
  return [...new Set(values.filter((v) => typeof v === 'string' && v.trim() !== ''))];
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
  const records: SubjectRecord[] = [
    {
      store: 'state',
      classId: CLASS_ID,
      instanceId: userId,
      kind: USER_KIND,
      data: structuredClone(state),
    },
  ];
  if (document) {
    records.push({
      store: 'listing',
      classId: CLASS_ID,
      instanceId: userId,
      kind: USER_DOCUMENT_KIND,
      data: listedDocument({ ...document }),
    });
  }
  return { records, files: [], companyId: null, values: traceValues(state.user) };
}
