/**
 * ContentManager error codes: 18000-18049 (docs/error-ranges.md; the spec
 * gives ContentManager no range, the benefit catalogue has 18050-18099).
 * Every 400 carries `details.errors: [{field, reason}]`.
 */
import { errorFactory, type FieldError } from '../../runtime';
import { problemsText } from '../_platform/paging';

export const ContentManagerErrors = {
  /** no content with this id */
  CONTENT_NOT_FOUND: { code: 18000, status: 404 },
  /** the content's fields do not fit its key's schema (each field named) */
  CONTENT_INVALID_FIELDS: { code: 18001, status: 400 },
  /** an unknown group or key, or a key outside its group */
  CONTENT_INVALID_KEY: { code: 18002, status: 400 },
  /** startDate is not before endDate */
  CONTENT_INVALID_DATES: { code: 18003, status: 400 },
  /** a status update asked for a status other than active or inactive */
  CONTENT_INVALID_STATUS: { code: 18004, status: 400 },
  /** a status update asked for the status the content has */
  CONTENT_STATUS_UNCHANGED: { code: 18005, status: 409 },
  /** the content waits for an approval: no other change until it is reviewed */
  CONTENT_APPROVAL_PENDING: { code: 18006, status: 409 },
  /** an approval callback for an approval the content does not wait for */
  CONTENT_APPROVAL_MISMATCH: { code: 18007, status: 409 },
  /** query or filter parameters are malformed */
  CONTENT_INVALID_QUERY: { code: 18009, status: 400 },
  /** a content with this id exists */
  CONTENT_ID_TAKEN: { code: 18010, status: 409 },
  /** ContentManager is a singleton: every call goes to instance `default` */
  CONTENT_SINGLETON_ONLY: { code: 18011, status: 400 },
  /** an update that names no field to change, or changes nothing */
  CONTENT_EMPTY_UPDATE: { code: 18012, status: 400 },
  /** the file store refused an image (its type, size or content) */
  CONTENT_INVALID_IMAGE: { code: 18013, status: 400 },
  /** the file store failed to store an image */
  CONTENT_IMAGE_STORE_FAILED: { code: 18014, status: 500 },
  /** no content group with this key */
  CONTENT_GROUP_NOT_FOUND: { code: 18015, status: 404 },
  /** the benefit catalogue did not answer the active categories */
  CONTENT_CATEGORIES_UNAVAILABLE: { code: 18016, status: 502 },
} as const;

export type ContentManagerErrorName = keyof typeof ContentManagerErrors;

/** The code of an approved change that no longer applies (reported in approveContent's answer, not thrown). */
export const CONTENT_PATCH_CONFLICT = 18008;

export const contentError = errorFactory('ContentManager', ContentManagerErrors);

/** A listing's or the metadata's refusal of its filters (a GET query or a POST body alike): 18009 naming each field. */
export function invalidFilter(errors: FieldError[]) {
  return contentError('CONTENT_INVALID_QUERY', `Invalid filter: ${problemsText(errors)}`, { errors });
}

/** getContent's and getContentGroup's refusal of their input (the id or key missing or malformed): 18009 naming it. */
export function invalidLookup(errors: FieldError[]) {
  return contentError('CONTENT_INVALID_QUERY', `Invalid input: ${problemsText(errors)}`, { errors });
}
