/**
 * DataSubject error codes: 20000-20099 (the spec gives the class none:
 * docs/error-ranges.md). Each name has one code and one HTTP status.
 */
import { errorFactory } from '../../runtime';

export const DataSubjectErrors = {
  /** the subject's own class holds no such member or user */
  SUBJECT_NOT_FOUND: { code: 20001, status: 404 },
  /** a company user asked for a subject of another company, or of none */
  SUBJECT_OUT_OF_SCOPE: { code: 20002, status: 403 },
  /** getErasure of an instance that holds no erasure request */
  ERASURE_NOT_FOUND: { code: 20003, status: 404 },
  /** requestErasure on an instance that already holds a request */
  REQUEST_EXISTS: { code: 20004, status: 409 },
  /** an erasure that the workflow would approve at once for someone other than the system actor (a rule without approvers, a developer) */
  ERASURE_NEEDS_APPROVAL: { code: 20005, status: 403 },
  /** an approval callback for an approval the request does not wait for */
  APPROVAL_MISMATCH: { code: 20006, status: 409 },
} as const;

export type DataSubjectErrorName = keyof typeof DataSubjectErrors;

export const dataSubjectError = errorFactory('DataSubject', DataSubjectErrors);
