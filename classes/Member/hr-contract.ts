/**
 * The HR integration contract (spec 4.1-4.3, 7.2), pure: error envelopes,
 * field messages, the checks a JSON Schema cannot express, and input
 * normalisation.
 *
 * Validation runs in two steps: the runtime checks the method's JSON Schema
 * (schemas/Member/hrUpdateEmployee.json, hrUpsertDependant.json,
 * updateEmployeePhoto.json) before the handler, and `hrErrorShape` /
 * `photoErrorShape` turn its field errors into the contract's body; then the
 * handler checks calendar dates and the employment type and answers the same
 * body. A request failing both steps reports the first step's errors only.
 */
import {
  ActorError,
  IDEMPOTENCY_IN_PROGRESS,
  IDEMPOTENCY_MISMATCH,
  RuntimeCodes,
  type FieldError,
} from '../../runtime';
import { hrError, HrErrors, photoError, type FieldMessages } from './errors';
import type { HrUpdateEmployeeInput, HrUpsertDependantInput } from '../../schemas/Member/inputs';

/** the runtime's codes the shapers recognise */
const RT_BAD_JSON = RuntimeCodes.BAD_JSON.code;
const RT_VALIDATION = RuntimeCodes.VALIDATION.code;
const RT_UNAUTHENTICATED = RuntimeCodes.UNAUTHENTICATED.code;
const RT_FORBIDDEN = RuntimeCodes.FORBIDDEN.code;
const RT_BODY_TOO_LARGE = RuntimeCodes.BODY_TOO_LARGE.code;
const RT_BODY_TOO_DEEP = RuntimeCodes.BODY_TOO_DEEP.code;

/** the field message of a body nested deeper than the runtime's MAX_JSON_DEPTH */
const TOO_DEEP = 'is nested too deeply';

/** a dependant id the HR dependant contract admits (schemas/Member/hrUpsertDependant.json `id`: 1-128 characters), usable as a member id */
export const DEPENDANT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export const HR_MESSAGES = {
  validation: 'Validation failed',
  unauthorized: 'Invalid or missing API key',
  internal: 'Internal server error, please retry later',
  unavailable: 'Service unavailable, please retry later',
  employeeNotFound: 'Employee not found',
  primaryNotFound: 'Primary member not found',
  companyNotMapped: 'No company is mapped to the given companyId (BG_ID)',
  companyGroupMismatch:
    "The company of the given companyId belongs to a different company group type than the member's current company",
  dependantOfOtherEmployee: 'The dependant does not belong to the given employee',
  dependantIdTaken: 'The dependant id already exists for another member',
  employeeUpdated: 'Employee updated successfully',
  employeeUnchanged: 'Employee is up to date; nothing changed',
  employeeStale: 'A newer record of this employee was already applied; this one was not',
  dependantStale: 'A newer record of this dependant was already applied; this one was not',
  employeeHeld:
    'Deactivation held for review: this company passed its limit of deactivations from HR for now; nothing to retry',
  dependantHeld:
    'Deactivation held for review: this company passed its limit of deactivations from HR for now; nothing to retry',
  dependantUpdated: 'Dependant updated successfully',
  dependantAdded: 'Dependant added successfully',
  erasedPerson:
    'This dependant was erased at their request and this service does not take erased persons back (ERASED_MEMBERS_RETURN=refuse)',
} as const;

/** Messages for fields whose schema rule reads badly as an ajv message. */
const FIELD_RULES: Record<string, string> = {
  birthdate: 'must be a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDThh:mm:ss[.fff][Z])',
  lastDayOfService: 'must be a date (YYYY-MM-DD) or a date-time, or null',
  id: 'must start with a letter or digit and contain only letters, digits, _ and -',
};

