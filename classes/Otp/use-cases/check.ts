/**
 * Checking a token: verifyOtp (WRITE, for sign-in, which answers at once) and
 * createOtpCheckRecord (QUEUED_WRITE, the spec's kind, for a check nobody
 * waits for) run the same check and write it to the history (spec 2.8): the
 * retry limit first (429 6002), then the newest OTP of the type, unused and
 * unexpired (`no_active_otp`), then the token in constant time
 * (`invalid_token`); a match spends the OTP (usedAt).
 */
import { additionalDataProblem, appendCheck, checkDecision, pruneRecords, recordViews } from '../rules';
import { otpError } from '../errors';
import { tokenMatches } from '../token';
import type { CreateOtpCheckRecordInput, VerifyOtpInput } from '../../../schemas/Otp/inputs';
import type { OtpCheck, OtpView } from '../types';
import { bad, entityOf, openState, refuse, type OtpCtx, type OtpRefusal, type OtpSettings } from './common';

export type CheckAnswer =
  | { isSuccessful: true; otp: OtpView }
  | { isSuccessful: false; validationResult: 'no_active_otp' }
  | { isSuccessful: false; validationResult: 'invalid_token'; remainingAttempts: number }
  | OtpRefusal;

export function checkOtp(ctx: OtpCtx<VerifyOtpInput | CreateOtpCheckRecordInput>, settings: OtpSettings): CheckAnswer {
  const entity = entityOf(ctx);
  const body = ctx.request.body;
  const tooLarge = additionalDataProblem(body.additionalData);
  if (tooLarge) throw bad(tooLarge.field, tooLarge.reason);
  const state = openState(ctx, entity);
  const now = Date.now();
  const { config, key } = settings;
  const decision = checkDecision(state.records, body.otpType, now, config, (r) => tokenMatches(key, r, body.token));
  const timestamp = new Date(now).toISOString();
  const entry: OtpCheck = {
    timestamp,
    isSuccessful: decision.isSuccessful,
    ...(decision.isSuccessful ? {} : { validationResult: decision.validationResult }),
    requestedBy: body.requestedBy,
    requesterDetails: body.requesterDetails,
    ...(body.additionalData !== undefined ? { additionalData: body.additionalData } : {}),
  };
  // a check of a type the entity never had has no record to be written to
  if (decision.record) appendCheck(decision.record, entry, now, config);
  if (decision.isSuccessful) decision.record.usedAt = timestamp;
  state.records = pruneRecords(state.records, now, config);

  if (decision.isSuccessful) return { isSuccessful: true, otp: recordViews([decision.record], undefined, now)[0] };
  switch (decision.validationResult) {
    case 'retry_limit_exceed': {
      const err = otpError(
        'OTP_RETRY_LIMIT_EXCEEDED',
        `Too many failed checks of type '${body.otpType}' for ${ctx.instanceId}: at most ${config.retryLimit} per ${config.retryExpireTimeInSeconds} s`,
      );
      return refuse(ctx, err, 'retry_limit_exceed', decision.retryAfterSeconds);
    }
    case 'invalid_token':
      return { isSuccessful: false, validationResult: 'invalid_token', remainingAttempts: decision.remainingAttempts };
    default:
      return { isSuccessful: false, validationResult: 'no_active_otp' };
  }
}
