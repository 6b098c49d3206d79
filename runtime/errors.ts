/**
 * Typed errors. Anything thrown by a handler that is an ActorError becomes an
 * HTTP answer `{code, message, classId, details?}` with its status; anything
 * else is an internal error (500, logged, details hidden from the caller).
 */

export interface ErrorBody {
  code?: number | string;
  message: string;
  classId?: string;
  details?: unknown;
  [extra: string]: unknown;
}

export class ActorError extends Error {
  readonly status: number;
  readonly code: number | string;
  readonly details?: unknown;
  /** filled by the dispatcher with the class that threw, when not given */
  classId?: string;
  /**
   * When set, the HTTP layer answers with exactly this body instead of the
   * standard `{code, message, classId}`. Used for external contracts whose
   * error shape is fixed (for example an HR integration's error envelope).
   */
  readonly body?: Record<string, unknown>;
  /** a retryable error lets a QUEUED_WRITE job be retried with backoff */
  readonly retryable: boolean;

  constructor(
    status: number,
    code: number | string,
    message: string,
    opts: { details?: unknown; classId?: string; body?: Record<string, unknown>; retryable?: boolean } = {},
  ) {
    super(message);
    this.name = 'ActorError';
    this.status = status;
    this.code = code;
    this.details = opts.details;
    this.classId = opts.classId;
    this.body = opts.body;
    this.retryable = opts.retryable ?? false;
  }

  toBody(): Record<string, unknown> {
    if (this.body) return this.body;
    const out: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.classId) out.classId = this.classId;
    if (this.details !== undefined) out.details = this.details;
    return out;
  }
}

/**
 * Platform error codes (1000-1099; the spec gives classes 4000 and up).
 * Each has one HTTP status.
 */
export const RuntimeCodes = {
  INTERNAL: { code: 1000, status: 500 },
  BAD_JSON: { code: 1001, status: 400 },
  VALIDATION: { code: 1002, status: 400 },
  UNKNOWN_PROJECT: { code: 1003, status: 404 },
  UNKNOWN_CLASS: { code: 1004, status: 404 },
  UNKNOWN_METHOD: { code: 1005, status: 404 },
  METHOD_INTERNAL: { code: 1006, status: 403 },
  UNAUTHENTICATED: { code: 1007, status: 401 },
  FORBIDDEN: { code: 1008, status: 403 },
  INSTANCE_EXISTS: { code: 1009, status: 409 },
  INSTANCE_REQUIRED: { code: 1010, status: 400 },
  TIMEOUT: { code: 1011, status: 504 },
  INSTANCE_BUSY: { code: 1012, status: 503 },
  LOOKUP_KEY_TAKEN: { code: 1013, status: 409 },
  REENTRANT_WRITE: { code: 1014, status: 409 },
  CALL_DEPTH: { code: 1015, status: 508 },
  BODY_TOO_LARGE: { code: 1016, status: 413 },
  LEASE_LOST: { code: 1017, status: 503 },
  READ_ONLY: { code: 1018, status: 500 },
  UNKNOWN_JOB: { code: 1019, status: 404 },
  BAD_INSTANCE_ID: { code: 1020, status: 400 },
  METHOD_NOT_ALLOWED: { code: 1021, status: 405 },
  NOT_FOUND: { code: 1022, status: 404 },
  /** the instance or record belongs to another tenant than the caller's (ClassOptions.tenancy) */
  OUT_OF_SCOPE: { code: 1023, status: 403 },
  /** a JSON body nested deeper than MAX_JSON_DEPTH (checked right after parsing, before any handler) */
  BODY_TOO_DEEP: { code: 1024, status: 400 },
  /** a delivery (task, queued job, committed effect) whose change was applied before: nothing written again */
  ALREADY_APPLIED: { code: 1025, status: 409 },
  /** Redis did not answer within REDIS_COMMAND_TIMEOUT_MS (frozen, unreachable, restarting); retryable */
  REDIS_UNAVAILABLE: { code: 1026, status: 503 },
  /** the bearer token was issued for other methods only (ctx.tokens.issue's `methods`, e.g. a member_otp token) */
  TOKEN_NOT_FOR_METHOD: { code: 1027, status: 403 },
  /**
   * the change committed on its Redis master, but no replica confirmed it within REDIS_WAIT_TIMEOUT_MS:
   * it stands unless that master fails before it replicates; not retryable (retrying may apply it twice)
   */
  REPLICA_UNCONFIRMED: { code: 1028, status: 503 },
  /** the instance's state was written by newer code (ClassOptions.state.version): a process of that code serves it; retryable */
  STATE_TOO_NEW: { code: 1029, status: 503 },
} as const;