/** One readable message for an ajv field error. */
export function fieldMessage(field: string, reason: string, context: 'employee' | 'dependant' | 'photo'): string {
  if (reason === 'is required') return 'is required';
  if (/fewer than 1 characters/.test(reason) || reason === 'must match pattern "\\S"') return 'must not be empty';
  if (/must NOT have more than (\d+) characters/.test(reason)) return reason.replace('must NOT have', 'must not have');
  if (reason === 'must be string') return 'must be a string';
  if (reason === 'must be string,null') return 'must be a string or null';
  if (reason === 'must be object') return 'must be an object';
  if (reason === 'must match format "email"') return 'must be a valid email address';
  if (context === 'dependant' && field === 'email') return 'must be a valid email address or null';
  if (context === 'dependant' && field === 'status') return "must be 'Active' or 'In-Active'";
  if (reason.startsWith('must be one of:')) return reason;
  if (FIELD_RULES[field] && reason.startsWith('must match')) return FIELD_RULES[field];
  return reason;
}

/** ajv field errors → `{field: [messages]}` (one message once per field). */
export function toFieldMessages(errors: FieldError[], context: 'employee' | 'dependant' | 'photo'): FieldMessages {
  // keyed by field names: a null-prototype map, so no name can reach Object.prototype
  const out: FieldMessages = Object.create(null) as FieldMessages;
  for (const e of errors) {
    const field = e.field === '(body)' ? 'body' : e.field;
    // anyOf branches of a field add "must match a schema in anyOf" and one error per branch: one message
    const msg =
      e.reason === 'must match a schema in anyOf'
        ? fieldMessage(field, 'anyOf', context)
        : fieldMessage(field, e.reason, context);
    const list = (out[field] ??= []);
    if (!list.includes(msg)) list.push(msg);
  }
  // an empty value is reported as empty only (its format errors say nothing more)
  for (const [field, list] of Object.entries(out))
    if (list.includes('must not be empty')) out[field] = ['must not be empty'];
  // a dependant email failing every anyOf branch has one message only
  if (context === 'dependant' && out.email && !out.email.includes('is required'))
    out.email = ['must be a valid email address or null'];
  return out;
}

function fieldErrorsOf(err: ActorError): FieldError[] {
  const d = err.details as { errors?: unknown } | undefined;
  return Array.isArray(d?.errors) ? (d.errors as FieldError[]) : [];
}

function isAuthError(err: ActorError): boolean {
  return err.status === 401 || (err.status === 403 && err.code === RT_FORBIDDEN) || err.code === RT_UNAUTHENTICATED;
}

/**
 * MethodOptions.errorShape of the employee and dependant endpoints (spec 7.2):
 * every answer becomes `{success: false, error: {code, message}, details?}`.
 */
/**
 * Optional header of the HR pushes (4.2, 4.3): when the HR system produced the
 * record (ISO 8601 date-time with a zone). A record older than the newest one
 * already applied to the same member is answered and not applied, so pushes
 * delivered out of order do not undo each other. Without it a push is applied
 * as it arrives (the spec's behaviour).
 */
export const HR_TIMESTAMP_HEADER = 'x-hr-timestamp';
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** the header's time as a UTC ISO string; absent: undefined; malformed: a 400 (10001) naming the header */
export function hrTimestampOf(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const raw = headers[HR_TIMESTAMP_HEADER];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  const ms = ISO_WITH_ZONE.test(value.trim()) ? Date.parse(value.trim()) : NaN;
  if (!Number.isFinite(ms))
    throw validationError({ 'X-HR-Timestamp': ['must be an ISO 8601 date-time with a zone (2026-11-29T09:14:00Z)'] });
  return new Date(ms).toISOString();
}

/**
 * Is a record produced at `pushedAt` older than the newest one applied
 * (`appliedAt`)? Either unknown: no (applied as it arrives). Equal times are
 * not older: the same record again, or two of one instant in arrival order.
 */
export function isStalePush(appliedAt: string | undefined, pushedAt: string | undefined): boolean {
  return appliedAt !== undefined && pushedAt !== undefined && Date.parse(pushedAt) < Date.parse(appliedAt);
}

/** the newer of the two record times (either may be unknown) */
export function newerPush(appliedAt: string | undefined, pushedAt: string | undefined): string | undefined {
  if (pushedAt === undefined) return appliedAt;
  return appliedAt !== undefined && Date.parse(appliedAt) >= Date.parse(pushedAt) ? appliedAt : pushedAt;
}

