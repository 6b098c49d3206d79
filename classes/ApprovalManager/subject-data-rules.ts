/**
 * What ApprovalManager gives a data subject's export
 * (classes/_platform/personal-data.ts), pure: which approval records name the
 * subject, how the `approvals` listing finds them page after page, and the
 * records and files they become. Unit-tested in
 * test/ApprovalManager/subject-data-rules.test.ts.
 *
 * A record names the subject when it is about the subject (a change of the
 * subject's own instance: the subject's record, or something it holds, such
 * as a member's membership), when the subject made the change (`actor`), or
 * when the subject reviewed it (`approvedBy`). `approvers` names roles, not
 * people.
 */
import type { DeepReadonly, ListingSpec } from '../../runtime';
import {
  subjectActorTypes,
  subjectOwnerClass,
  type Subject,
  type SubjectFile,
  type SubjectRecord,
} from '../_platform/personal-data';
import { largeApprovalFileName, LIST_APPROVALS } from './rules';
import type { ApprovalRecord } from './types';

export const CLASS_ID = 'ApprovalManager';
/** the kind of an approval record in the export (one record per approval) */
export const APPROVAL_KIND = 'approval';
/** the kind of a record's blob (its large patch, or its old values kept out of line) */
export const APPROVAL_BLOB_KIND = 'approvalBlob';
export const APPROVAL_BLOB_CONTENT_TYPE = 'application/json';

/** records read from the listing at a time (listApprovals's largest page) */
export const SUBJECT_PAGE_SIZE = 100;

/**
 * exportSubjectData's walk of `approvals`: by the entity's instance, by the
 * maker's id and by the reviewer's id, each off its own index, in
 * listApprovals's order, which the next page continues from (afterRecord).
 */
export const LIST_SUBJECT_APPROVALS: ListingSpec = {
  name: 'exportSubjectData',
  sort: { ...LIST_APPROVALS.sort },
  filterSets: [['instanceId'], ['actor.id'], ['approvedBy.id']],
};

/**
 * The filters of the `approvals` listing that find the subject's records, one
 * per index (LIST_SUBJECT_APPROVALS): changes of its instance, changes it
 * made, changes it reviewed. A record found by several is one record (the
 * caller keeps each id once).
 */
export function subjectApprovalFilters(subject: Subject): Record<string, unknown>[] {
  const filters: Record<string, unknown>[] = [{ instanceId: subject.id, classId: subjectOwnerClass(subject.type) }];
  const actorTypes = [...subjectActorTypes(subject.type)];
  if (actorTypes.length) {
    filters.push({ 'actor.id': subject.id, 'actor.type': { $in: actorTypes } });
    filters.push({ 'approvedBy.id': subject.id, 'approvedBy.type': { $in: actorTypes } });
  }
  return filters;
}

/** The listed fields the walk continues from (approvalDocument; `_id` is the record's id). */
export interface ListedRecordKey {
  _id: string;
  createdAt: string;
}

/**
 * The filter of the page after `last`, in the listing's order (createdAt,
 * then id, newest first): what comes strictly after it. Continuing from the
 * last record seen, rather than skipping a count, neither repeats nor misses
 * a record when others are listed meanwhile.
 */
export function afterRecord(
  filter: Record<string, unknown>,
  last: ListedRecordKey | undefined,
): Record<string, unknown> {
  if (!last) return filter;
  return {
    $and: [
      filter,
      { $or: [{ createdAt: { $lt: last.createdAt } }, { createdAt: last.createdAt, _id: { $lt: last._id } }] },
    ],
  };
}

/** The listing's order (createdAt, then id, newest first), for the records the walks found. */
export function newestFirst(
  a: Pick<ApprovalRecord, 'id' | 'createdAt'>,
  b: Pick<ApprovalRecord, 'id' | 'createdAt'>,
): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

type StoredRecord = ApprovalRecord | DeepReadonly<ApprovalRecord>;

/**
 * Does the stored record name the subject? The listing is a projection; the
 * record as its instance holds it decides (the same rule as
 * subjectApprovalFilters).
 */
export function recordNamesSubject(record: StoredRecord, subject: Subject): boolean {
  return (
    recordIsAboutSubject(record, subject) ||
    recordMadeBySubject(record, subject) ||
    recordReviewedBySubject(record, subject)
  );
}

/** Is the record about the subject: a change of the subject's own instance? */
export function recordIsAboutSubject(record: StoredRecord, subject: Subject): boolean {
  return record.instanceId === subject.id && record.classId === subjectOwnerClass(subject.type);
}

/** Is `who` the subject acting (its id, as one of the actor types it acts as)? */
function isSubject(who: { id: string; type: string } | undefined, subject: Subject): boolean {
  return who?.id === subject.id && (subjectActorTypes(subject.type) as readonly string[]).includes(who.type);
}

/** Did the subject make the change (`actor`)? */
export function recordMadeBySubject(record: StoredRecord, subject: Subject): boolean {
  return isSubject(record.actor, subject);
}

/** Did the subject review it (`approvedBy`)? */
export function recordReviewedBySubject(record: StoredRecord, subject: Subject): boolean {
  return isSubject(record.approvedBy, subject);
}

/**
 * The blobs a stored record keeps out of line (rules.ts planApproval): its
 * patch when large (the record names the file; older records did not, and
 * their file has the name largeApprovalFileName gives), and its old values
 * when they did not fit beside the patch.
 */
export function recordBlobNames(record: StoredRecord): string[] {
  const names: string[] = [];
  if (record.isLargeApproval) names.push(record.largePatchFile ?? largeApprovalFileName(record.entityId, record.id));
  if (record.oldValuesFile) names.push(record.oldValuesFile);
  return names;
}

/**
 * A record as the export gives it: as stored, with the names of its blobs
 * (their content is in the export's files). Patches and old values are not
 * masked in approval records (they are what reviewers judge), so they are
 * given as they are.
 */
export function approvalRecord(record: StoredRecord): SubjectRecord {
  return {
    store: 'approvals',
    classId: CLASS_ID,
    instanceId: record.id,
    kind: APPROVAL_KIND,
    data: structuredClone(record),
  };
}

/** One of a record's blobs as the export gives it. */
export function approvalBlobFile(recordId: string, name: string, content: Buffer): SubjectFile {
  return {
    classId: CLASS_ID,
    instanceId: recordId,
    name,
    contentType: APPROVAL_BLOB_CONTENT_TYPE,
    kind: APPROVAL_BLOB_KIND,
    contentBase64: content.toString('base64'),
  };
}