export type RuntimeCode = keyof typeof RuntimeCodes;

export function runtimeError(name: RuntimeCode, message: string, details?: unknown): ActorError {
  const { code, status } = RuntimeCodes[name];
  return new ActorError(status, code, message, { details });
}

/** The code of the unknown-instance answer (not in RuntimeCodes: its body is not the standard one). */
export const UNKNOWN_INSTANCE_CODE = 'UNKNOWN_INSTANCE';

/**
 * The answer for an instance that does not exist (spec 4.1 rule 3): HTTP 500
 * with a body that has only `message`.
 */
export function unknownInstanceError(projectId: string, classId: string, instanceId: string): ActorError {
  const message = `No instance with id '${instanceId}' exists in class '${classId}' of project '${projectId}'`;
  return new ActorError(500, UNKNOWN_INSTANCE_CODE, message, { body: { message } });
}

/** Is this the runtime's answer for an instance that does not exist (a call's target, or an id a lookup named)? */
export function isUnknownInstance(err: unknown): err is ActorError {
  return err instanceof ActorError && err.code === UNKNOWN_INSTANCE_CODE;
}

const NOT_DEPLOYED = new Set<number | string>([
  RuntimeCodes.UNKNOWN_PROJECT.code,
  RuntimeCodes.UNKNOWN_CLASS.code,
  RuntimeCodes.UNKNOWN_METHOD.code,
]);

/**
 * The runtime's own 404 for a call whose target is not deployed (unknown
 * project, class or method), as opposed to a class's 404 for a record it does
 * not hold: a caller must not read it as "no such record".
 */
export function isNotDeployed(err: unknown): boolean {
  return err instanceof ActorError && NOT_DEPLOYED.has(err.code);
}

export interface ErrorTable {
  [name: string]: { code: number | string; status: number; retryable?: boolean };
}

/**
 * Every table errorFactory was given, by class. A class that must recognise or
 * raise another class's error names it here instead of importing that class's
 * table: classes see each other only through the runtime and their types.
 */
const TABLES = new Map<string, ErrorTable>();

/**
 * A class's error constructor from its table of named codes:
 *   const TierErrors = { TIER_NOT_FOUND: { code: 7004, status: 404 } };
 *   export const tierError = errorFactory('Tier', TierErrors);
 *   throw tierError('TIER_NOT_FOUND', 'No tier x', { id });
 */
export function errorFactory<T extends ErrorTable>(classId: string, table: T) {
  TABLES.set(classId, { ...TABLES.get(classId), ...table });
  return (name: keyof T, message: string, details?: unknown): ActorError => {
    const { code, status, retryable } = table[name];
    return new ActorError(status, code, message, { details, classId, retryable });
  };
}

/**
 * The code `classId` gives its error `name` (the name typed by the other class's
 * exported error-name type: `classErrorCode<OtpErrorName>('Otp', 'OTP_LIMIT_EXCEEDED')`).
 * Undefined while that class is not loaded in this process; a name its table
 * lacks is a programming error and throws.
 */
export function classErrorCode<N extends string>(classId: string, name: N): number | string | undefined {
  const table = TABLES.get(classId);
  if (!table) return undefined;
  if (!Object.hasOwn(table, name)) throw new Error(`class ${classId} has no error named ${name}`);
  return table[name].code;
}

/** Is `err` the error `name` of class `classId` (thrown there, or answered by a call to it)? */
export function isClassError<N extends string>(err: unknown, classId: string, name: N): err is ActorError {
  if (!(err instanceof ActorError) || err.classId !== classId) return false;
  const code = classErrorCode(classId, name);
  return code !== undefined && err.code === code;
}

/** The error `name` of class `classId`, raised by another class that answers on its behalf. */
export function classError<N extends string>(classId: string, name: N, message: string, details?: unknown): ActorError {
  const table = TABLES.get(classId);
  if (!table || !Object.hasOwn(table, name)) throw new Error(`class ${classId} has no loaded error named ${name}`);
  const { code, status, retryable } = table[name];
  return new ActorError(status, code, message, { details, classId, retryable });
}