/** how long a repeat of the same push (same API key, same record) is answered from the first: 5 minutes unless HR_REPLAY_WINDOW_SECONDS says otherwise (0: off) */
export const DEFAULT_HR_REPLAY_WINDOW_SECONDS = 300;

/**
 * The HR endpoints' replay window (MethodOptions.replayWindowSeconds): an HR
 * system that retries a push after a time-out, without an Idempotency-Key,
 * gets the first push's answer, and a late retry does not undo a newer push
 * of the same employee.
 */
export function hrReplayWindow(env: NodeJS.ProcessEnv): number {
  const raw = env.HR_REPLAY_WINDOW_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_HR_REPLAY_WINDOW_SECONDS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 86_400)
    throw new Error(`HR_REPLAY_WINDOW_SECONDS must be an integer from 0 to 86400, got '${raw}'`);
  return n;
}

export function hrErrorShape(context: 'employee' | 'dependant') {
  return (err: ActorError): ActorError => {
    if (isAuthError(err)) return hrError('INVALID_API_KEY', HR_MESSAGES.unauthorized);
    if (err.code === RT_VALIDATION)
      return hrError('VALIDATION', HR_MESSAGES.validation, toFieldMessages(fieldErrorsOf(err), context));
    if (err.code === RT_BAD_JSON)
      return hrError('VALIDATION', HR_MESSAGES.validation, { body: ['must be a JSON object'] });
    // spec 7.2 pairs 10001 with HTTP 400 only: an oversized body is a validation error like any other
    if (err.code === RT_BODY_TOO_LARGE)
      return hrError('VALIDATION', HR_MESSAGES.validation, { body: ['is too large'] });
    if (err.code === RT_BODY_TOO_DEEP) return hrError('VALIDATION', HR_MESSAGES.validation, { body: [TOO_DEEP] });
    // an Idempotency-Key refusal (beyond the spec) keeps its status and message: 409 while the first request runs, 422 for
    // the key reused with another body; spec 7.2 has no code for them (a 500 here would have the client retry the same key for ever)
    if (err.code === IDEMPOTENCY_IN_PROGRESS || err.code === IDEMPOTENCY_MISMATCH)
      return hrError('INTERNAL', err.message, undefined, err.status);
    if (err.status === 503) return hrError('INTERNAL', HR_MESSAGES.unavailable, undefined, 503);
    return hrError('INTERNAL', HR_MESSAGES.internal);
  };
}

export const ALLOWED_PHOTO_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'webp'] as const;
export type PhotoExtension = (typeof ALLOWED_PHOTO_EXTENSIONS)[number];

/** Spec 4.1 MIME mapping. */
export const PHOTO_MIME: Record<PhotoExtension, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** Codes of the photo endpoint's named errors that spec 4.1 leaves without a number (our choice). */
export const PHOTO_CODES = {
  UNAUTHORIZED: HrErrors.INVALID_API_KEY.code,
  VALIDATION_ERROR: HrErrors.VALIDATION.code,
} as const;

/** MethodOptions.errorShape of updateEmployeePhoto (spec 4.1): `{code, message, details?}`. */
export function photoErrorShape(err: ActorError): ActorError {
  if (isAuthError(err)) return photoError(401, PHOTO_CODES.UNAUTHORIZED, 'Unauthorized: invalid or missing API key');
  if (err.code === RT_VALIDATION) {
    return photoError(400, PHOTO_CODES.VALIDATION_ERROR, 'Validation error', {
      errors: toFieldMessages(fieldErrorsOf(err), 'photo'),
    });
  }
  // a body that is no JSON object, too large or nested too deep: the same VALIDATION_ERROR (400) as a schema failure
  if (err.code === RT_BAD_JSON || err.code === RT_BODY_TOO_LARGE || err.code === RT_BODY_TOO_DEEP) {
    const body = [
      err.code === RT_BAD_JSON ? 'must be a JSON object' : err.code === RT_BODY_TOO_LARGE ? 'is too large' : TOO_DEEP,
    ];
    return photoError(400, PHOTO_CODES.VALIDATION_ERROR, 'Validation error', { errors: { body } });
  }
  return photoError(err.status, typeof err.code === 'number' ? err.code : HrErrors.INTERNAL.code, err.message);
}

