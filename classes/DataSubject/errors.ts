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
} as const;

export type DataSubjectErrorName = keyof typeof DataSubjectErrors;

export const dataSubjectError = errorFactory('DataSubject', DataSubjectErrors);
