/**
 * Otp error codes: the class's own range is 15000-15099 (spec 7.1); the two
 * limits keep the codes spec 7.1 lists for them, 6001 and 6002 with HTTP 429,
 * although they fall in Company's range (Company avoids them: classId tells
 * the two apart). Each name has one code and one HTTP status; 400s name the
 * field and the reason (`details.errors`).
 */
import { errorFactory } from '../../runtime';

export const OtpErrors = {
  /** spec 7.1: too many OTPs issued for the entity and type within the window */
  OTP_LIMIT_EXCEEDED: { code: 6001, status: 429 },
  /** spec 7.1: too many failed checks for the entity and type within the window */
  OTP_RETRY_LIMIT_EXCEEDED: { code: 6002, status: 429 },
  /** the instance id is not `{classKey}_{entityId}` */
  OTP_INVALID_INSTANCE_ID: { code: 15000, status: 400 },
  /** a class reached for the OTPs of another class's entity (`{classKey}` is not the caller) */
  OTP_NOT_YOUR_ENTITY: { code: 15001, status: 403 },
  /** input the schema cannot judge: a token that is not of its tokenType, additionalData too large, a bad query */
  OTP_INVALID_INPUT: { code: 15002, status: 400 },
} as const;

export type OtpErrorName = keyof typeof OtpErrors;

export const otpError = errorFactory('Otp', OtpErrors);