/** Spec 4.1 rule 1. */
export function checkPhotoExtension(ext: string): PhotoExtension | null {
  return (ALLOWED_PHOTO_EXTENSIONS as readonly string[]).includes(ext) ? (ext as PhotoExtension) : null;
}

export function invalidExtensionError(ext: string): ActorError {
  return photoError(
    HrErrors.INVALID_FILE_EXTENSION.status,
    HrErrors.INVALID_FILE_EXTENSION.code,
    `Invalid file extension '${ext}'. Allowed extensions: ${ALLOWED_PHOTO_EXTENSIONS.join(', ')}`,
  );
}

/**
 * Spec 4.1 rule 2: a refused or failed upload is wrapped as 10018 with the
 * inner message and code in `details`. The spec gives 400 (error table) and
 * 500 (example); we answer 400 when the file store refused the content (inner
 * 4xx: bad Base64, content not of the declared type, too large: bad input must
 * not be a 500) and 500 when the store itself failed (inner 5xx).
 */
export function photoUploadFailed(inner: unknown): ActorError {
  const e = inner as { status?: number; code?: unknown; message?: unknown };
  const status = inner instanceof ActorError && inner.status < 500 ? 400 : 500;
  const details: Record<string, unknown> = { message: String(e?.message ?? inner) };
  if (e?.code !== undefined) details.code = e.code;
  return photoError(status, HrErrors.EMPLOYEE_PHOTO_UPLOAD_FAILED.code, 'Employee photo upload failed', details);
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;

const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * true for a real calendar date `YYYY-MM-DD`, optionally with a time part
 * `Thh:mm[:ss[.fraction]]` and an offset `Z` or `±hh[:]mm`, every part in
 * range (hour 0-23, minute and second 0-59, offset up to 23:59). The schema
 * pattern checks the shape; this checks the values.
 */
export function isCalendarDate(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (d > days) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || (m[6] !== undefined && Number(m[6]) > 59)))
    return false;
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false;
  return true;
}

/** Checks of 4.2 beyond the schema (the record passed the schema). */
export function employeeSemanticErrors(rec: HrUpdateEmployeeInput): FieldMessages {
  const out: FieldMessages = {};
  if (!isCalendarDate(rec.birthdate)) out.birthdate = ['is not a valid calendar date'];
  if (rec.lastDayOfService && !isCalendarDate(rec.lastDayOfService))
    out.lastDayOfService = ['is not a valid calendar date'];
  return out;
}

export interface NormalizedDependant {
  id: string;
  employeeId: string;
  status: 'active' | 'in-active';
  name: string;
  surname: string;
  email: string | null;
  /** undefined: leave the stored phone as it is */
  phone: string | undefined;
  type: string;
}

/** Spec 4.3 normalisation: blank email → null; phone blank/null/omitted → unchanged; status lower-cased. */
export function normalizeDependant(rec: HrUpsertDependantInput): NormalizedDependant {
  const email = typeof rec.email === 'string' && rec.email.trim() !== '' ? rec.email.trim() : null;
  const phone = typeof rec.phone === 'string' && rec.phone.trim() !== '' ? rec.phone.trim() : undefined;
  return {
    id: rec.id,
    employeeId: rec.employeeId,
    status: rec.status.toLowerCase() === 'active' ? 'active' : 'in-active',
    name: rec.name,
    surname: rec.surname,
    email,
    phone,
    type: rec.type.trim(),
  };
}

export function dependantSemanticErrors(rec: HrUpsertDependantInput): FieldMessages {
  return isCalendarDate(rec.birthdate) ? {} : { birthdate: ['is not a valid calendar date'] };
}

export function validationError(errors: FieldMessages): ActorError {
  return hrError('VALIDATION', HR_MESSAGES.validation, errors);
}
