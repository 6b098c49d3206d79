/**
 * Company error codes (spec 7.1: 6000-6099). 6001, 6002 (OTP limits in
 * spec 7.1) and 6006 (the file-store code quoted in spec 4.1) are avoided:
 * Company's own codes start at 6010.
 */
import { errorFactory } from '../../runtime';

export const CompanyErrors = {
  /** no company with this id (or bgId) */
  COMPANY_NOT_FOUND: { code: 6010, status: 404 },
  /** another company has this HR business group id */
  COMPANY_BG_ID_TAKEN: { code: 6011, status: 409 },
  /** companyGroupId, eligibleMemberTypes or memberSubTypes name settings that are not active (or repeat one) */
  COMPANY_INVALID_REFERENCES: { code: 6012, status: 400 },
  /** a status update asked for a status other than active/inactive */
  COMPANY_INVALID_STATUS: { code: 6013, status: 400 },
  /** a status update asked for the status the company already has */
  COMPANY_STATUS_UNCHANGED: { code: 6014, status: 409 },
  /** the company waits for an approval: no other change until it is reviewed */
  COMPANY_APPROVAL_PENDING: { code: 6015, status: 409 },
  /** an approval callback for an approval the company does not wait for */
  COMPANY_APPROVAL_MISMATCH: { code: 6016, status: 409 },
  /** a company user reached for another company, or for an operation reserved to internal users */
  COMPANY_ACCESS_DENIED: { code: 6018, status: 403 },
  /** list or look-up parameters are malformed */
  COMPANY_INVALID_QUERY: { code: 6019, status: 400 },
  /** a company with this id exists */
  COMPANY_ID_TAKEN: { code: 6020, status: 409 },
  /** Company is a singleton: every call goes to instance `default` */
  COMPANY_SINGLETON_ONLY: { code: 6021, status: 400 },
  /** an update that names no field to change */
  COMPANY_EMPTY_UPDATE: { code: 6022, status: 400 },
} as const;

export type CompanyErrorName = keyof typeof CompanyErrors;

/** The code of an approved change that could not be applied any more (reported in the callback's result, not thrown). */
export const COMPANY_PATCH_CONFLICT = 6017;

export const companyError = errorFactory('Company', CompanyErrors);
