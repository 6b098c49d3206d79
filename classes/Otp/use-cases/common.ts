/**
 * What Otp's use cases share: the handler contexts, the settings the class
 * was started with (config and OTP key), the entity an instance id names and
 * the check that the calling class is that entity's class, and the 429 answer
 * that still commits what the refusal wrote to the history.
 */
import type { ActorError, Ctx, FieldError, ReadCtx } from '../../../runtime';
import { otpError } from '../errors';
import { parseInstanceId } from '../rules';
import type { OtpClassState, OtpConfig, OtpState, ValidationResult } from '../types';

/** an Otp handler's context: the entity's OTP records and the method's body `I` */
export type OtpCtx<I> = Ctx<OtpClassState, I>;
export type OtpReadCtx<I> = ReadCtx<OtpClassState, I>;

/** what the class reads from its environment at start (Otp.class.ts) */
export interface OtpSettings {
  config: OtpConfig;
  /** the HMAC key of stored tokens (token.ts otpKeyFrom) */
  key: Buffer;
}

/** The answer of a refused issue or check (429): the error body of spec 7.1, with when to try again. */
export interface OtpRefusal {
  code: number | string;
  message: string;
  classId: string;
  isSuccessful: false;
  validationResult: Extract<ValidationResult, 'otp_limit_exceed' | 'retry_limit_exceed'>;
  retryAfterSeconds: number;
}

/**
 * The entity of this instance, `{classKey}_{entityId}` (400 15000 otherwise).
 * A class reaches only its own entities' OTPs (403 15001): Member cannot read
 * or spend a back-office user's, nor the reverse. The system identity (CLI,
 * tests) reaches every entity.
 */
export function entityOf(ctx: OtpReadCtx<unknown> | OtpCtx<unknown>): { classKey: string; entityId: string } {
  const entity = parseInstanceId(ctx.instanceId);
  if (!entity) {
    throw otpError('OTP_INVALID_INSTANCE_ID', `'${ctx.instanceId}' is not an Otp instance id: {classKey}_{entityId}`, {
      errors: [{ field: 'instanceId', reason: 'must be {classKey}_{entityId}' }],
    });
  }
  const caller = ctx.identity;
  if (caller.type === 'class' && caller.classId !== entity.classKey) {
    throw otpError('OTP_NOT_YOUR_ENTITY', `${caller.classId} may not reach the OTPs of a ${entity.classKey} entity`);
  }
  return entity;
}

/** The state of a write, opened: the entity named and the records list there. */
export function openState(ctx: OtpCtx<unknown>, entity: { classKey: string; entityId: string }): OtpState {
  const s = ctx.state.private;
  s.classKey = entity.classKey;
  s.entityId = entity.entityId;
  s.records ??= [];
  return s as OtpState;
}

/**
 * Answers 429 with `err`'s body (and Retry-After) without throwing, so the
 * refusal written to the history is committed: a thrown error would commit
 * nothing. Class callers see the status in the call's result (client.ts turns
 * it back into the error).
 */
export function refuse(
  ctx: OtpCtx<unknown>,
  err: ActorError,
  validationResult: OtpRefusal['validationResult'],
  retryAfterSeconds: number,
): OtpRefusal {
  const body: OtpRefusal = {
    ...(err.toBody() as { code: number; message: string; classId: string }),
    isSuccessful: false,
    validationResult,
    retryAfterSeconds,
  };
  ctx.response = { status: err.status, body, headers: { 'retry-after': String(retryAfterSeconds) } };
  return body;
}

export function bad(field: string, reason: string) {
  return otpError('OTP_INVALID_INPUT', `${field} ${reason}`, { errors: [{ field, reason }] });
}

/** A refused input (its schema's problems, a GET query's as a POST body's): the same 400 15002 naming each field. */
export function refusedInput(errors: readonly FieldError[]) {
  const text = errors.map((e) => `${e.field} ${e.reason}`).join('; ');
  return otpError('OTP_INVALID_INPUT', text, { errors: [...errors] });
}
